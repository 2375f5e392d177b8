/**
 * The request log: one entry per HTTP request the gateway answered (CORS preflights excepted),
 * and per WebSocket upgrade, message and charged notification, with its calls, for tests to read
 * what their client really sent and what it cost.
 *
 * An entry is written when the request is over: answered, dropped, or abandoned by its client
 * (a held `timeout` fault), so entries are in order of completion; `seq` numbers them from 1 and
 * keeps counting across `clear()`.
 *
 * Bounded in bytes, not only in entries: a client chooses what is logged (a method name of 5 MiB,
 * a key of 16 KiB, batches of 1,000 calls), so a method or key longer than `LOGGED_TEXT_MAX`
 * characters is kept cut, with a marker and its length (`loggedText`), and the log keeps the last
 * `REQUEST_LOG_LIMIT` entries only while their estimated size (`entryBytes`) stays within
 * `REQUEST_LOG_MAX_BYTES`; the oldest go first.
 *
 * `record` is the one place every entry passes (HTTP requests, transport answers, WebSocket
 * upgrades, messages and notifications). A draft made for the log (`LogDraft`, seq 0) becomes
 * the entry itself, not a copy; the entries are kept in a ring (./logRows.ts, most of them as
 * columns of their fields rather than objects), so the oldest goes without moving the others.
 */
import type { LoggedCall, RequestLogDraft, RequestLogEntry } from './logEntry.ts'
import { LogRows } from './logRows.ts'

export type { LoggedCall, RequestLogDraft, RequestLogEntry, SocketLogInfo, SocketStage } from './logEntry.ts'

export const REQUEST_LOG_LIMIT = 10_000
/** The most the kept entries may weigh, by `entryBytes`: 32 MiB. */
export const REQUEST_LOG_MAX_BYTES = 32 * 1024 * 1024
/** Methods and keys longer than this many characters are kept cut (real method names have under 50). */
export const LOGGED_TEXT_MAX = 128

/**
 * Upper estimates of what an entry holds in V8's heap, in bytes (measured: an entry of a single
 * call weighs about 250 bytes, its transport and socket fields included, each further call of a
 * batch about 90 plus its method's characters; see test/gateway/requestLog.test.ts). Strings are counted at one byte a character plus a header;
 * a two-byte string is cut to the same length, so at most twice that.
 */
const ENTRY_BYTES = 440
const CALL_BYTES = 120
/** An eth_call's `to` (42 characters) and its property. */
const CALL_TARGET_BYTES = 80
/** A WebSocket entry's `socket` object (and its subscription id, 34 characters at most). */
const SOCKET_BYTES = 250

/**
 * `text` as the log keeps it: itself when short; else its first `LOGGED_TEXT_MAX` characters, a
 * marker and the full length (`eth_aaa…(5242880 characters)`), in a new string that does not hold
 * on to the original (V8 slices keep their parent alive).
 */
export function loggedText(text: string): string {
  if (text.length <= LOGGED_TEXT_MAX) return text
  const head = Buffer.from(text.slice(0, LOGGED_TEXT_MAX), 'utf8').toString('utf8')
  return `${head}…(${text.length} characters)`
}

/** The estimated weight of an entry (see ENTRY_BYTES); `keyParent` is the length of the string its key was cut from. */
export function entryBytes(entry: RequestLogDraft, keyParent = 0): number {
  let bytes = ENTRY_BYTES + 2 * Math.max(entry.key?.length ?? 0, keyParent) + (entry.socket === null ? 0 : SOCKET_BYTES)
  for (const call of entry.calls) bytes += CALL_BYTES + 2 * (call.method?.length ?? 0) + (call.to === undefined ? 0 : CALL_TARGET_BYTES)
  return bytes
}

/** The address an eth_call's first param names, lowercase; undefined when it names none. */
function callTarget(params: readonly unknown[]): string | undefined {
  const to = (params[0] as { to?: unknown } | null | undefined)?.to
  return typeof to === 'string' && /^0x[0-9a-fA-F]{40}$/.test(to) ? to.toLowerCase() : undefined
}

/** A call as the log starts it (`outcome` null until it runs); an eth_call keeps its target. */
export function loggedCall(method: string, params: readonly unknown[], credits: number): CallDraft {
  if (method !== 'eth_call') return { method: loggedText(method), credits, outcome: null }
  const to = callTarget(params)
  return to === undefined ? { method, credits, outcome: null } : { method, credits, outcome: null, to }
}

