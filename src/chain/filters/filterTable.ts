/**
 * The filters of one API key on one network: geth's `eth/filters` table, with the hosted service's
 * rules (shared/reference/service-surfaces.md §2). The gateway keeps one table per key and network,
 * so the ids are shared by every connection of that key.
 *
 * A table listens to its chain's events only while it holds a filter:
 * - a log filter collects the logs of each block added that match its addresses and topics (and,
 *   as geth's `filterLogs`, its numeric `fromBlock`/`toBlock`: tags bound nothing, a `blockHash`
 *   bounds nothing), and the matching logs of blocks removed again with `removed: true`, oldest first;
 * - a block filter collects the hash of each block added; a rewind that adds nothing (a snapshot
 *   restore to an earlier head) gives the new head's hash, so a poller sees the head moved;
 * - a pending-transaction filter collects each transaction entering the pool: its hash, or its
 *   pending rendering with `fullTx`.
 * `takeChanges` hands them over and empties the filter.
 *
 * Expiry: a filter not polled with `takeChanges` (eth_getFilterChanges) for `timeoutMs` (15
 * minutes, the service's; geth's is 5) by the injected clock is gone, as if uninstalled. Checked
 * on every use of the table and every event, so moving the clock is enough (no timers).
 *
 * Bounds (`FILTER_LIMITS`): at most `maxFilters` filters (more is refused: `FilterLimitError`);
 * at most `maxChanges` undelivered changes per filter; at most `maxBytes` for the table's criteria
 * and undelivered changes together, counted as if each change were a copy of its own (the log
 * objects are in fact shared with the chain's records). A filter past its changes, or the largest
 * backlogs while the table is past its bytes, are dropped: their next poll is `filter not found`,
 * which a client such as viem answers by installing a new filter. Nothing is ever delivered cut.
 */
import type { FilterCriteria } from '../blocks/logs.ts'
import { matchesLog } from '../blocks/logs.ts'
import type { LogJson } from '../blocks/render.ts'
import type { BlockRecord } from '../blocks/types.ts'
import type { ChainClock } from '../clock.ts'
import type { ChainEvent, ChainEvents } from '../events/chainEvents.ts'
import type { PoolTransaction } from '../pool/poolTransaction.ts'
import { changeBytes, criteriaBytes, randomFilterId } from './changes.ts'
import type { FilterChange, FilterLog } from './changes.ts'

export type { FilterChange, FilterLog }

export interface FilterLimits {
  /** A filter not polled for this long is gone (ms). */
  readonly timeoutMs: number
  /** Filters one table holds at once. */
  readonly maxFilters: number
  /** Undelivered changes one filter holds. */
  readonly maxChanges: number
  /** Estimated bytes of one table's criteria and undelivered changes. */
  readonly maxBytes: number
}

export const FILTER_LIMITS: FilterLimits = Object.freeze({
  timeoutMs: 15 * 60_000,
  maxFilters: 1000,
  maxChanges: 10_000,
  maxBytes: 32 * 1024 * 1024,
})

export type FilterKind = 'logs' | 'blocks' | 'pendingTransactions'

/** The table is full: a new filter is refused. */
export class FilterLimitError extends Error {
  override readonly name = 'FilterLimitError'
}

export interface FilterTableOptions {
  readonly events: ChainEvents
  /** Expiry's clock (the gateway's, so its control clock expires filters). */
  readonly clock: ChainClock
  readonly limits?: Partial<FilterLimits>
  /** Makes filter ids; default geth's: 16 random bytes in hex, leading zeros cut. */
  readonly newId?: () => string
  /** Told of a failure in the table's own listener (a bug: the chain goes on). */
  readonly onError?: (err: unknown) => void
}

interface Filter {
  readonly id: string
  readonly kind: FilterKind
  /** A log filter's criteria, as installed (eth_getFilterLogs runs them). */
  readonly criteria: FilterCriteria | undefined
  /** Numeric bounds on the logs a log filter collects (geth's `filterLogs`). */
  readonly fromBlock: bigint | undefined
  readonly toBlock: bigint | undefined
  readonly fullTx: boolean
  readonly criteriaBytes: number
  changes: FilterChange[]
  changeBytes: number
  lastPollMs: number
}

