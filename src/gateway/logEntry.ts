/**
 * What the request log keeps of a request (./requestLog.ts): an entry and its calls. Apart so
 * the log's storage (./logRows.ts) and the log can both name them.
 */
import type { FaultKind } from './faults.ts'

/** One JSON-RPC call of a request. */
export interface LoggedCall {
  /** The method; null for a batch member that is not a valid request object. */
  readonly method: string | null
  /**
   * What it was charged: its price when the request was charged, 0 when it was not (refused,
   * faulted). A batch's envelope is in the entry's `credits`, not in a call's.
   */
  readonly credits: number
  /** The lines its contracts logged with `console.log` (a call's, or a transaction's mined before the answer); absent when none. */
  readonly console?: readonly string[]
  /**
   * `'ok'`: answered with a result (or a notification that ran); a number: the JSON-RPC error
   * code it was answered with; null: never executed (the request was refused or faulted).
   */
  readonly outcome: 'ok' | number | null
  /** An eth_call's target (`to`, lowercase), when it named one; absent for other methods. */
  readonly to?: string
}

/** What a WebSocket entry is: the connection's upgrade, a message from its client, or a charged notification. */
export type SocketStage = 'upgrade' | 'message' | 'event'

export interface SocketLogInfo {
  /** The connection, numbered from 1 by the gateway: its upgrade, messages and notifications share it. */
  readonly connection: number
  readonly stage: SocketStage
  /** A notification's subscription: its id and type (`newHeads`, `logs`, `newPendingTransactions`). */
  readonly subscription: { readonly id: string; readonly type: string } | null
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
  /**
   * HTTP status answered; null when there was no answer (a dropped or abandoned request). A
   * WebSocket message or notification has the status the same answer has over HTTP (200, 400,
   * 402...); an accepted upgrade 101.
   */
  readonly status: number | null
  /** The scripted fault applied, if any. */
  readonly fault: FaultKind | null
  /** `http`, or `ws` for a WebSocket's upgrade, messages and notifications. */
  readonly transport: 'http' | 'ws'
  /** What a WebSocket entry is (null for HTTP). */
  readonly socket: SocketLogInfo | null
}

export type RequestLogDraft = Omit<RequestLogEntry, 'seq'>

/** The largest time a Date holds, either side of 1970 (ECMA-262's time values). */
const MAX_TIME_MS = 8.64e15

/**
 * A clock's milliseconds as `Date#toISOString` writes them (the log's `time`), the date and time
 * up to the second formatted once per second and the milliseconds spliced in: V8 formats a date
 * through printf (about 7,000 instructions), and a gateway under load logs many requests per
 * second but few per millisecond. The last answer is kept for the next request of the same
 * millisecond. Owned by the pipeline, one per gateway.
 */
export class IsoTimes {
  #second = NaN
  /** `YYYY-MM-DDTHH:MM:SS.` of `#second`. */
  #prefix = ''
  #ms = NaN
  #text = ''

  of(ms: number): string {
    if (ms === this.#ms) return this.#text
    // A fraction of a millisecond (toISOString drops it) is left to Date, as is a time out of its range (it throws).
    if (!Number.isInteger(ms) || Math.abs(ms) > MAX_TIME_MS) return new Date(ms).toISOString()
    const second = Math.floor(ms / 1000) * 1000
    if (second !== this.#second) {
      this.#prefix = new Date(second).toISOString().slice(0, -4)
      this.#second = second
    }
    const milli = ms - second
    this.#ms = ms
    // `sssZ` is short enough to be made flat; the whole is one rope node over the shared prefix.
    const tail = (milli < 10 ? '00' : milli < 100 ? '0' : '') + milli + 'Z'
    this.#text = this.#prefix + tail
    return this.#text
  }
}
