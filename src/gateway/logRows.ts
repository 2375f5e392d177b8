/**
 * The request log's kept entries (./requestLog.ts): a ring of columns, oldest at `head`.
 *
 * Most entries are an HTTP request of one call (or none) without console lines (an eth_call's with
 * its target). Such an entry is kept as its fields in the columns, not as its objects, and its
 * strings are those of the entry before when they are equal (a client sends the same key, method
 * and contract again and again), so a request leaves little of its own in the heap (an eth_call
 * kept as its objects, its target a new lowercased string each, weighed about 500 bytes). Kept
 * as objects (the entry, its calls, its call), each of the last 10,000 requests outlived V8's
 * young generation: copied by two scavenges and promoted, and the old generation grew until
 * marked (about a fifth of an in-process loop of `eth_blockNumber` answers). Any other entry is
 * kept as its object.
 * `entry(at)` gives an entry as it was recorded: a compact one made anew, its fields in the order
 * `RequestLogEntry` and `loggedCall` give them.
 */
import type { FaultKind } from './faults.ts'
import type { LoggedCall, RequestLogEntry } from './logEntry.ts'

/** How many distinct method names a log shares between its compact entries (more are kept as they come). */
const SHARED_METHODS = 64

/** The kept strings equal to `text`, up to SHARED_METHODS of them: repeated names point to one string. */
function shared(names: Map<string, string>, text: string): string {
  const known = names.get(text)
  if (known !== undefined) return known
  if (names.size < SHARED_METHODS) names.set(text, text)
  return text
}

/** The columns, each a packed array of one kind. */
interface Columns {
  /** Entries kept as objects; undefined where the row is compact. */
  objects: (RequestLogEntry | undefined)[]
  seq: number[]
  time: string[]
  key: (string | null)[]
  network: (string | null)[]
  /** The one call's method; undefined for an entry without calls. */
  method: (string | undefined)[]
  callCredits: number[]
  outcome: LoggedCall['outcome'][]
  /** The one call's target (an eth_call's `to`); undefined where it names none. */
  to: (string | undefined)[]
  credits: number[]
  status: (number | null)[]
  fault: (FaultKind | null)[]
  /** Each row's weight (`entryBytes`), kept for its removal. */
  sizes: number[]
}

/** Each column's value in a row that holds nothing: what a new row is filled with, and what a forgotten row's objects and strings become. */
const EMPTY: { readonly [C in keyof Columns]: Columns[C][number] } = {
  objects: undefined,
  seq: 0,
  time: '',
  key: null,
  network: null,
  method: undefined,
  callCredits: 0,
  outcome: null,
  to: undefined,
  credits: 0,
  status: null,
  fault: null,
  sizes: 0,
}
const COLUMNS = Object.keys(EMPTY) as (keyof Columns)[]

export class LogRows {
  #c: Columns = { objects: [], seq: [], time: [], key: [], network: [], method: [], callCredits: [], outcome: [], to: [], credits: [], status: [], fault: [], sizes: [] }
  #capacity = 0
  #lastKey: string | null = null
  #lastTime = ''
  #lastTo: string | undefined
  #methods = new Map<string, string>()

  constructor(capacity: number) {
    this.#resize(capacity)
  }

  get capacity(): number {
    return this.#capacity
  }

  /** Keeps `entry` (weighing `size`) at row `at`. */
  set(at: number, entry: RequestLogEntry, size: number): void {
    const c = this.#c
    c.seq[at] = entry.seq
    c.sizes[at] = size
    const calls = entry.calls
    const call = calls[0]
    if (entry.socket !== null || entry.batch || calls.length > 1 || (call !== undefined && (call.console !== undefined || call.method === null))) {
      c.objects[at] = entry
      return
    }
    c.objects[at] = undefined
    const time = entry.time
    c.time[at] = time === this.#lastTime ? this.#lastTime : (this.#lastTime = time)
    const key = entry.key
    c.key[at] = key !== null && key === this.#lastKey ? this.#lastKey : (this.#lastKey = key)
    c.network[at] = entry.network
    c.method[at] = call === undefined ? undefined : shared(this.#methods, call.method!)
    c.callCredits[at] = call === undefined ? 0 : call.credits
    c.outcome[at] = call === undefined ? null : call.outcome
    const to = call?.to
    c.to[at] = to === undefined ? undefined : to === this.#lastTo ? this.#lastTo : (this.#lastTo = to)
    c.credits[at] = entry.credits
    c.status[at] = entry.status
    c.fault[at] = entry.fault
  }

  /** The entry at row `at`, as recorded. */
  entry(at: number): RequestLogEntry {
    const c = this.#c
    const kept = c.objects[at]
    if (kept !== undefined) return kept
    const method = c.method[at]
    const to = c.to[at]
    const call: LoggedCall | undefined = method === undefined ? undefined : to === undefined ? { method, credits: c.callCredits[at]!, outcome: c.outcome[at]! } : { method, credits: c.callCredits[at]!, outcome: c.outcome[at]!, to }
    const calls: LoggedCall[] = call === undefined ? [] : [call]
    return {
      seq: c.seq[at]!,
      time: c.time[at]!,
      key: c.key[at]!,
      network: c.network[at]!,
      batch: false,
      calls,
      credits: c.credits[at]!,
      fault: c.fault[at]!,
      status: c.status[at]!,
      transport: 'http',
      socket: null,
    }
  }

  seq(at: number): number {
    return this.#c.seq[at]!
  }

  size(at: number): number {
    return this.#c.sizes[at]!
  }

  /** Lets go of row `at`'s objects and strings: the columns that hold them, written out (it runs once per request). */
  forget(at: number): void {
    const c = this.#c
    c.objects[at] = undefined
    c.time[at] = ''
    c.key[at] = null
    c.network[at] = null
    c.method[at] = undefined
    c.outcome[at] = null
    c.to[at] = undefined
    c.fault[at] = null
  }

  /** `count` rows from `head` moved to the start of `capacity` rows, in order. */
  grow(head: number, count: number, capacity: number): void {
    const old = this.#capacity
    for (const column of COLUMNS) {
      const from = this.#c[column] as unknown[]
      const rows: unknown[] = []
      for (let i = 0, at = head; i < count; i++, at = at + 1 === old ? 0 : at + 1) rows.push(from[at])
      ;(this.#c as Record<keyof Columns, unknown[]>)[column] = rows
    }
    this.#resize(capacity)
  }

  /** Every row let go of. */
  clear(): void {
    for (let at = 0; at < this.#capacity; at++) this.forget(at)
  }

  /** Rows up to `capacity`, filled with each column's empty value (packed arrays). */
  #resize(capacity: number): void {
    for (const column of COLUMNS) {
      const rows = this.#c[column] as unknown[]
      for (let i = rows.length; i < capacity; i++) rows.push(EMPTY[column])
    }
    this.#capacity = capacity
  }
}