export class FilterTable {
  readonly #events: ChainEvents
  readonly #clock: ChainClock
  readonly #limits: FilterLimits
  readonly #newId: () => string
  readonly #onError: ((err: unknown) => void) | undefined
  readonly #filters = new Map<string, Filter>()
  /**
   * No filter's last poll is older than this (Infinity: none held), so until `timeoutMs` after it
   * none can have expired and a sweep looks at none. Lowered by every install and poll (the
   * clock may have been set back), recomputed by a sweep that looks.
   */
  #oldestPollMs = Infinity
  #bytes = 0
  #stopListening: (() => void) | undefined

  constructor(options: FilterTableOptions) {
    this.#events = options.events
    this.#clock = options.clock
    this.#limits = { ...FILTER_LIMITS, ...options.limits }
    this.#newId = options.newId ?? randomFilterId
    this.#onError = options.onError
  }

  get limits(): FilterLimits {
    return this.#limits
  }

  /** Filters installed and not expired. */
  get size(): number {
    this.#sweep()
    return this.#filters.size
  }

  /** The estimated bytes of the table's criteria and undelivered changes. */
  get bytes(): number {
    this.#sweep()
    return this.#bytes
  }

  /** Whether the table listens to its chain (only while it holds a filter). */
  get listening(): boolean {
    return this.#stopListening !== undefined
  }

  /** A log filter (eth_newFilter): its range already checked by the caller. Returns its id. */
  installLogs(criteria: FilterCriteria): string {
    const bound = (b: FilterCriteria['fromBlock']) => (b?.kind === 'number' ? b.number : undefined)
    return this.#install('logs', criteria, bound(criteria.fromBlock), bound(criteria.toBlock), false)
  }

  /** A block filter (eth_newBlockFilter). */
  installBlocks(): string {
    return this.#install('blocks', undefined, undefined, undefined, false)
  }

  /** A pending-transaction filter (eth_newPendingTransactionFilter): hashes, or the transactions with `fullTx`. */
  installPendingTransactions(fullTx: boolean): string {
    return this.#install('pendingTransactions', undefined, undefined, undefined, fullTx)
  }

  /** The filter's kind, or undefined when there is no such filter (unknown, expired, dropped). */
  kind(id: string): FilterKind | undefined {
    this.#sweep()
    return this.#filters.get(id)?.kind
  }

  /**
   * eth_getFilterChanges: what the filter collected since the last call, handed over once; the
   * filter's expiry starts again. Undefined when there is no such filter.
   */
  takeChanges(id: string): FilterChange[] | undefined {
    // One reading of the clock for the sweep and the poll (each costs a system call here).
    const now = this.#clock.now()
    this.#sweep(now)
    const filter = this.#filters.get(id)
    if (!filter) return undefined
    const changes = filter.changes
    this.#bytes -= filter.changeBytes
    filter.changes = []
    filter.changeBytes = 0
    this.#polled(filter, now)
    return changes
  }

  /** A log filter's criteria (eth_getFilterLogs); undefined for any other id. Does not restart expiry. */
  logCriteria(id: string): FilterCriteria | undefined {
    this.#sweep()
    return this.#filters.get(id)?.criteria
  }

  /** eth_uninstallFilter: whether there was such a filter. */
  uninstall(id: string): boolean {
    this.#sweep()
    const filter = this.#filters.get(id)
    if (!filter) return false
    this.#drop(filter)
    return true
  }

