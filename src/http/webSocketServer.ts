/**
 * The WebSocket transport: the `node:http` server's `upgrade` listener, carrying bytes between
 * `ws` connections and the gateway core, deciding nothing. An upgrade goes to `gateway.upgrade`
 * (the POST's rules, then the handshake): refused, its answer is written on the socket as an
 * HTTP response; accepted, `ws` completes the handshake and the session the gateway opens gets
 * every message. The transport's own part is the protocol: the message size limit (`ws` closes
 * with 1009 past it), pings (a peer whose pong has not come by the next ping is terminated), the
 * session's text frames (framed here and written on the socket in one write each: `textFrame`), and
 * closing every connection when the server stops. `ws` itself (and the `tls`, `https` and `zlib`
 * it requires) is imported at the first accepted upgrade: a third of the CLI's module loading at
 * start, for a transport many runs never use.
 *
 * Node sends every request with an `Upgrade` header to this listener, not only WebSocket ones;
 * `curl --http2` asks a POST to upgrade to h2c. Such a request is handed back to the HTTP server
 * as the plain request it is, without its upgrade headers (what RFC 9113 lets a server do).
 */
import { STATUS_CODES } from 'node:http'
import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import type { WebSocket, WebSocketServer } from 'ws'
import { TooManyConnectionsError } from '../gateway/errors.ts'
import type { Gateway } from '../gateway/gateway.ts'
import type { GatewayRequest } from '../gateway/request.ts'
import { toHttpResponse } from '../gateway/response.ts'
import type { HttpResponse } from '../gateway/response.ts'
import { isWebSocketUpgrade } from '../gateway/sockets/handshake.ts'
import { CLOSE_SHUTDOWN } from '../gateway/sockets/limits.ts'
import { frameDataBytes } from '../gateway/sockets/frames.ts'
import type { FrameData } from '../gateway/sockets/frames.ts'
import type { SocketSink } from '../gateway/sockets/session.ts'
import type { ConnectionLimit } from './connectionLimit.ts'

export interface WebSocketTransport {
  /**
   * Serves WebSocket upgrades on `server` (its `upgrade` event). `network`: the one network the
   * server's port serves whatever the Host (per-network ports, ./networkPorts.ts). `connections`:
   * the port's bound (./connectionLimit.ts); an upgrade on a connection past it is refused with 503.
   */
  attach(server: Server, options?: { network?: string; connections?: ConnectionLimit }): void
  /** Connections open now. */
  readonly connections: number
  /**
   * Stops: new upgrades are refused (the connection destroyed), every open connection is closed
   * with 1001 `server shutting down` (as `gateway.close()` also does to the sessions), and those
   * still open after `graceMs` (a client that does not answer the close) are terminated. Resolves
   * when none is left. Whatever the order the caller closes the gateway and the transport in.
   */
  close(graceMs?: number): Promise<void>
}

/** How long a closing connection may take to answer the close frame when the server stops. */
export const CLOSE_GRACE_MS = 1000

/** The request as the HTTP server would have parsed it, without its upgrade: handed back to the server. */
function asPlainRequest(server: Server, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`]
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!
    const value = req.rawHeaders[i + 1]!
    const lower = name.toLowerCase()
    if (lower === 'upgrade' || lower === 'http2-settings') continue
    if (lower === 'connection') {
      const kept = value.split(',').map((t) => t.trim()).filter((t) => t !== '' && !['upgrade', 'http2-settings'].includes(t.toLowerCase()))
      if (kept.length > 0) lines.push(`${name}: ${kept.join(', ')}`)
      continue
    }
    lines.push(`${name}: ${value}`)
  }
  socket.unshift(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), head]))
  server.emit('connection', socket)
}

/** A refused upgrade: the gateway's answer as an HTTP/1.1 response, then the connection ends. */
function writeRefusal(socket: Duplex, response: HttpResponse): void {
  if (response.destroy === true) {
    socket.destroy()
    return
  }
  const head = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}`]
  for (const [name, value] of Object.entries(response.headers)) head.push(`${name}: ${value}`)
  head.push('connection: close')
  socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), typeof response.body === 'string' ? Buffer.from(response.body) : response.body]))
}

/**
 * A text frame as `ws` frames a server's (FIN, opcode 1, unmasked; no permessage-deflate on this
 * server, so never compressed), its header and payload (whole or in parts) in one buffer. `ws.send` writes the two
 * apart between cork and uncork, through the stream's buffered writev path: with 100 newHeads
 * subscribers that path was about a tenth of a block's delivery, beside the system call itself.
 */
function textFrame(data: FrameData): Buffer {
  const length = frameDataBytes(data)
  const offset = length < 126 ? 2 : length < 65536 ? 4 : 10
  const frame = Buffer.allocUnsafe(offset + length)
  frame[0] = 0x81
  if (offset === 2) frame[1] = length
  else if (offset === 4) {
    frame[1] = 126
    frame.writeUInt16BE(length, 2)
  } else {
    frame[1] = 127
    frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2)
    frame.writeUInt32BE(length >>> 0, 6)
  }
  if (typeof data === 'string') frame.write(data, offset, 'utf8')
  else if (Buffer.isBuffer(data)) data.copy(frame, offset)
  else {
    let at = offset
    for (const part of data as readonly Buffer[]) at += part.copy(frame, at)
  }
  return frame
}

