/**
 * The gateway's control facet: what a test suite does to the double between (or during) its
 * tests, without any transport. `Gateway.control` is one; the HTTP control routes
 * (src/http/controlRoutes.ts) and `RunningServer.control` expose the same object.
 *
 * - snapshots of the chains and of the credit ledger, keys and request log position; restore;
 * - the clock: set, advance, reset (the ledger's 00:00 UTC follows it);
 * - keys: list, add (config shape, validated by `parseKeys`), set today's remaining credits,
 *   enable or disable a network;
 * - networks: list, fork one into a new network (per-worker isolation), mining mode, mine;
 * - the request log: read, clear;
 * - scripted faults: add, list, remove, clear (./faults.ts).
 *
 * Chain operations go through `ControllableChain`, feature-tested at run time: a chain without
 * the method answers a `ChainFeatureMissingError` (501) naming it.
 *
 * Errors: `ControlInputError` (400, names the field), `ControlNotFoundError` (404),
 * `ChainFeatureMissingError` (501); all are `ControlError`s.
 */
import type { Chain } from '../chain/chain.ts'
import type { BlockRecord } from '../chain/blocks/types.ts'
import { jsonText } from '../encoding/jsonText.ts'
import type { ControllableClock } from './clock.ts'
import { ConfigError, parseKeys, parseNetworkName } from './config.ts'
import type { KeySettings } from './config.ts'
import { ChainFeatureMissingError, ControlError, ControlInputError, ControlNotFoundError } from './controlError.ts'
import type { CreditLedger, LedgerSnapshot } from './credits.ts'
import { FaultBook, parseFault } from './faults.ts'
import type { Fault, FaultInput } from './faults.ts'
import type { RequestLog, RequestLogEntry } from './requestLog.ts'
import type { Network } from './request.ts'
import { networkHost } from './rules/host.ts'

import type { MiningMode } from '../chain/mining/miner.ts'

export type { MiningMode }
export const MINING_MODES: readonly MiningMode[] = ['auto', 'manual']

/**
 * What the control facet needs of a chain beyond reads (the contract of `Chain` in
 * src/chain/chain.ts). Every member is optional here: each is checked at run time.
 */
export interface ControllableChain {
  /** An opaque copy of the chain's state (blocks, state root, pending transactions, mining mode). */
  snapshot?(): unknown
  restore?(snapshot: unknown): Promise<void>
  readonly miningMode?: MiningMode
  setMiningMode?(mode: MiningMode): void
  /** Mines the pending transactions into a new block. */
  mine?(): Promise<BlockRecord>
  /** Transactions waiting for `mine()` in manual mode. */
  readonly pending?: readonly unknown[]
  /** An independent copy of the chain under a new name. */
  fork?(name: string): Promise<Chain>
}

export interface SnapshotInfo {
  readonly id: string
  /** The networks whose chains it holds. */
  readonly networks: readonly string[]
  /** The request log position when it was taken. */
  readonly logPosition: number
  /** When it was taken, by the gateway's clock (ISO 8601). */
  readonly time: string
}

export interface ClockInfo {
  /** The gateway's time, ISO 8601 (UTC). */
  readonly now: string
  /** The same, in ms since the Unix epoch. */
  readonly ms: number
  /** How far it is from the base clock (the system's, or the one injected), in ms. */
  readonly offsetMs: number
}

export interface ClockInput {
  /** An absolute time: ISO 8601 string or ms since the Unix epoch. */
  time?: string | number
  /** Then moves it by this many seconds (negative: back). */
  advanceSeconds?: number
}

export interface KeyInfo {
  readonly key: string
  readonly networks: readonly string[]
  readonly dailyCredits: number
  readonly creditsPerSecond: number | null
  /** Credits left today. */
  readonly remaining: number
  readonly hasSecret: boolean
}

export interface NetworkInfo {
  readonly name: string
  /** `<name>-mainnet.<serviceHost>` */
  readonly host: string
  readonly chainId: number
  readonly headNumber: number
  /** null when the chain has no mining modes. */
  readonly miningMode: MiningMode | null
  /** Transactions waiting to be mined; null when the chain has no pool. */
  readonly pending: number | null
  /** The chain's contracts' addresses by name (its fixture's accounts.json; a source's as built). */
  readonly contracts: Readonly<Record<string, string>>
}

export interface ForkInput {
  /** The new network's name (served at `<name>-mainnet.<serviceHost>`). */
  name: string
  /** The network to copy. */
  from: string
  /** Keys to enable the new network for. Default: every key that has `from`. */
  keys?: string[]
}

export interface MinedBlock {
  readonly network: string
  readonly number: number
  readonly hash: string
  readonly timestamp: number
  /** Hashes of its transactions, in order. */
  readonly transactions: readonly string[]
}

