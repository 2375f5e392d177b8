/**
 * The control facet's contract: what it offers (`GatewayControl`), what it answers with (the
 * `*Info` shapes, also the HTTP routes' bodies), and what it needs of a chain (`ControllableChain`)
 * and of the gateway (`ControlDeps`).
 */
import type { ControlLimits } from '../controlLimits.ts'
import type { Chain } from '../../chain/chain.ts'
import type { BlockRecord } from '../../chain/blocks/types.ts'
import type { MiningMode, ReorgOptions, ReorgResult } from '../../chain/mining/miner.ts'
import type { ControllableClock } from '../clock.ts'
import type { AccountSettings } from '../accounts.ts'
import type { KeySettings } from '../config.ts'
import type { CreditLedger, QuotaAlert } from '../credits.ts'
import type { UsageCounters } from '../usage/counters.ts'
import type { ControlEvents } from '../usage/events.ts'
import type { UsageReport } from '../usage/report.ts'
import type { Fault, FaultBook, FaultInput } from '../faults.ts'
import type { RequestLog, RequestLogEntry } from '../requestLog.ts'
import type { Network } from '../request.ts'
import type { FixtureFolder } from '../../chain/loading/exportChain.ts'
import type { DevRpc } from '../devRpc.ts'
import type { IntervalMining } from '../intervalMining.ts'
import type { HttpResponse } from '../response.ts'

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
  /** Replaces the last blocks with a new branch (src/chain/mining/reorg.ts). */
  reorg?(options: ReorgOptions): Promise<ReorgResult>
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
  /** The account whose plan the key draws on (null: the key is its own). */
  readonly account: string | null
  /** The key's own caps below the plan's (null: none). */
  readonly limits: { readonly dailyCredits: number | null; readonly creditsPerSecond: number | null } | null
  /** Credits the key itself spent today (with an account, part of the account's). */
  readonly spentToday: number
  /** The key's JWT settings: whether it requires one, and its public keys' ids (null: no JWT settings). */
  readonly jwt: { readonly required: boolean; readonly keyIds: readonly string[] } | null
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
  /** Seconds between blocks when interval mining (`evm_setIntervalMining`) is on, else null. */
  readonly intervalSeconds: number | null
}

/** A network's chain as a fixture folder (`exportNetwork`). */
export interface ExportedNetwork {
  readonly network: string
  readonly headNumber: number
  /** File name to contents: genesis.json, chain.rlp, forkchoice.json, accounts.json, and edits.json when needed. */
  readonly files: FixtureFolder
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
  /** Sets the mining mode (and stops interval mining). */
  setMiningMode(network: string, mode: MiningMode): NetworkInfo
  mine(network: string): Promise<MinedBlock>
  /** Replaces the network's last `depth` blocks with a new branch (./reorgControls.ts). */
  reorg(network: string, input: ReorgInput): Promise<ReorgInfo>
  /**
   * The network's chain as a fixture folder: what it was loaded from plus every block mined since
   * (chain/loading/exportChain.ts). Write it with `writeFixtureFolder`; the next start serves it.
   */
  exportNetwork(network: string): ExportedNetwork
  /**
   * The test endpoint: a JSON-RPC body for `network`, answered with the gateway's methods and the
   * Anvil/Hardhat test methods, no key, no credits (../devRpc.ts).
   */
  rpc(network: string, body: Buffer | string): Promise<HttpResponse>

  /** Log entries, oldest first; with `since`, only those after that seq. */
  requestLog(options?: { since?: number }): RequestLogEntry[]
  clearRequestLog(): void

  /**
   * What the traffic cost over a window (`15m`, `1h`, `24h` default, `7d`, `30d`, `today` in
   * UTC), filtered by key, network and method, with today's credits against each key's quota.
   */
  usage(query?: { window?: string; key?: string; network?: string; method?: string }): UsageInfo
  /** Requests and credits since start, in total and by method, key and network (`measureCredits` diffs two). */
  usageTotals(): UsageTotals
  /** The last quota alerts (75, 85, 100% of a daily quota), oldest first. */
  alerts(): QuotaAlert[]
  /** Calls `listener` with each quota alert from now on (the control event stream); returns the unsubscribe. */
  onAlert(listener: (alert: QuotaAlert) => void): () => void

  faults(): Fault[]
  addFault(fault: FaultInput): Fault
  removeFault(id: string): void
  clearFaults(): void
}

export interface ReorgInput {
  /** How many blocks from the head are replaced (at most head - safe). */
  depth: number
  /** How many blocks the new branch has (default `depth`, at most 1024). */
  length?: number
  /** `"same"` (default), `"empty"`, or raw transactions (hex) for each new block. */
  transactions?: 'same' | 'empty' | string[][]
  /** Hashes of replaced transactions to leave out for good (not returned to the pool). */
  drop?: string[]
}

export interface ReorgedBlock {
  readonly number: number
  readonly hash: string
  readonly timestamp: number
  /** Hashes of its transactions, in order. */
  readonly transactions: readonly string[]
}

export interface ReorgInfo {
  readonly network: string
  /** The last block both branches share. */
  readonly ancestor: { readonly number: number; readonly hash: string }
  /** The blocks replaced, oldest first. */
  readonly removed: readonly ReorgedBlock[]
  /** The new branch, oldest first. */
  readonly added: readonly ReorgedBlock[]
  /** Replaced transactions back in the pool. */
  readonly pooled: readonly string[]
  /** Replaced transactions named in `drop`, gone. */
  readonly dropped: readonly string[]
}

/** A key's credits today against its daily quota (its account's, and its own cap). */
export interface QuotaInfo {
  readonly key: string
  readonly account: string | null
  readonly networks: readonly string[]
  /** What the key itself spent today. */
  readonly spentToday: number
  /** What its plan spent today (its account's keys together; the key's own without an account). */
  readonly accountSpentToday: number
  /** The plan's daily quota. */
  readonly dailyCredits: number
  /** The key's own daily cap (null: none). */
  readonly keyDailyCredits: number | null
  /** What the key may still spend today. */
  readonly remaining: number
  /** `accountSpentToday` as a percentage of `dailyCredits`, one decimal. */
  readonly percent: number
}

export type UsageInfo = UsageReport & {
  readonly quotas: readonly QuotaInfo[]
  /** The next 00:00 UTC by the gateway's clock. */
  readonly resetsAt: string
}

export interface UsageTotals {
  requests: number
  credits: number
  byMethod: Record<string, { requests: number; credits: number }>
  byKey: Record<string, { requests: number; credits: number }>
  byNetwork: Record<string, { requests: number; credits: number }>
}

/** The gateway state the control facet works on (owned by `createGateway`); each facet takes what it needs of it. */
export interface ControlDeps {
  readonly serviceHost: string
  readonly networks: Map<string, Network>
  readonly keys: Map<string, KeySettings>
  readonly accounts: ReadonlyMap<string, AccountSettings>
  readonly ledger: CreditLedger
  readonly clock: ControllableClock
  readonly faults: FaultBook
  readonly log: RequestLog
  readonly intervals: IntervalMining
  readonly devRpc: DevRpc
  readonly usage: UsageCounters
  readonly events: ControlEvents
  /** Bounds on the snapshots and keys the controls keep (../controlLimits.ts; faults are bounded by their book). */
  readonly limits: ControlLimits
}