/** A call while its request runs: its outcome is set once it was answered. */
export type CallDraft = { -readonly [K in keyof LoggedCall]: LoggedCall[K] }

/** An entry while its request runs (filled in as the request goes; `seq` is 0 until it is recorded). */
export type LogDraft = { -readonly [K in keyof RequestLogEntry]: RequestLogEntry[K] } & { calls: LoggedCall[] }

/**
 * A draft whose request charged nothing, with its calls at 0: they are logged at their price until
 * the charge (a refused or faulted request's calls were never charged). A `LogDraft`'s calls are
 * its own and set in place; another draft's are copied.
 */
function charged<D extends RequestLogDraft | LogDraft>(draft: D): D {
  if (draft.credits !== 0 || draft.calls.every((c) => c.credits === 0)) return draft
  if ('seq' in draft && draft.seq === 0) {
    for (const call of draft.calls as CallDraft[]) call.credits = 0
    return draft
  }
  return { ...draft, calls: draft.calls.map((c) => ({ ...c, credits: 0 })) }
}

/** The entry of a draft: a `LogDraft` not yet recorded is itself the entry; anything else is copied. */
function entryOf(draft: RequestLogDraft | LogDraft, seq: number): RequestLogEntry {
  if (!('seq' in draft)) return { seq, ...draft }
  if (draft.seq !== 0) return { ...draft, seq }
  ;(draft as LogDraft).seq = seq
  return draft
}

export class RequestLog {
  /** The kept entries (./logRows.ts), oldest at `#head`, `#count` of them, wrapping around. */
  #rows = new LogRows(16)
  #head = 0
  #count = 0
  #bytes = 0
  readonly #limit: number
  readonly #maxBytes: number
  #last = 0
  /** Told each entry as it is written (the usage counters' one feed, ./usage/counters.ts). */
  onRecord: ((entry: RequestLogEntry) => void) | undefined

  constructor(limit = REQUEST_LOG_LIMIT, maxBytes = REQUEST_LOG_MAX_BYTES) {
    this.#limit = limit
    this.#maxBytes = maxBytes
  }

  /** The seq of the last entry written (0 before any). */
  get position(): number {
    return this.#last
  }

  /** What the kept entries weigh, by `entryBytes`. */
  get bytes(): number {
    return this.#bytes
  }

  /**
   * Keeps an entry. Its method names and key must already be `loggedText`; `keyParent` is the
   * length of the string the key was cut from, when that may be held through it.
   */
  record(draft: RequestLogDraft | LogDraft, keyParent = 0): RequestLogEntry {
    const entry = entryOf(charged(draft), ++this.#last)
    const size = entryBytes(draft, keyParent)
    if (this.#count > 0 && this.#count >= this.#limit) this.#dropOldest()
    if (this.#count === this.#rows.capacity) this.#grow()
    this.#rows.set((this.#head + this.#count) % this.#rows.capacity, entry, size)
    this.#count++
    this.#bytes += size
    while (this.#count > this.#limit || (this.#bytes > this.#maxBytes && this.#count > 1)) this.#dropOldest()
    this.onRecord?.(entry)
    return entry
  }

  #dropOldest(): void {
    this.#bytes -= this.#rows.size(this.#head)
    this.#rows.forget(this.#head)
    this.#head = (this.#head + 1) % this.#rows.capacity
    this.#count--
  }

  /** Twice the room (up to the limit), the entries moved to its start in order. */
  #grow(): void {
    this.#rows.grow(this.#head, this.#count, Math.max(this.#count + 1, Math.min(this.#rows.capacity * 2, this.#limit)))
    this.#head = 0
  }

  /** Entries kept, oldest first; with `since`, only those with `seq > since`. */
  entries(since = 0): RequestLogEntry[] {
    const kept: RequestLogEntry[] = []
    const capacity = this.#rows.capacity
    for (let i = 0; i < this.#count; i++) {
      const at = (this.#head + i) % capacity
      if (this.#rows.seq(at) > since) kept.push(this.#rows.entry(at))
    }
    return kept
  }

  clear(): void {
    this.#rows.clear()
    this.#head = 0
    this.#count = 0
    this.#bytes = 0
  }

  /** Forgets the entries after `position` (a snapshot's); numbering goes on from there. */
  truncate(position: number): void {
    while (this.#count > 0) {
      const at = (this.#head + this.#count - 1) % this.#rows.capacity
      if (this.#rows.seq(at) <= position) break
      this.#bytes -= this.#rows.size(at)
      this.#rows.forget(at)
      this.#count--
    }
    this.#last = Math.min(this.#last, position)
  }
}
