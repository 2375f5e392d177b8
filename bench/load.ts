/**
 * The load generator: `concurrency` keep-alive connections to one server, each with one request in
 * flight (no pipelining), for a fixed time. It writes HTTP/1.1 by hand on `net` sockets and frames
 * answers by Content-Length (or chunked encoding), which keeps the client's own cost per request
 * small next to `http.request`. It runs in the bench's process; both servers run in their own.
 *
 * Every answer is checked cheaply: HTTP 200, and no `"error"` in the body (none of the measured
 * methods has a field of that name in its result). The first answer of a run is kept whole so the
 * caller can check its content.
 */
import { connect } from 'node:net'
import type { Socket } from 'node:net'
import type { Endpoint } from './processes.ts'
import { LOOPBACK } from './processes.ts'

export interface LoadOptions {
  durationMs: number
  concurrency: number
  /** Gives up on a request (and counts a failure) after this long. */
  requestTimeoutMs?: number
}

export interface LoadResult {
  endpoint: string
  /** Requests answered (any status). */
  answered: number
  /** HTTP 200 with a JSON-RPC result. */
  ok: number
  /** HTTP 200 with a JSON-RPC error. */
  rpcErrors: number
  /** Answers by HTTP status. */
  statuses: Record<number, number>
  /** Socket errors, timeouts. */
  failures: number
  /** Seconds from the start of the window to the last answer. */
  seconds: number
  reqPerSec: number
  p50Ms: number
  p99Ms: number
  meanMs: number
  firstBody: string | undefined
  firstErrorBody: string | undefined
  failureMessage: string | undefined
  /** Every request's latency in ms, sorted (to pool rounds). */
  latencies: Float64Array
}

const ERROR_KEY = Buffer.from('"error"')
const CRLFCRLF = Buffer.from('\r\n\r\n')

/** Percentile by nearest rank over sorted values. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!
}

class Latencies {
  #values = new Float64Array(1 << 16)
  #n = 0
  push(v: number): void {
    if (this.#n === this.#values.length) {
      const grown = new Float64Array(this.#values.length * 2)
      grown.set(this.#values)
      this.#values = grown
    }
    this.#values[this.#n++] = v
  }
  sorted(): Float64Array {
    return this.#values.slice(0, this.#n).sort()
  }
}

interface ParsedHead {
  status: number
  headerBytes: number
  contentLength: number | undefined
  chunked: boolean
}

function parseHead(buf: Buffer): ParsedHead | undefined {
  const end = buf.indexOf(CRLFCRLF)
  if (end < 0) return undefined
  const head = buf.toString('latin1', 0, end)
  const status = Number(head.slice(9, 12))
  const cl = /\r\ncontent-length:\s*(\d+)/i.exec(head)
  const chunked = /\r\ntransfer-encoding:[^\r]*chunked/i.test(head)
  return { status, headerBytes: end + 4, contentLength: cl ? Number(cl[1]) : undefined, chunked }
}

/** Decodes a complete chunked body, or undefined when more bytes are needed. */
function dechunk(buf: Buffer, start: number): { body: Buffer; end: number } | undefined {
  const parts: Buffer[] = []
  let at = start
  for (;;) {
    const lineEnd = buf.indexOf('\r\n', at)
    if (lineEnd < 0) return undefined
    const size = parseInt(buf.toString('latin1', at, lineEnd), 16)
    if (!Number.isFinite(size)) throw new Error('bad chunk size')
    const dataStart = lineEnd + 2
    if (size === 0) {
      const trailerEnd = buf.indexOf(CRLFCRLF, lineEnd)
      if (trailerEnd < 0) return undefined
      return { body: Buffer.concat(parts), end: trailerEnd + 4 }
    }
    if (buf.length < dataStart + size + 2) return undefined
    parts.push(buf.subarray(dataStart, dataStart + size))
    at = dataStart + size + 2
  }
}

function requestBytes(endpoint: Endpoint, body: string): Buffer {
  const payload = Buffer.from(body)
  const head =
    `POST ${endpoint.path} HTTP/1.1\r\nHost: ${endpoint.host}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${payload.length}\r\nConnection: keep-alive\r\n\r\n`
  return Buffer.concat([Buffer.from(head, 'latin1'), payload])
}

/**
 * Drives `endpoint` with `bodyAt(i)` (i counts requests of this run across all connections) for
 * `durationMs`, `concurrency` requests in flight. Requests started inside the window are waited for.
 */
