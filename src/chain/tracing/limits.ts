/**
 * The bounds of one trace request, in time and bytes. geth stops a transaction's trace after its
 * `timeout` (default 5 s) with `execution timeout`; the double does the same (at most 30 s a
 * transaction, and 60 s for a whole request, however many transactions a block has), and refuses a result
 * past a size it can answer (a struct log of a gas-burning loop runs to gigabytes): tracers
 * charge the bytes they keep, and past the bound the trace stops with an error naming it. The
 * struct logger's own `limit` option cuts its log silently instead, as geth's does.
 */

/** geth's default trace timeout. */
export const DEFAULT_TRACE_TIMEOUT_MS = 5_000
/** The longest `timeout` the double honors (a longer one is lowered to it). */
export const MAX_TRACE_TIMEOUT_MS = 30_000
/** The longest a whole request (a block's transactions, each with its own `timeout`) may trace. */
export const MAX_TRACE_REQUEST_MS = 60_000
/** The most bytes of trace output one request may produce. */
export const MAX_TRACE_BYTES = 32 * 1024 * 1024

import { DEFAULT_SLICE_MS, ExecutionBudget } from '../vm/executionGuard.ts'

/** A trace stopped by its bounds; the message is what the caller is answered. */
export class TraceAbort extends Error {
  override readonly name = 'TraceAbort'
}

export class TraceBudget {
  readonly #timeoutMs: number
  readonly #requestDeadline: number
  #deadline: number
  readonly #maxBytes: number
  #bytes = 0
  #aborted: TraceAbort | undefined

  /** How long an execution runs before it lets other requests in (see ../vm/executionGuard.ts). */
  readonly #sliceMs: number

  constructor(opts: { timeoutMs?: number; maxBytes?: number; sliceMs?: number; now?: () => number } = {}) {
    this.now = opts.now ?? (() => performance.now())
    this.#sliceMs = opts.sliceMs ?? DEFAULT_SLICE_MS
    this.#timeoutMs = Math.min(opts.timeoutMs ?? DEFAULT_TRACE_TIMEOUT_MS, MAX_TRACE_TIMEOUT_MS)
    this.#requestDeadline = this.now() + MAX_TRACE_REQUEST_MS
    this.#deadline = this.now() + this.#timeoutMs
    this.#maxBytes = opts.maxBytes ?? MAX_TRACE_BYTES
  }

  /** A transaction's trace starts: it gets the whole `timeout` (geth's is per transaction), within the request's bound. */
  startTransaction(): void {
    this.#deadline = Math.min(this.now() + this.#timeoutMs, this.#requestDeadline)
  }

  readonly now: () => number

  /**
   * The execution budget of the transaction under way: the time it has left (an execution past it
   * throws `ExecutionTimeout`, which a trace answers as its own timeout), in slices between which
   * other requests are answered.
   */
  executionBudget(): ExecutionBudget {
    this.checkTime()
    return new ExecutionBudget(Math.max(1, Math.ceil(this.#deadline - this.now())), this.#sliceMs)
  }

  /** Why the trace stopped, if it did. */
  get aborted(): TraceAbort | undefined {
    return this.#aborted
  }

  /** Throws (and remembers) the abort once the deadline has passed. */
  checkTime(): void {
    if (this.#aborted) throw this.#aborted
    if (this.now() > this.#deadline) throw (this.#aborted = new TraceAbort('execution timeout'))
  }

  /** Counts `bytes` of output; throws past the bound. */
  charge(bytes: number): void {
    if (this.#aborted) throw this.#aborted
    this.#bytes += bytes
    if (this.#bytes > this.#maxBytes) {
      throw (this.#aborted = new TraceAbort(
        `trace result exceeds ${this.#maxBytes} bytes (the double's bound); trace less (the struct logger's "limit", "disableStack", "enableMemory": false, or "callTracer")`,
      ))
    }
  }
}
