/**
 * Usage counted as it happens: each request log entry, when it is written, adds to counters by
 * key, network and method, in time buckets on the gateway's clock: a minute ring for the last
 * hour (the 15 min and 1 h windows) and an hour ring for the last 30 days (24 h, 7 d, 30 d and
 * today in UTC), plus running totals since start (what `measureCredits` diffs). Nothing is
 * rescanned; memory is bounded by `MAX_SERIES` series and `MAX_CELLS` bucket cells (past them,
 * traffic is counted under the series `(other)`), whatever clients send.
 *
 * How an entry counts (the dashboard's "requests" are calls, and a batch counts itself too, as
 * the service bills "30 requests → 31"):
 * - each call under its method (a batch member that is not a request under `(invalid)`), with
 *   the credits it was charged;
 * - a batch's envelope under `(batch)`, with the envelope's credits;
 * - an entry without calls (refused before its body was read, a body that was not JSON-RPC, a
 *   WebSocket upgrade) under `(none)`, or `(upgrade)` for an upgrade, with its credits.
 * A call succeeded when it was answered with a result; it failed with its JSON-RPC error code,
 * or, never executed, with the entry's HTTP status (`dropped` when there was no answer).
 * Failures are also counted by the entry's HTTP status (a JSON-RPC error in a 200 under `200`).
 */
import { RequestLog } from '../requestLog.ts'
import type { RequestLogEntry } from '../requestLog.ts'

export const MINUTE_MS = 60_000
export const HOUR_MS = 3_600_000
/** Minute buckets kept: the last hour. */
export const MINUTE_SLOTS = 60
/** Hour buckets kept: the last 30 days. */
export const HOUR_SLOTS = 720
/** Distinct (key, network, method) series counted before the rest is `(other)`. */
export const MAX_SERIES = 1_000
/** Bucket cells (a series in a bucket) kept at most, about 100 bytes each. */
export const MAX_CELLS = 100_000
/** Contract addresses kept per minute bucket (eth_call's targets). */
export const MAX_CONTRACTS_PER_MINUTE = 200

export const OTHER = '(other)'

/** What a series counts, in a bucket or since start. */
export class Cell {
  requests = 0
  successes = 0
  failures = 0
  credits = 0
  /** Failures by the entry's HTTP status (`dropped`: no answer). */
  byStatus: Map<string, number> | null = null
  /** Failures by JSON-RPC code (calls answered with an error). */
  byCode: Map<number, number> | null = null
}

export interface Series {
  readonly id: number
  readonly key: string
  readonly network: string
  readonly method: string
}

interface Slot {
  stamp: number
  readonly cells: Map<number, Cell>
  /** eth_call targets, `key network address` → calls (minute slots only). */
  readonly contracts: Map<string, number> | null
}

function ring(size: number, contracts: boolean): Slot[] {
  return Array.from({ length: size }, () => ({ stamp: -1, cells: new Map<number, Cell>(), contracts: contracts ? new Map<string, number>() : null }))
}

function bump<K>(map: Map<K, number>, k: K): void {
  map.set(k, (map.get(k) ?? 0) + 1)
}

export class UsageCounters {
  readonly #series: Series[] = []
  /** key → network → method → series id. */
  readonly #index = new Map<string, Map<string, Map<string, number>>>()
  readonly #minutes = ring(MINUTE_SLOTS, true)
  readonly #hours = ring(HOUR_SLOTS, false)
  readonly #totals = new Map<number, Cell>()
  #cells = 0
  /** The last series found, and its names (`#seriesId`). */
  #lastKey: string | undefined
  #lastNetwork: string | undefined
  #lastMethod: string | undefined
  #lastId = 0
  readonly #other: number
  /** Series and cells counted at most (tests lower them). */
  readonly #maxSeries: number
  readonly #maxCells: number

  constructor(limits: { maxSeries?: number; maxCells?: number } = {}) {
    this.#maxSeries = limits.maxSeries ?? MAX_SERIES
    this.#maxCells = limits.maxCells ?? MAX_CELLS
    this.#other = this.#seriesId(OTHER, OTHER, OTHER)
  }

  /** The series counted so far (`(other)` first). */
  get series(): readonly Series[] {
    return this.#series
  }

  #seriesId(key: string, network: string, method: string): number {
    // A client sends the same key, network and method again and again: their series is the last
    // one's (a series, once counted, keeps its id for good), found without three map lookups.
    if (method === this.#lastMethod && key === this.#lastKey && network === this.#lastNetwork) return this.#lastId
    const id = this.#findSeries(key, network, method)
    this.#lastKey = key
    this.#lastNetwork = network
    this.#lastMethod = method
    this.#lastId = id
    return id
  }

  #findSeries(key: string, network: string, method: string): number {
    let byNetwork = this.#index.get(key)
    let byMethod = byNetwork?.get(network)
    const id = byMethod?.get(method)
    if (id !== undefined) return id
    if (this.#series.length >= this.#maxSeries) return this.#other
    if (!byNetwork) this.#index.set(key, (byNetwork = new Map()))
    if (!byMethod) byNetwork.set(network, (byMethod = new Map()))
    const next = this.#series.length
    this.#series.push({ id: next, key, network, method })
    byMethod.set(method, next)
    return next
  }