export async function runLoad(endpoint: Endpoint, bodyAt: (i: number) => string, opts: LoadOptions): Promise<LoadResult> {
  const requestTimeoutMs = opts.requestTimeoutMs ?? 30_000
  const latencies = new Latencies()
  const statuses: Record<number, number> = {}
  let next = 0
  let ok = 0
  let rpcErrors = 0
  let failures = 0
  let answered = 0
  let firstBody: string | undefined
  let firstErrorBody: string | undefined
  let failureMessage: string | undefined
  let lastAnswerAt = 0

  const openSocket = () =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect({ host: LOOPBACK, port: endpoint.port, noDelay: true })
      socket.once('connect', () => {
        socket.off('error', reject)
        resolve(socket)
      })
      socket.once('error', reject)
    })

  // Connections are opened before the clock starts.
  const sockets = await Promise.all(Array.from({ length: opts.concurrency }, openSocket))
  const started = performance.now()
  const deadline = started + opts.durationMs

  const worker = async (initial: Socket) => {
    let socket: Socket | undefined = initial
    while (performance.now() < deadline) {
      if (socket === undefined) {
        try {
          socket = await openSocket()
        } catch (err) {
          failures++
          failureMessage ??= (err as Error).message
          break
        }
      }
      const i = next++
      const bytes = requestBytes(endpoint, bodyAt(i))
      const sent = performance.now()
      try {
        const { status, body } = await exchange(socket, bytes, requestTimeoutMs)
        const now = performance.now()
        latencies.push(now - sent)
        lastAnswerAt = now
        answered++
        statuses[status] = (statuses[status] ?? 0) + 1
        firstBody ??= body.toString('utf8')
        if (status === 200 && body.indexOf(ERROR_KEY) < 0) ok++
        else {
          if (status === 200) rpcErrors++
          firstErrorBody ??= `HTTP ${status}: ${body.toString('utf8').slice(0, 500)}`
        }
      } catch (err) {
        failures++
        failureMessage ??= (err as Error).message
        socket.destroy()
        socket = undefined
      }
    }
    socket?.destroy()
  }

  await Promise.all(sockets.map(worker))
  const seconds = ((lastAnswerAt || performance.now()) - started) / 1000
  const sorted = latencies.sorted()
  const mean = sorted.length === 0 ? Number.NaN : sorted.reduce((a, b) => a + b, 0) / sorted.length
  return {
    endpoint: endpoint.name,
    answered,
    ok,
    rpcErrors,
    statuses,
    failures,
    seconds,
    reqPerSec: answered / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    meanMs: mean,
    firstBody,
    firstErrorBody,
    failureMessage,
    latencies: sorted,
  }
}

/** Writes one request and reads one whole response from a keep-alive socket. */
function exchange(socket: Socket, bytes: Buffer, timeoutMs: number): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let received = 0
    let head: ParsedHead | undefined
    const done = (err: Error | undefined, value?: { status: number; body: Buffer }) => {
      clearTimeout(timer)
      socket.off('data', onData)
      socket.off('error', onError)
      socket.off('close', onClose)
      if (err) reject(err)
      else resolve(value!)
    }
    const onData = (chunk: Buffer) => {
      chunks.push(chunk)
      received += chunk.length
      try {
        if (head === undefined) {
          const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
          chunks.length = 0
          chunks.push(buf)
          head = parseHead(buf)
          if (head === undefined) return
        }
        if (head.contentLength !== undefined) {
          if (received < head.headerBytes + head.contentLength) return
          const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
          if (received > head.headerBytes + head.contentLength) throw new Error('more bytes than Content-Length (pipelined?)')
          done(undefined, { status: head.status, body: buf.subarray(head.headerBytes) })
        } else if (head.chunked) {
          const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
          chunks.length = 0
          chunks.push(buf)
          const decoded = dechunk(buf, head.headerBytes)
          if (decoded === undefined) return
          done(undefined, { status: head.status, body: decoded.body })
        } else {
          throw new Error('answer without Content-Length or chunked encoding')
        }
      } catch (err) {
        done(err as Error)
      }
    }
    const onError = (err: Error) => done(err)
    const onClose = () => done(new Error('connection closed by the server'))
    const timer = setTimeout(() => done(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
    socket.on('data', onData)
    socket.once('error', onError)
    socket.once('close', onClose)
    socket.write(bytes)
  })
}