export interface GatewayControl {
  /** Takes a snapshot of the chains of `networks` (default: all), the ledger, keys and log position. */
  snapshot(options?: { networks?: string[] }): Promise<SnapshotInfo>
  /**
   * Returns to a snapshot: its chains, the credits spent, the keys (added ones are removed,
   * changed ones put back) and the request log (entries after its position are dropped). The
   * clock and faults are not part of it. A snapshot can be restored any number of times.
   */
  restore(id: string): Promise<SnapshotInfo>
  snapshots(): SnapshotInfo[]
  deleteSnapshot(id: string): void

  clock(): ClockInfo
  setClock(input: ClockInput): ClockInfo
  resetClock(): ClockInfo

  keys(): KeyInfo[]
  key(key: string): KeyInfo
  /** Adds keys in the config-file shape (`KeyConfigInput[]`); errors name `keys[i].field`. */
  addKeys(keys: unknown): KeyInfo[]
  /** Sets the key's remaining credits for today (the daily balance comes back at 00:00 UTC). */
  setCredits(key: string, remaining: number): KeyInfo
  setNetworkEnabled(key: string, network: string, enabled: boolean): KeyInfo

  networks(): NetworkInfo[]
  network(name: string): NetworkInfo
  /** Adds network `name` as a fork of `from` (`chain.fork`), enabled for `keys`. */
  fork(input: ForkInput): Promise<NetworkInfo>
  setMiningMode(network: string, mode: MiningMode): NetworkInfo
  mine(network: string): Promise<MinedBlock>

  /** Log entries, oldest first; with `since`, only those after that seq. */
  requestLog(options?: { since?: number }): RequestLogEntry[]
  clearRequestLog(): void

  faults(): Fault[]
  addFault(fault: FaultInput): Fault
  removeFault(id: string): void
  clearFaults(): void
}

/** The gateway state the control facet works on (owned by `createGateway`). */
export interface ControlDeps {
  readonly serviceHost: string
  readonly networks: Map<string, Network>
  readonly keys: Map<string, KeySettings>
  readonly ledger: CreditLedger
  readonly clock: ControllableClock
  readonly faults: FaultBook
  readonly log: RequestLog
}

interface Snapshot {
  readonly info: SnapshotInfo
  readonly chains: ReadonlyMap<string, unknown>
  readonly ledger: LedgerSnapshot
  readonly keys: ReadonlyMap<string, KeySettings>
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** A value a test sent, quoted in an error message (cut at 200 characters; any depth). */
function show(v: unknown): string {
  return v === undefined ? 'nothing' : jsonText(v, 200)
}

function iso(ms: number): string {
  return new Date(ms).toISOString()
}

/**
 * The times the control clock can be set to: from the Unix epoch (block timestamps are unsigned)
 * to the last millisecond of year 9999 (ISO 8601's four-digit years), far inside what a `Date`
 * holds (±8.64e15 ms), so the clock can run on from there without leaving it.
 */
export const CLOCK_MIN_MS = 0
export const CLOCK_MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999)
const CLOCK_RANGE_TEXT = `${iso(CLOCK_MIN_MS)} to ${iso(CLOCK_MAX_MS)}`

/** ISO 8601 with a zone (`Z` or `±hh:mm`), or a date alone (UTC): a time without zone would be local. */
const ISO_TIME_RE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/

function inClockRange(ms: number): boolean {
  return Number.isSafeInteger(ms) && ms >= CLOCK_MIN_MS && ms <= CLOCK_MAX_MS
}

/** A control clock `time`: an ISO 8601 string or integer ms since the epoch, within the range. */
function parseClockTime(time: unknown): number {
  const ms = typeof time === 'number' ? time : typeof time === 'string' && ISO_TIME_RE.test(time) ? Date.parse(time) : Number.NaN
  if (!Number.isSafeInteger(ms)) {
    throw new ControlInputError('time', `must be an ISO 8601 time or ms since the epoch, got ${show(time)}`)
  }
  if (!inClockRange(ms)) throw new ControlInputError('time', `must be from ${CLOCK_RANGE_TEXT}, got ${show(time)}`)
  return ms
}

function controllable(chain: Chain): ControllableChain {
  return chain as unknown as ControllableChain
}

