/**
 * The request log: one entry per HTTP request the gateway answered (CORS preflights excepted),
 * with its calls, for tests to read what their client really sent and what it cost.
 *
 * An entry is written when the request is over: answered, dropped, or abandoned by its client
 * (a held `timeout` fault), so entries are in order of completion; `seq` numbers them from 1 and
 * keeps counting across `clear()`. The log keeps the last `REQUEST_LOG_LIMIT` entries.
 */
import type { FaultKind } from './faults.ts'

export const REQUEST_LOG_LIMIT = 10_000

/** One JSON-RPC call of a request. */
export interface LoggedCall {
  /** The method; null for a batch member that is not a valid request object. */
  readonly method: string | null
  /** Its price (what it was charged when the request was charged; `credits` of the entry is what was). */
  readonly credits: number
  /**
   * `'ok'`: answered with a result (or a notification that ran); a number: the JSON-RPC error
   * code it was answered with; null: never executed (the request was refused or faulted).
   */
  readonly outcome: 'ok' | number | null
}

export interface RequestLogEntry {
  /** Position in the log, from 1. */
  readonly seq: number
  /** When the request arrived, by the gateway's clock (ISO 8601, UTC). */
  readonly time: string
  /** The key segment of `/v3/<key>` as sent (even an unknown one); null when the path had none. */
  readonly key: string | null
  /** The network the Host named; null when it named none. */
  readonly network: string | null
  readonly batch: boolean
  /** The calls of the body; empty when it was never read (refused first) or was not valid JSON-RPC. */
  readonly calls: readonly LoggedCall[]
  /** Credits charged for the whole request (0 when refused or faulted). */
  readonly credits: number
  /** HTTP status answered; null when there was no answer (a dropped or abandoned request). */
  readonly status: number | null
  /** The scripted fault applied, if any. */
  readonly fault: FaultKind | null
}

export type RequestLogDraft = Omit<RequestLogEntry, 'seq'>

export class RequestLog {
  readonly #entries: RequestLogEntry[] = []
  readonly #limit: number
  #last = 0

  constructor(limit = REQUEST_LOG_LIMIT) {
    this.#limit = limit
  }

  /** The seq of the last entry written (0 before any). */
  get position(): number {
    return this.#last
  }

  record(draft: RequestLogDraft): RequestLogEntry {
    const entry = { seq: ++this.#last, ...draft }
    this.#entries.push(entry)
    while (this.#entries.length > this.#limit) this.#entries.shift()
    return entry
  }

  /** Entries kept, oldest first; with `since`, only those with `seq > since`. */
  entries(since = 0): RequestLogEntry[] {
    return this.#entries.filter((e) => e.seq > since)
  }

  clear(): void {
    this.#entries.length = 0
  }

  /** Forgets the entries after `position` (a snapshot's); numbering goes on from there. */
  truncate(position: number): void {
    const keep = this.#entries.filter((e) => e.seq <= position)
    this.#entries.length = 0
    this.#entries.push(...keep)
    this.#last = Math.min(this.#last, position)
  }
}
