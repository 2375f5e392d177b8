/**
 * One listening HTTP server of `startServer`: the shared port, or a network's own port. Three lanes,
 * one core: `POST /v3/...` straight to the bare `node:http` handler (the fast lane), the test
 * endpoint's plain requests to its own lane (./devRpcLane.ts) when the controls are served,
 * everything else to the Express app (loaded on first need). A failure anywhere in the transport is logged
 * and answered, never thrown out of the listener.
 */
import { createServer } from 'node:http'
import type { Server } from 'node:http'
import type { Gateway } from '../gateway/gateway.ts'
import { TooManyConnectionsError } from '../gateway/errors.ts'
import { toHttpResponse } from '../gateway/response.ts'
import type { GatewayApp } from './app.ts'
import type { DevRpcLane } from './devRpcLane.ts'
import { DEFAULT_MAX_CONNECTIONS, limitConnections } from './connectionLimit.ts'
import type { ConnectionLimit } from './connectionLimit.ts'
import { answerFailure, createClientErrorListener, createNodeHandler, refuseWithoutHost } from './nodeHandler.ts'
import { createDrainer } from './shutdown.ts'
import type { Drainer } from './shutdown.ts'

/**
 * How long an idle keep-alive connection stays open: geth's HTTP server's `IdleTimeout` (120 s),
 * announced as `keep-alive: timeout=120`. Node's default (5 s announced, closed after 6 s) cut
 * connections that a client reused after a pause of about 6 s: a client that does not read the
 * announcement (an `http.Agent` without `timeout`, as ./client.ts's `localhostAgent` was) sent its
 * next request as the server closed the socket, and got `ECONNRESET` or `socket hang up`.
 */
export const KEEP_ALIVE_IDLE_MS = 120_000

export interface ListenOptions {
  port: number
  host: string
  /** The one network this port serves, whatever the Host (a network's own port). */
  network?: string | undefined
  /** Every POST takes the fast lane, whatever its path (a provider profile's port: its paths are not `/v3/`). */
  anyPath?: boolean
  /** Connections open at once (./connectionLimit.ts). Default `DEFAULT_MAX_CONNECTIONS`. */
  maxConnections?: number | undefined
  /** The test endpoint's fast lane (./devRpcLane.ts), when the controls are served. */
  devRpc?: DevRpcLane | undefined
}

/** Listens on `port` and `host`; resolves once bound, with the server's graceful stop and its connection bound. */
export async function listenOn(
  gateway: Gateway,
  appFor: () => Promise<GatewayApp>,
  opts: ListenOptions,
): Promise<{ server: Server; drainer: Drainer; connections: ConnectionLimit }> {
  const fastLane = createNodeHandler(gateway, { network: opts.network })
  // Node's refusal of an HTTP/1.1 request without Host is made here instead, to log it.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    try {
      if (drainer.draining) drainer.mark(res)
      if (connections.refuses(req.socket)) {
        gateway.logTransportAnswer(503, { method: req.method ?? 'GET', host: req.headers.host, path: req.url ?? '/', headers: req.headers })
        const refusal = toHttpResponse(new TooManyConnectionsError(connections.max))
        req.resume()
        res.writeHead(refusal.status, { ...refusal.headers, connection: 'close' }).end(refusal.body)
      } else if (req.headers.host === undefined && req.httpVersion === '1.1') refuseWithoutHost(gateway, req, res)
      else if (req.method === 'POST' && (opts.anyPath === true || req.url?.startsWith('/v3/') === true)) fastLane(req, res)
      else if (opts.devRpc?.(req, res) === true) return
      else
        appFor().then(
          (a) => a(req, res),
          (err: unknown) => {
            gateway.logger.error('loading the Express app failed', err)
            res.destroy()
          },
        )
    } catch (err) {
      gateway.logger.error('transport failure', err)
      answerFailure(res)
    }
  })
  server.keepAliveTimeout = KEEP_ALIVE_IDLE_MS
  server.on('clientError', createClientErrorListener(gateway))
  const connections = limitConnections(server, opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS)
  const drainer = createDrainer(server)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  return { server, drainer, connections }
}

/** Stops listening and cuts open connections. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()))
    server.closeAllConnections()
  })
}
