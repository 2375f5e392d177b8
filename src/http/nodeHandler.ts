/**
 * The gateway core behind a bare `node:http` request listener: reads the raw body (up to
 * `MAX_BODY_BYTES`, geth's limit), hands method, Host, path, headers and bytes to the core, and
 * writes its status, headers and body unchanged. Express mounts the same listener (./app.ts).
 *
 * A response flagged `destroy` (a scripted drop, a held request released) destroys the socket
 * without writing anything. When the client goes away before the answer, the request's signal
 * is aborted, which releases a request a fault is holding. The signal (an AbortController and a
 * `close` listener) is only made when the core asks for it, which it does only to hold a request:
 * making one per request cost about a sixth of an `eth_blockNumber`'s time here.
 *
 * Bodies in flight are bounded in bytes across the server (./bodyBudget.ts): past the bound a
 * request's body is read once answers have given room back.
 */
import { STATUS_CODES } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { PayloadTooLargeError } from '../gateway/errors.ts'
import { gatewayFailure } from '../gateway/cors.ts'
import type { Gateway } from '../gateway/gateway.ts'
import type { HttpResponse } from '../gateway/response.ts'
import { toHttpResponse } from '../gateway/response.ts'
import { bodyBudgetOf } from './bodyBudget.ts'
import type { BodyBudget } from './bodyBudget.ts'

/** geth's `maxRequestContentLength`: 5 MiB. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024

class BodyTooLarge extends Error {
  override readonly name = 'BodyTooLarge'
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // A request that waited for room may have lost its client meanwhile: it would never end.
    if (req.destroyed) {
      reject(new ClientGone())
      return
    }
    const declared = Number(req.headers['content-length'])
    if (Number.isFinite(declared) && declared > limit) {
      reject(new BodyTooLarge())
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        req.removeAllListeners('data')
        reject(new BodyTooLarge())
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)))
    req.on('error', reject)
    // After 'end' this is a no-op; before it, the client went away.
    req.on('close', () => reject(new ClientGone()))
  })
}

class ClientGone extends Error {
  override readonly name = 'ClientGone'
}

/**
 * The bytes a request's body may bring, taken from the budget before it is read: its declared
 * length, the limit when it is chunked, nothing when it has no body (or is over the limit: refused
 * unread).
 */
function bodyReservation(req: IncomingMessage, limit: number): number {
  const declared = Number(req.headers['content-length'])
  if (req.headers['content-length'] !== undefined && Number.isFinite(declared) && declared >= 0) return declared <= limit ? declared : 0
  return req.headers['transfer-encoding'] !== undefined ? limit : 0
}

function write(res: ServerResponse, response: HttpResponse): void {
  if (response.destroy === true) {
    res.destroy()
    return
  }
  if (res.destroyed) return
  res.writeHead(response.status, response.headers)
  res.end(response.body)
}

/** The 500 of a failure, when nothing of another answer was written yet; else the connection is cut. */
export function answerFailure(res: ServerResponse): void {
  try {
    if (!res.headersSent && !res.destroyed) write(res, gatewayFailure())
    else res.destroy()
  } catch {
    res.destroy()
  }
}

/** Aborted when the client goes away before the answer is written (at once if it already has). */
function goneSignal(res: ServerResponse): AbortSignal {
  const gone = new AbortController()
  if (res.destroyed) {
    if (!res.writableFinished) gone.abort()
  } else {
    res.on('close', () => {
      if (!res.writableFinished) gone.abort()
    })
  }
  return gone.signal
}

export type NodeRequestListener = (req: IncomingMessage, res: ServerResponse) => void

export interface NodeHandlerOptions {
  readonly maxBodyBytes?: number
  /** The bodies in flight this listener counts in (default: its gateway's, shared by every listener of it; ./bodyBudget.ts). */
  readonly bodies?: BodyBudget
  /** The network this listener's port serves on its own (per-network ports): every request is it. */
  readonly network?: string
}

export function createNodeHandler(gateway: Gateway, opts: NodeHandlerOptions = {}): NodeRequestListener {
  const limit = opts.maxBodyBytes ?? MAX_BODY_BYTES
  const network = opts.network
  const bodies = opts.bodies ?? bodyBudgetOf(gateway)
  return function gatewayListener(req, res) {
    const reserved = bodyReservation(req, limit)
    const answer = () => void answerRequest(req, res).finally(() => bodies.give(reserved))
    const wait = bodies.take(reserved)
    if (wait === undefined) answer()
    else void wait.then(answer)
  }

  function answerRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let signal: AbortSignal | undefined
    return readBody(req, limit).then(
      async (body) => {
        const response = await gateway.handle({
          method: req.method ?? 'GET',
          host: req.headers.host,
          path: req.url ?? '/',
          headers: req.headers,
          body,
          network,
          get signal() {
            return (signal ??= goneSignal(res))
          },
        })
        write(res, response)
      },
      (err: unknown) => {
        if (err instanceof BodyTooLarge) {
          gateway.logTransportAnswer(413, { method: req.method ?? 'GET', host: req.headers.host, path: req.url ?? '/', headers: req.headers, network })
          const response = toHttpResponse(new PayloadTooLargeError())
          write(res, { ...response, headers: { ...response.headers, vary: 'Origin', connection: 'close' } })
          req.resume()
        } else {
          res.destroy()
        }
      },
    ).catch((err: unknown) => {
      // The core never rejects; this is the transport's own failure (writing the answer).
      gateway.logger.error('transport failure', err)
      answerFailure(res)
    })
  }
}

/** Node's own answers to what its HTTP parser refuses (as `node:http` writes them when no listener is set). */
const PARSER_STATUS: Readonly<Record<string, number>> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
}

/**
 * A `clientError` listener for the server: answers as Node does by default (`400 Bad Request`,
 * `431`, `408`, `Connection: close`, no body), and writes the request log's entry of each such
 * answer, which Node gives no request for. Socket errors that are not a refused request (a reset,
 * a client gone) answer and log nothing.
 */
export function createClientErrorListener(gateway: Gateway): (err: Error & { code?: string }, socket: Duplex) => void {
  return (err, socket) => {
    const refused = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code?.startsWith('HPE_') === true
    const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage
    if (refused && socket.writable && inFlight?.headersSent !== true) {
      const status = PARSER_STATUS[err.code!] ?? 400
      socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`)
      gateway.logTransportAnswer(status)
    }
    socket.destroy()
  }
}

/**
 * An HTTP/1.1 request without `Host`: Node's own answer (`requireHostHeader`: 400, `Connection:
 * close`, no body), with its request log entry, which Node's would not have.
 */
export function refuseWithoutHost(gateway: Gateway, req: IncomingMessage, res: ServerResponse): void {
  gateway.logTransportAnswer(400, { method: req.method ?? 'GET', host: undefined, path: req.url ?? '/', headers: req.headers })
  req.resume()
  res.writeHead(400, { connection: 'close' })
  res.end()
}