  #slot(slots: Slot[], stamp: number): Slot {
    const slot = slots[stamp % slots.length]!
    if (slot.stamp !== stamp) {
      this.#cells -= slot.cells.size
      slot.cells.clear()
      slot.contracts?.clear()
      slot.stamp = stamp
    }
    return slot
  }

  #cell(cells: Map<number, Cell>, id: number, bounded: boolean): Cell {
    let cell = cells.get(id)
    if (cell) return cell
    if (bounded && this.#cells >= this.#maxCells && id !== this.#other) return this.#cell(cells, this.#other, bounded)
    cell = new Cell()
    cells.set(id, cell)
    if (bounded) this.#cells++
    return cell
  }

  /** Counts one request log entry, at `ms` on the gateway's clock. */
  add(entry: RequestLogEntry, ms: number): void {
    const minute = this.#slot(this.#minutes, Math.floor(ms / MINUTE_MS))
    const hour = this.#slot(this.#hours, Math.floor(ms / HOUR_MS))
    const key = entry.key ?? '(none)'
    const network = entry.network ?? '(none)'
    const status = entry.status
    const calls = entry.calls
    if (calls.length === 0) {
      const method = entry.socket?.stage === 'upgrade' ? '(upgrade)' : '(none)'
      this.#count(minute, hour, this.#seriesId(key, network, method), entry.credits, status, entry.status !== null && entry.status < 400 ? 'ok' : null)
      return
    }
    let callCredits = 0
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i]!
      callCredits += call.credits
      this.#count(minute, hour, this.#seriesId(key, network, call.method ?? '(invalid)'), call.credits, status, call.outcome)
      if (call.to !== undefined && call.outcome !== null && minute.contracts!.size < MAX_CONTRACTS_PER_MINUTE) bump(minute.contracts!, `${key} ${network} ${call.to}`)
    }
    if (entry.batch) this.#count(minute, hour, this.#seriesId(key, network, '(batch)'), entry.credits - callCredits, status, entry.status === 200 ? 'ok' : null)
  }

  #count(minute: Slot, hour: Slot, id: number, credits: number, status: number | null, outcome: 'ok' | number | null): void {
    this.#tally(this.#cell(minute.cells, id, true), credits, status, outcome)
    this.#tally(this.#cell(hour.cells, id, true), credits, status, outcome)
    this.#tally(this.#cell(this.#totals, id, false), credits, status, outcome)
  }

  #tally(cell: Cell, credits: number, status: number | null, outcome: 'ok' | number | null): void {
    cell.requests++
    cell.credits += credits
    if (outcome === 'ok') {
      cell.successes++
      return
    }
    cell.failures++
    // The status as text only on a failure: a success allocates nothing.
    bump((cell.byStatus ??= new Map()), status === null ? 'dropped' : String(status))
    if (outcome !== null) bump((cell.byCode ??= new Map()), outcome)
  }

  /**
   * The cells of the buckets from `fromMs` to `toMs` (whole minutes when `fine`, else whole
   * hours), oldest first, each with its bucket's start.
   */
  buckets(fromMs: number, toMs: number, fine: boolean): { start: number; cells: ReadonlyMap<number, Cell> }[] {
    const size = fine ? MINUTE_MS : HOUR_MS
    const slots = fine ? this.#minutes : this.#hours
    const first = Math.max(Math.floor(fromMs / size), Math.floor(toMs / size) - slots.length + 1)
    const out: { start: number; cells: ReadonlyMap<number, Cell> }[] = []
    for (let stamp = first; stamp <= Math.floor(toMs / size); stamp++) {
      const slot = slots[stamp % slots.length]!
      out.push({ start: stamp * size, cells: slot.stamp === stamp ? slot.cells : new Map() })
    }
    return out
  }

  /** eth_call's targets in the minute buckets from `fromMs` to `toMs`: `key network address` → calls. */
  contracts(fromMs: number, toMs: number): Map<string, number> {
    const out = new Map<string, number>()
    for (let stamp = Math.floor(fromMs / MINUTE_MS); stamp <= Math.floor(toMs / MINUTE_MS); stamp++) {
      const slot = this.#minutes[stamp % MINUTE_SLOTS]!
      if (slot.stamp !== stamp) continue
      for (const [k, n] of slot.contracts!) out.set(k, (out.get(k) ?? 0) + n)
    }
    return out
  }

  /** Running totals since start, by series id (copies, for `measureCredits` to diff). */
  totals(): Map<number, Cell> {
    const copy = new Map<number, Cell>()
    for (const [id, c] of this.#totals) {
      const cell = Object.assign(new Cell(), c)
      cell.byStatus = c.byStatus && new Map(c.byStatus)
      cell.byCode = c.byCode && new Map(c.byCode)
      copy.set(id, cell)
    }
    return copy
  }

  /** Cells kept in buckets now (bounded by `MAX_CELLS`). */
  get cellCount(): number {
    return this.#cells
  }
}

/** A request log and the counters it feeds: usage is counted from one point, each entry as it is written, at `now()`. */
export function countedRequestLog(now: () => number): { log: RequestLog; usage: UsageCounters } {
  const log = new RequestLog()
  const usage = new UsageCounters()
  log.onRecord = (entry) => usage.add(entry, now())
  return { log, usage }
}
