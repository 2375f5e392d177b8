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
 * Nothing is allocated per request beyond what it needs: the body's listeners are shared, a client
 * gone before the end of its body is noticed without an Error, and an answer the core has at once
 * (`Gateway.respond`) is written before the body's `end` event returns, without a promise.
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
import type { GatewayRequest } from '../gateway/request.ts'
import type { HttpResponse } from '../gateway/response.ts'
import { toHttpResponse } from '../gateway/response.ts'
import { isThenable } from '../rpc/dispatch.ts'
import { bodyBudgetOf } from './bodyBudget.ts'
import type { BodyBudget } from './bodyBudget.ts'

/** geth's `maxRequestContentLength`: 5 MiB. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024

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

/** What every request of one listener shares. */
interface Lane {
  readonly gateway: Gateway
  readonly limit: number
  readonly network: string | undefined
  readonly bodies: BodyBudget
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

/** A request whose body is being read: its state, kept on the request under `READING`. */
interface Reading {
  readonly lane: Lane
  readonly res: ServerResponse
  /** Bytes taken from the body budget, given back once answered. */
  readonly reserved: number
  chunks: Buffer[] | undefined
  first: Buffer | undefined
  size: number
  /** The body was read, refused or lost: later events change nothing. */
  settled: boolean
}

const READING = Symbol('reading')
type ReadRequest = IncomingMessage & { [READING]?: Reading }

// The body's listeners are shared by every request (`this` is the request): none is made per request.
function onData(this: ReadRequest, chunk: Buffer): void {
  const r = this[READING]!
  if (r.settled) return
  r.size += chunk.length
  if (r.size > r.lane.limit) {
    r.settled = true
    this.removeListener('data', onData)
    refuseTooLarge(r.lane, this, r.res, r.reserved)
    return
  }
  if (r.first === undefined) r.first = chunk
  else (r.chunks ??= [r.first]).push(chunk)
}

function onEnd(this: ReadRequest): void {
  const r = this[READING]!
  if (r.settled) return
  r.settled = true
  const body = r.chunks !== undefined ? Buffer.concat(r.chunks) : (r.first ?? EMPTY)
  respond(r.lane, this, r.res, r.reserved, body)
}

/** An error, or the client gone before the end of the body (`close` after `end` changes nothing): no answer. */
function onLost(this: ReadRequest): void {
  const r = this[READING]!
  if (r.settled) return
  r.settled = true
  r.res.destroy()
  r.lane.bodies.give(r.reserved)
}

const EMPTY = Buffer.alloc(0)

function readRequest(lane: Lane, req: ReadRequest, res: ServerResponse, reserved: number): void {
  // A request that waited for room may have lost its client meanwhile: it would never end.
  if (req.destroyed) {
    res.destroy()
    lane.bodies.give(reserved)
    return
  }
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > lane.limit) {
    refuseTooLarge(lane, req, res, reserved)
    return
  }
  req[READING] = { lane, res, reserved, chunks: undefined, first: undefined, size: 0, settled: false }
  req.on('data', onData)
  req.on('end', onEnd)
  req.on('error', onLost)
  req.on('close', onLost)
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
    write(res, response)
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
    write(res, { ...response, headers: { ...response.headers, vary: 'Origin', connection: 'close' } })
    req.resume()
  } catch (err) {
    lane.gateway.logger.error('transport failure', err)
    answerFailure(res)
  }
  lane.bodies.give(reserved)
}

export function createNodeHandler(gateway: Gateway, opts: NodeHandlerOptions = {}): NodeRequestListener {
  const lane: Lane = { gateway, limit: opts.maxBodyBytes ?? MAX_BODY_BYTES, network: opts.network, bodies: opts.bodies ?? bodyBudgetOf(gateway) }
  return function gatewayListener(req, res) {
    const reserved = bodyReservation(req, lane.limit)
    const wait = lane.bodies.take(reserved)
    if (wait === undefined) readRequest(lane, req, res, reserved)
    else void wait.then(() => readRequest(lane, req, res, reserved))
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
