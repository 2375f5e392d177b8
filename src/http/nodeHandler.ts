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
 * The body is read by ./bodyReader.ts (shared with the test endpoint's lane, ./devRpcLane.ts),
 * counted in the server's body budget (./bodyBudget.ts): past the bound a request's body is read
 * once answers have given room back. An answer the core has at once (`Gateway.respond`) is written
 * before the body's `end` event returns, without a promise.
 */
import { STATUS_CODES } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { PayloadTooLargeError } from '../gateway/errors.ts'
import { gatewayFailure } from '../gateway/cors.ts'
import type { Gateway } from '../gateway/gateway.ts'
import type { GatewayRequest } from '../gateway/request.ts'
import type { HttpResponse } from '../gateway/response.ts'
import { toHttpResponse } from '../gateway/response.ts'
import { isThenable } from '../rpc/dispatch.ts'
import { bodyBudgetOf } from './bodyBudget.ts'
import type { BodyBudget } from './bodyBudget.ts'
import { readBody } from './bodyReader.ts'
import type { BodyLane } from './bodyReader.ts'

/** geth's `maxRequestContentLength`: 5 MiB. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024

/** An answer as the gateway's core made it: status, headers and body in one write (nothing, the socket destroyed, when flagged `destroy`). */
export function writeResponse(res: ServerResponse, response: HttpResponse): void {
  if (response.destroy === true) {
    res.destroy()
    return
  }
  if (res.destroyed) return
  // Headers and body in one go: Node sends them in one write (a single `writev` of the socket).
  res.writeHead(response.status, response.headers)
  const parts = response.parts
  if (parts === undefined) {
    res.end(response.body)
    return
  }
  // A spliced body's parts as they are (the large one is the same buffer every time), corked: one `writev` still.
  res.cork()
  for (let i = 0; i < parts.length - 1; i++) res.write(parts[i])
  res.end(parts[parts.length - 1])
  res.uncork()
}

/** The 500 of a failure, when nothing of another answer was written yet; else the connection is cut. */
export function answerFailure(res: ServerResponse): void {
  try {
    if (!res.headersSent && !res.destroyed) writeResponse(res, gatewayFailure())
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

/** What every request of one listener shares: the body reader's lane (./bodyReader.ts) answered by the gateway. */
interface Lane extends BodyLane {
  readonly gateway: Gateway
  readonly network: string | undefined
}

/**
 * A request as the core sees it. Its signal (an AbortController and a `close` listener) is made
 * only when asked for, which only a fault holding the request does.
 */
class NodeRequest implements GatewayRequest {
  readonly method: string
  readonly host: string | undefined
  readonly path: string
  readonly headers: IncomingMessage['headers']
  readonly body: Buffer
  readonly network: string | undefined
  readonly #res: ServerResponse
  #signal: AbortSignal | undefined

  constructor(req: IncomingMessage, res: ServerResponse, body: Buffer, network: string | undefined) {
    this.method = req.method ?? 'GET'
    this.host = req.headers.host
    this.path = req.url ?? '/'
    this.headers = req.headers
    this.body = body
    this.network = network
    this.#res = res
  }

  get signal(): AbortSignal {
    return (this.#signal ??= goneSignal(this.#res))
  }
}

function respond(lane: Lane, req: IncomingMessage, res: ServerResponse, reserved: number, body: Buffer): void {
  let answer: ReturnType<Gateway['respond']>
  try {
    answer = lane.gateway.respond(new NodeRequest(req, res, body, lane.network))
  } catch (err) {
    failed(lane, res, reserved, err)
    return
  }
  if (isThenable(answer)) {
    answer.then(
      (response) => answered(lane, res, reserved, response),
      // `respond` never rejects; should it, the request is answered as the gateway's failure.
      (err: unknown) => failed(lane, res, reserved, err),
    )
  } else {
    answered(lane, res, reserved, answer)
  }
}

function answered(lane: Lane, res: ServerResponse, reserved: number, response: HttpResponse): void {
  try {
    writeResponse(res, response)
  } catch (err) {
    // The core never throws; this is the transport's own failure (writing the answer).
    lane.gateway.logger.error('transport failure', err)
    answerFailure(res)
  }
  lane.bodies.give(reserved)
}

function failed(lane: Lane, res: ServerResponse, reserved: number, err: unknown): void {
  lane.gateway.logger.error('transport failure', err)
  answerFailure(res)
  lane.bodies.give(reserved)
}

/** A body over the limit: the 413, logged, and the rest of the body read and thrown away. */
function refuseTooLarge(lane: Lane, req: IncomingMessage, res: ServerResponse, reserved: number): void {
  try {
    lane.gateway.logTransportAnswer(413, { method: req.method ?? 'GET', host: req.headers.host, path: req.url ?? '/', headers: req.headers, network: lane.network })
    const response = toHttpResponse(new PayloadTooLargeError())
    writeResponse(res, { ...response, headers: { ...response.headers, vary: 'Origin', connection: 'close' } })
    req.resume()
  } catch (err) {
    lane.gateway.logger.error('transport failure', err)
    answerFailure(res)
  }
  lane.bodies.give(reserved)
}

export function createNodeHandler(gateway: Gateway, opts: NodeHandlerOptions = {}): NodeRequestListener {
  const lane: Lane = {
    gateway,
    limit: opts.maxBodyBytes ?? MAX_BODY_BYTES,
    network: opts.network,
    bodies: opts.bodies ?? bodyBudgetOf(gateway),
    body(req, res, reserved, body) {
      respond(lane, req, res, reserved, body)
    },
    tooLarge(req, res, reserved) {
      refuseTooLarge(lane, req, res, reserved)
    },
  }
  return function gatewayListener(req, res) {
    readBody(lane, req, res)
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
