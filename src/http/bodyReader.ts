/**
 * A request's raw body read within a byte limit and counted in the server's body budget
 * (./bodyBudget.ts), for the lanes that read bodies themselves: the gateway's (./nodeHandler.ts)
 * and the test endpoint's (./devRpcLane.ts). The bytes a body may bring are taken from the budget
 * before it is read (past the bound it waits unread until answers give room back) and given back
 * by the lane once it has answered.
 *
 * Nothing is allocated per request beyond what it needs: the body's listeners are shared, and a
 * client gone before the end of its body is noticed without an Error. A lane's `body` is called
 * from the body's `end` event, so an answer it has at once is written before that event returns.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { BodyBudget } from './bodyBudget.ts'

/** What every request of one lane shares: its limit, its budget and what it does with a body. */
export interface BodyLane {
  /** The most bytes a body may bring; past it the request is refused (`tooLarge`). */
  readonly limit: number
  readonly bodies: BodyBudget
  /** The body, read whole. The lane answers and then gives `reserved` back to `bodies`. */
  body(req: IncomingMessage, res: ServerResponse, reserved: number, body: Buffer): void
  /** A body over the limit (declared, or found while reading). The lane answers, lets the rest of the body be read and thrown away, and gives `reserved` back. */
  tooLarge(req: IncomingMessage, res: ServerResponse, reserved: number): void
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

/** A request whose body is being read: its state, kept on the request under `READING`. */
interface Reading {
  readonly lane: BodyLane
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
    r.lane.tooLarge(this, r.res, r.reserved)
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
  r.lane.body(this, r.res, r.reserved, body)
}

/** The request destroyed (an error, or the client gone) before the end of its body (`close` after `end` changes nothing): no answer. */
function onLost(this: ReadRequest): void {
  const r = this[READING]!
  if (r.settled) return
  r.settled = true
  r.res.destroy()
  r.lane.bodies.give(r.reserved)
}

const EMPTY = Buffer.alloc(0)

function readRequest(lane: BodyLane, req: ReadRequest, res: ServerResponse, reserved: number): void {
  // A request that waited for room may have lost its client meanwhile: it would never end.
  if (req.destroyed) {
    res.destroy()
    lane.bodies.give(reserved)
    return
  }
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > lane.limit) {
    lane.tooLarge(req, res, reserved)
    return
  }
  req[READING] = { lane, res, reserved, chunks: undefined, first: undefined, size: 0, settled: false }
  req.on('data', onData)
  req.on('end', onEnd)
  // No `error` listener: an error destroys the request, and a destroyed request emits `close`
  // (Node's IncomingMessage emits `error` only when it has listeners), so `close` sees both.
  req.on('close', onLost)
}

/** Reads a request's body for `lane`: at once while the budget has room, else once answers give some back. */
export function readBody(lane: BodyLane, req: IncomingMessage, res: ServerResponse): void {
  const reserved = bodyReservation(req, lane.limit)
  const wait = lane.bodies.take(reserved)
  if (wait === undefined) readRequest(lane, req, res, reserved)
  else void wait.then(() => readRequest(lane, req, res, reserved))
}
