/**
 * The request log's kept entries (./requestLog.ts): a ring of columns, oldest at `head`.
 *
 * Most entries are an HTTP request of one call (or none) without console lines or a call target.
 * Such an entry is kept as its fields in the columns, not as its objects, and its strings are
 * those of the entry before when they are equal (a client sends the same key and method again
 * and again), so a request leaves nothing of its own in the heap. Kept as objects (the entry,
 * its calls, its call), each of the last 10,000 requests outlived V8's young generation: copied
 * by two scavenges and promoted, and the old generation grew until marked (about a fifth of an
 * in-process loop of `eth_blockNumber` answers). Any other entry is kept as its object.
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

export class LogRows {
  /** Entries kept as objects; undefined where the row is compact. */
  #objects: (RequestLogEntry | undefined)[] = []
  #seq: number[] = []
  #time: string[] = []
  #key: (string | null)[] = []
  #network: (string | null)[] = []
  /** The one call's method; undefined for an entry without calls. */
  #method: (string | undefined)[] = []
  #callCredits: number[] = []
  #outcome: LoggedCall['outcome'][] = []
  #credits: number[] = []
  #status: (number | null)[] = []
  #fault: (FaultKind | null)[] = []
  /** Each row's weight (`entryBytes`), kept for its removal. */
  #sizes: number[] = []
  #capacity = 0
  #lastKey: string | null = null
  #lastTime = ''
  #methods = new Map<string, string>()

  constructor(capacity: number) {
    this.#resize(capacity)
  }

  get capacity(): number {
    return this.#capacity
  }

  /** Keeps `entry` (weighing `size`) at row `at`. */
  set(at: number, entry: RequestLogEntry, size: number): void {
    this.#seq[at] = entry.seq
    this.#sizes[at] = size
    const calls = entry.calls
    const call = calls[0]
    if (entry.socket !== null || entry.batch || calls.length > 1 || (call !== undefined && (call.console !== undefined || call.to !== undefined || call.method === null))) {
      this.#objects[at] = entry
      return
    }
    this.#objects[at] = undefined
    const time = entry.time
    this.#time[at] = time === this.#lastTime ? this.#lastTime : (this.#lastTime = time)
    const key = entry.key
    this.#key[at] = key !== null && key === this.#lastKey ? this.#lastKey : (this.#lastKey = key)
    this.#network[at] = entry.network
    this.#method[at] = call === undefined ? undefined : shared(this.#methods, call.method!)
    this.#callCredits[at] = call === undefined ? 0 : call.credits
    this.#outcome[at] = call === undefined ? null : call.outcome
    this.#credits[at] = entry.credits
    this.#status[at] = entry.status
    this.#fault[at] = entry.fault
  }

  /** The entry at row `at`, as recorded. */
  entry(at: number): RequestLogEntry {
    const kept = this.#objects[at]
    if (kept !== undefined) return kept
    const method = this.#method[at]
    const calls: LoggedCall[] = method === undefined ? [] : [{ method, credits: this.#callCredits[at]!, outcome: this.#outcome[at]! }]
    return {
      seq: this.#seq[at]!,
      time: this.#time[at]!,
      key: this.#key[at]!,
      network: this.#network[at]!,
      batch: false,
      calls,
      credits: this.#credits[at]!,
      fault: this.#fault[at]!,
      status: this.#status[at]!,
      transport: 'http',
      socket: null,
    }
  }

  seq(at: number): number {
    return this.#seq[at]!
  }

  size(at: number): number {
    return this.#sizes[at]!
  }

  /** Lets go of row `at`'s objects and strings. */
  forget(at: number): void {
    this.#objects[at] = undefined
    this.#time[at] = ''
    this.#key[at] = null
    this.#network[at] = null
    this.#method[at] = undefined
    this.#outcome[at] = null
    this.#fault[at] = null
  }

  /** `count` rows from `head` moved to the start of `capacity` rows, in order. */
  grow(head: number, count: number, capacity: number): void {
    const old = this.#capacity
    const moved = <T>(column: T[]): T[] => {
      const rows: T[] = []
      for (let i = 0, at = head; i < count; i++, at = at + 1 === old ? 0 : at + 1) rows.push(column[at]!)
      return rows
    }
    this.#objects = moved(this.#objects)
    this.#seq = moved(this.#seq)
    this.#time = moved(this.#time)
    this.#key = moved(this.#key)
    this.#network = moved(this.#network)
    this.#method = moved(this.#method)
    this.#callCredits = moved(this.#callCredits)
    this.#outcome = moved(this.#outcome)
    this.#credits = moved(this.#credits)
    this.#status = moved(this.#status)
    this.#fault = moved(this.#fault)
    this.#sizes = moved(this.#sizes)
    this.#resize(capacity)
  }

  /** Every row let go of. */
  clear(): void {
    for (let at = 0; at < this.#capacity; at++) this.forget(at)
  }

  /** Rows up to `capacity`, filled with placeholders of each column's kind (packed arrays). */
  #resize(capacity: number): void {
    const fill = <T>(column: T[], value: T) => {
      for (let i = column.length; i < capacity; i++) column.push(value)
    }
    fill(this.#objects, undefined)
    fill(this.#seq, 0)
    fill(this.#time, '')
    fill(this.#key, null)
    fill(this.#network, null)
    fill(this.#method, undefined)
    fill(this.#callCredits, 0)
    fill(this.#outcome, null)
    fill(this.#credits, 0)
    fill(this.#status, null)
    fill(this.#fault, null)
    fill(this.#sizes, 0)
    this.#capacity = capacity
  }
}