export function createControl(deps: ControlDeps): GatewayControl {
  const { networks, keys, ledger, clock, faults, log } = deps
  const snapshots = new Map<string, Snapshot>()
  let nextSnapshot = 1

  function network(name: unknown, field = 'network'): Network {
    if (typeof name !== 'string' || name === '') throw new ControlInputError(field, `must be a network name, got ${show(name)}`)
    const n = networks.get(name)
    if (!n) throw new ControlNotFoundError('network', name)
    return n
  }

  function keySettings(key: unknown, field = 'key'): KeySettings {
    if (typeof key !== 'string' || key === '') throw new ControlInputError(field, `must be a key, got ${show(key)}`)
    const k = keys.get(key)
    if (!k) throw new ControlNotFoundError('key', key)
    return k
  }

  /** The chain's method, or a 501 naming it. */
  function feature<K extends keyof ControllableChain>(n: Network, name: K): NonNullable<ControllableChain[K]> {
    const chain = controllable(n.chain)
    const member = chain[name]
    if (typeof member !== 'function') throw new ChainFeatureMissingError(n.name, name)
    return (member as (...args: unknown[]) => unknown).bind(chain) as NonNullable<ControllableChain[K]>
  }

  function keyInfo(k: KeySettings): KeyInfo {
    return {
      key: k.key,
      networks: [...k.networks],
      dailyCredits: k.dailyCredits,
      creditsPerSecond: k.creditsPerSecond ?? null,
      remaining: ledger.balance(k),
      hasSecret: k.secret !== undefined,
    }
  }

  function networkInfo(n: Network): NetworkInfo {
    const chain = controllable(n.chain)
    const mode = chain.miningMode
    const pending = chain.pending
    return {
      name: n.name,
      host: n.host,
      chainId: Number(n.chain.chainId),
      headNumber: Number(n.chain.head.number),
      miningMode: mode === 'auto' || mode === 'manual' ? mode : null,
      pending: Array.isArray(pending) ? pending.length : null,
      contracts: n.chain.contracts ?? {},
    }
  }

  function clockInfo(): ClockInfo {
    const ms = clock.now()
    return { now: iso(ms), ms, offsetMs: clock.offsetMs }
  }

  function snapshotOf(id: unknown): Snapshot {
    if (typeof id !== 'string' || id === '') throw new ControlInputError('id', `must be a snapshot id, got ${show(id)}`)
    const s = snapshots.get(id)
    if (!s) throw new ControlNotFoundError('snapshot', id)
    return s
  }

  function replaceKey(k: KeySettings, networkNames: ReadonlySet<string>): KeySettings {
    const next: KeySettings = { ...k, networks: networkNames }
    keys.set(k.key, next)
    return next
  }

  return {
    async snapshot(options = {}) {
      if (!isRecord(options)) throw new ControlInputError('snapshot', `must be an object, got ${show(options)}`)
      let names: string[]
      if (options.networks === undefined) names = [...networks.keys()]
      else if (!Array.isArray(options.networks) || !options.networks.every((n) => typeof n === 'string')) {
        throw new ControlInputError('networks', `must be a list of network names, got ${show(options.networks)}`)
      } else names = [...new Set(options.networks)]
      const takers = names.map((name, i) => [name, feature(network(name, `networks[${i}]`), 'snapshot')] as const)
      const chains = new Map(takers.map(([name, take]) => [name, take()]))
      const info: SnapshotInfo = { id: String(nextSnapshot++), networks: names, logPosition: log.position, time: iso(clock.now()) }
      snapshots.set(info.id, { info, chains, ledger: ledger.snapshot(), keys: new Map(keys) })
      return info
    },

    async restore(id) {
      const s = snapshotOf(id)
      const restorers = [...s.chains].map(([name, state]) => [feature(network(name), 'restore'), state] as const)
      for (const [restore, state] of restorers) await restore(state)
      ledger.restore(s.ledger)
      keys.clear()
      for (const [name, k] of s.keys) keys.set(name, k)
      log.truncate(s.info.logPosition)
      return s.info
    },

    snapshots: () => [...snapshots.values()].map((s) => s.info),

    deleteSnapshot(id) {
      snapshotOf(id)
      snapshots.delete(id)
    },

    clock: clockInfo,

    setClock(input) {
      if (!isRecord(input)) throw new ControlInputError('clock', `must be an object, got ${show(input)}`)
      for (const name of Object.keys(input)) {
        if (name !== 'time' && name !== 'advanceSeconds') throw new ControlInputError(name, 'unknown field (allowed: time, advanceSeconds)')
      }
      const { time, advanceSeconds } = input
      if (time === undefined && advanceSeconds === undefined) throw new ControlInputError('time', 'give time, advanceSeconds, or both')
      // Everything is checked before anything moves: a refused input leaves the clock as it was.
      const ms = time === undefined ? undefined : parseClockTime(time)
      let advanceMs = 0
      if (advanceSeconds !== undefined) {
        if (typeof advanceSeconds !== 'number' || !Number.isFinite(advanceSeconds)) {
          throw new ControlInputError('advanceSeconds', `must be a number of seconds, got ${show(advanceSeconds)}`)
        }
        advanceMs = Math.round(advanceSeconds * 1000)
        if (!inClockRange((ms ?? clock.now()) + advanceMs)) {
          throw new ControlInputError('advanceSeconds', `would move the clock outside ${CLOCK_RANGE_TEXT}, got ${show(advanceSeconds)}`)
        }
      }
      if (ms !== undefined) clock.set(ms + advanceMs)
      else clock.advance(advanceMs / 1000)
      return clockInfo()
    },

    resetClock() {
      clock.reset()
      return clockInfo()
    },

    keys: () => [...keys.values()].map(keyInfo),

    key: (key) => keyInfo(keySettings(key)),

    addKeys(input) {
      let parsed: KeySettings[]
      try {
        parsed = parseKeys(input, networks.keys())
      } catch (err) {
        if (err instanceof ConfigError) throw new ControlError(400, err.message)
        throw err
      }
      parsed.forEach((k, i) => {
        if (keys.has(k.key)) throw new ControlInputError(`keys[${i}].key`, `duplicate key ${JSON.stringify(k.key)} (it exists already)`)
      })
      for (const k of parsed) keys.set(k.key, k)
      return parsed.map(keyInfo)
    },

    setCredits(key, remaining) {
      const k = keySettings(key)
      if (typeof remaining !== 'number' || !Number.isSafeInteger(remaining) || remaining < 0) {
        throw new ControlInputError('remaining', `must be an integer of at least 0, got ${show(remaining)}`)
      }
      ledger.setBalance(k, remaining)
      return keyInfo(k)
    },

    setNetworkEnabled(key, name, enabled) {
      const k = keySettings(key)
      const n = network(name)
      if (typeof enabled !== 'boolean') throw new ControlInputError('enabled', `must be true or false, got ${show(enabled)}`)
      const next = new Set(k.networks)
      if (enabled) next.add(n.name)
      else next.delete(n.name)
      return keyInfo(replaceKey(k, next))
    },

    networks: () => [...networks.values()].map(networkInfo),

    network: (name) => networkInfo(network(name, 'name')),

    async fork(input) {
      if (!isRecord(input)) throw new ControlInputError('fork', `must be an object, got ${show(input)}`)
      for (const field of Object.keys(input)) {
        if (!['name', 'from', 'keys'].includes(field)) throw new ControlInputError(field, 'unknown field (allowed: name, from, keys)')
      }
      const source = network(input.from, 'from')
      if (typeof input.name !== 'string') throw new ControlInputError('name', `must be a network name, got ${show(input.name)}`)
      try {
        parseNetworkName(input.name, 'name')
      } catch (err) {
        if (err instanceof ConfigError) throw new ControlError(400, err.message)
        throw err
      }
      if (networks.has(input.name)) throw new ControlInputError('name', `network ${JSON.stringify(input.name)} exists already`)
      let enableFor: KeySettings[]
      if (input.keys === undefined) enableFor = [...keys.values()].filter((k) => k.networks.has(source.name))
      else if (!Array.isArray(input.keys)) throw new ControlInputError('keys', `must be a list of keys, got ${show(input.keys)}`)
      else enableFor = input.keys.map((k, i) => keySettings(k, `keys[${i}]`))
      const chain = await feature(source, 'fork')(input.name)
      if (networks.has(input.name)) throw new ControlInputError('name', `network ${JSON.stringify(input.name)} exists already`)
      const added: Network = { name: input.name, host: networkHost(input.name, deps.serviceHost), chain }
      networks.set(added.name, added)
      for (const k of enableFor) {
        const current = keys.get(k.key) ?? k
        replaceKey(current, new Set([...current.networks, added.name]))
      }
      return networkInfo(added)
    },

    setMiningMode(name, mode) {
      const n = network(name)
      if (!MINING_MODES.includes(mode)) throw new ControlInputError('mode', `must be "auto" or "manual", got ${show(mode)}`)
      feature(n, 'setMiningMode')(mode)
      return networkInfo(n)
    },

    async mine(name) {
      const n = network(name)
      const record = await feature(n, 'mine')()
      return {
        network: n.name,
        number: Number(record.number),
        hash: record.hash,
        timestamp: Number(record.timestamp),
        transactions: record.transactions.map((tx) => tx.hash),
      }
    },

    requestLog(options = {}) {
      const since = options.since ?? 0
      if (typeof since !== 'number' || !Number.isSafeInteger(since) || since < 0) {
        throw new ControlInputError('since', `must be an integer of at least 0, got ${show(since)}`)
      }
      return log.entries(since)
    },

    clearRequestLog() {
      log.clear()
    },

    faults: () => faults.list(),

    addFault(input) {
      const fault = parseFault(input)
      if (fault.network !== null) network(fault.network)
      if (fault.key !== null) keySettings(fault.key)
      return faults.add(fault)
    },

    removeFault(id) {
      if (!faults.remove(id)) throw new ControlNotFoundError('fault', String(id))
    },

    clearFaults() {
      faults.clear()
    },
  }
}
