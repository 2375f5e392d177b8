/**
 * What a chain is made from (`new Chain(options)`, `Chain.open`): its name, rules, state, blocks
 * and tags, how it mines, and what it was loaded from (its export writes that again); or, for a
 * fork, copies of another chain's parts.
 */
import type { ChainClock } from './clock.ts'
import type { MiningMode } from './mining/miner.ts'
import type { TxPool } from './pool/txPool.ts'
import type { ChainStore } from './store/chainStore.ts'
import type { ChainStoreOptions } from './store/storeTypes.ts'
import type { ForkOrigin } from './vm/forkState.ts'

/** What a chain was loaded from, kept for its export: the genesis file's bytes, the fixture's index. */
export interface ChainSource {
  /** `genesis.json` as read (an export writes the same bytes). */
  readonly genesis: Uint8Array
  /** `accounts.json` as read, when the fixture had one. */
  readonly index?: unknown
}

/** The store's options (its state, blocks, tags and edits), and how the chain mines and what it tells. */
export interface ChainOptions extends ChainStoreOptions {
  verifiedBy?: 'replay' | 'cache'
  /** Where mined blocks take their timestamps from. Default: the system clock. */
  clock?: ChainClock
  miningMode?: MiningMode
  /** The chain's contracts by name (a fixture's accounts.json). Default: none. */
  contracts?: Readonly<Record<string, string>>
  /** What the chain was loaded from (its export writes it again). */
  source?: ChainSource
  /** A forked network's upstream (loading/fork/): the history up to its first block is read there. */
  upstream?: ForkOrigin
}

/** A chain made of parts that exist already (a fork's copies). */
export interface ChainParts extends Pick<ChainOptions, 'verifiedBy' | 'clock' | 'miningMode' | 'contracts' | 'source' | 'upstream'> {
  readonly parts: { readonly store: ChainStore; readonly pool: TxPool }
}