/**
 * The session's side of a connection. A text frame is written on the upgraded socket itself (the
 * one `ws` writes on: `ws` writes each of its frames at once, never queued, as nothing is
 * compressed, so the frames keep their order); once `ws` is no longer open (closing, closed), it
 * is `ws.send`'s, which drops the frame as before. A class, so that every connection's sink has
 * one shape: the session reads `bufferedBytes` and calls `send` once per frame.
 */
class WsSink implements SocketSink {
  readonly #ws: WebSocket
  readonly #socket: Duplex

  constructor(ws: WebSocket, socket: Duplex) {
    this.#ws = ws
    this.#socket = socket
  }

  send(data: FrameData): void {
    const ws = this.#ws
    if (ws.readyState === ws.OPEN) this.#socket.write(textFrame(data))
    else ws.send(typeof data === 'string' || Buffer.isBuffer(data) ? data : Buffer.concat(data as readonly Buffer[]), { binary: false })
  }

  close(code: number, reason: string): void {
    this.#ws.close(code, reason)
  }

  terminate(): void {
    this.#ws.terminate()
  }

  get bufferedBytes(): number {
    return this.#ws.bufferedAmount
  }

  pause(): void {
    this.#ws.pause()
  }

  resume(): void {
    this.#ws.resume()
  }
}

export function createWebSocketTransport(gateway: Gateway): WebSocketTransport {
  const limits = gateway.socketLimits
  // Made with the first accepted upgrade, and the pinger with it.
  let wss: WebSocketServer | undefined
  let loading: Promise<WebSocketServer> | undefined
  const alive = new WeakMap<WebSocket, boolean>()
  let pinger: NodeJS.Timeout | undefined
  let closing = false

  function loadServer(): Promise<WebSocketServer> {
    loading ??= import('ws').then(({ WebSocketServer }) => {
      const made = (wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes, perMessageDeflate: false }))
      if (closing) return made
      pinger = setInterval(() => {
        for (const ws of made.clients) {
          if (alive.get(ws) === false) {
            ws.terminate()
            continue
          }
          alive.set(ws, false)
          ws.ping()
        }
      }, limits.pingIntervalMs)
      pinger.unref()
      return made
    })
    return loading
  }

  function bind(ws: WebSocket, socket: Duplex, open: (sink: SocketSink) => import('../gateway/sockets/session.ts').SocketSession): void {
    const session = open(new WsSink(ws, socket))
    alive.set(ws, true)
    ws.on('pong', () => alive.set(ws, true))
    ws.on('message', (data: Buffer | Buffer[] | ArrayBuffer) => {
      session.receive(Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data))
    })
    // `ws` emits close after any error (a message over the limit, a protocol error, a reset).
    ws.on('error', () => {})
    ws.on('close', () => session.ended())
  }

  function onUpgrade(server: Server, network: string | undefined, connections: ConnectionLimit | undefined, req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (!isWebSocketUpgrade(req.headers)) {
      asPlainRequest(server, req, socket, head)
      return
    }
    if (closing) {
      socket.destroy()
      return
    }
    if (connections?.refuses(socket) === true) {
      gateway.logTransportAnswer(503, { method: req.method ?? 'GET', host: req.headers.host, path: req.url ?? '/', headers: req.headers })
      writeRefusal(socket, toHttpResponse(new TooManyConnectionsError(connections.max)))
      return
    }
    socket.on('error', () => socket.destroy())
    const request = upgradeRequest(req, socket, network)
    gateway.upgrade(request).then(
      async (answer): Promise<void> => {
        if (socket.destroyed) return
        if (!answer.accepted) {
          writeRefusal(socket, answer.response)
          return
        }
        const sockets = wss ?? (await loadServer())
        if (closing) socket.destroy()
        else if (!socket.destroyed) sockets.handleUpgrade(req, socket, head, (ws) => bind(ws, socket, answer.open))
      },
      () => socket.destroy(),
    ).catch(() => socket.destroy())
  }

  return {
    attach(server, options = {}) {
      server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => onUpgrade(server, options.network, options.connections, req, socket, head))
    },
    get connections() {
      return wss?.clients.size ?? 0
    },
    close(graceMs = CLOSE_GRACE_MS) {
      closing = true
      clearInterval(pinger)
      return wss === undefined ? Promise.resolve() : closeClients(wss, graceMs)
    },
  }
}

/** The upgrade as the gateway core reads a request; its `signal` aborts when the socket closes. */
function upgradeRequest(req: IncomingMessage, socket: Duplex, network: string | undefined): GatewayRequest {
  let gone: AbortController | undefined
  return {
    method: req.method ?? 'GET',
    host: req.headers.host,
    path: req.url ?? '/',
    headers: req.headers,
    body: '',
    network,
    get signal() {
      if (!gone) {
        const controller = (gone = new AbortController())
        if (socket.destroyed) controller.abort()
        else socket.once('close', () => controller.abort())
      }
      return gone.signal
    },
  }
}

/** Closes every connection with 1001; those that do not answer within `graceMs` are terminated. */
function closeClients(wss: WebSocketServer, graceMs: number): Promise<void> {
  for (const ws of wss.clients) ws.close(CLOSE_SHUTDOWN.code, CLOSE_SHUTDOWN.reason)
  return new Promise<void>((resolve) => {
    if (wss.clients.size === 0) {
      resolve()
      return
    }
    let left = wss.clients.size
    const done = () => {
      if (--left === 0) {
        clearTimeout(timer)
        resolve()
      }
    }
    for (const ws of wss.clients) ws.once('close', done)
    const timer = setTimeout(() => {
      for (const ws of wss.clients) ws.terminate()
    }, graceMs)
  })
}