  /** Uninstalls every filter. */
  clear(): void {
    for (const filter of [...this.#filters.values()]) this.#drop(filter)
  }

  #install(kind: FilterKind, criteria: FilterCriteria | undefined, fromBlock: bigint | undefined, toBlock: bigint | undefined, fullTx: boolean): string {
    this.#sweep()
    if (this.#filters.size >= this.#limits.maxFilters) {
      throw new FilterLimitError(`too many filters: at most ${this.#limits.maxFilters} per key and network (uninstall some, or let them expire)`)
    }
    let id = this.#newId()
    while (this.#filters.has(id)) id = this.#newId()
    const filter: Filter = {
      id,
      kind,
      criteria,
      fromBlock,
      toBlock,
      fullTx,
      criteriaBytes: criteriaBytes(criteria),
      changes: [],
      changeBytes: 0,
      lastPollMs: this.#clock.now(),
    }
    this.#filters.set(id, filter)
    this.#polled(filter, filter.lastPollMs)
    this.#bytes += filter.criteriaBytes
    this.#stopListening ??= this.#events.listen((event) => this.#onEvent(event), { onError: this.#onError })
    this.#enforceBytes(filter)
    return id
  }

  #drop(filter: Filter): void {
    if (this.#filters.get(filter.id) !== filter) return
    this.#filters.delete(filter.id)
    this.#bytes -= filter.criteriaBytes + filter.changeBytes
    if (this.#filters.size === 0) {
      this.#stopListening?.()
      this.#stopListening = undefined
    }
  }

  /** Records a poll at `now`, lowering the bound on the oldest poll that a sweep checks first. */
  #polled(filter: Filter, now: number): void {
    filter.lastPollMs = now
    if (now < this.#oldestPollMs) this.#oldestPollMs = now
  }

  /** Drops the expired filters; looks at each only when the oldest poll may be `timeoutMs` old. */
  #sweep(now?: number): void {
    if (this.#filters.size === 0) return
    now ??= this.#clock.now()
    if (now - this.#oldestPollMs < this.#limits.timeoutMs) return
    let oldest = Infinity
    for (const filter of [...this.#filters.values()]) {
      if (now - filter.lastPollMs >= this.#limits.timeoutMs) this.#drop(filter)
      else if (filter.lastPollMs < oldest) oldest = filter.lastPollMs
    }
    this.#oldestPollMs = oldest
  }

  #onEvent(event: ChainEvent): void {
    this.#sweep()
    switch (event.type) {
      case 'blocksRemoved':
        for (const record of event.records) this.#collectLogs(record, true)
        if (event.head === event.ancestor) this.#collectHash(event.head)
        break
      case 'blockAdded':
        this.#collectLogs(event.record, false)
        this.#collectHash(event.record)
        break
      case 'transactionPooled':
        this.#collectTransaction(event.transaction)
        break
    }
    this.#enforceBytes(undefined)
  }

  /** Adds a change to the filter; false when that drops it (past its changes). */
  #add(filter: Filter, change: FilterChange): boolean {
    if (filter.changes.length >= this.#limits.maxChanges) {
      this.#drop(filter)
      return false
    }
    const bytes = changeBytes(change)
    filter.changes.push(change)
    filter.changeBytes += bytes
    this.#bytes += bytes
    return true
  }

  #collectLogs(record: BlockRecord, removed: boolean): void {
    const logs = record.receipts.flatMap((r) => r.logs)
    if (logs.length === 0) return
    /** The removed copy of each log, made once for every filter that takes it. */
    const copies = new Map<LogJson, FilterLog>()
    const asRemoved = (log: LogJson): FilterLog => {
      let copy = copies.get(log)
      if (!copy) copies.set(log, (copy = { ...log, removed: true }))
      return copy
    }
    for (const filter of this.#filters.values()) {
      if (filter.kind !== 'logs') continue
      if (filter.fromBlock !== undefined && record.number < filter.fromBlock) continue
      if (filter.toBlock !== undefined && record.number > filter.toBlock) continue
      for (const log of logs) {
        if (!matchesLog(log, filter.criteria!)) continue
        // A filter past its changes is dropped: it takes nothing more.
        if (!this.#add(filter, removed ? asRemoved(log) : log)) break
      }
    }
  }

  #collectHash(record: BlockRecord): void {
    for (const filter of this.#filters.values()) if (filter.kind === 'blocks') this.#add(filter, record.hash)
  }

  #collectTransaction(transaction: PoolTransaction): void {
    for (const filter of this.#filters.values()) {
      if (filter.kind === 'pendingTransactions') this.#add(filter, filter.fullTx ? transaction.json : transaction.hash)
    }
  }

  /** While the table is past its bytes, drops the filter with the largest backlog (never `keep`). */
  #enforceBytes(keep: Filter | undefined): void {
    while (this.#bytes > this.#limits.maxBytes) {
      let largest: Filter | undefined
      for (const filter of this.#filters.values()) {
        if (filter !== keep && (largest === undefined || filter.changeBytes > largest.changeBytes)) largest = filter
      }
      if (largest === undefined) return
      this.#drop(largest)
    }
  }
}
