/**
 * What a chain is made from (`new Chain(options)`, `Chain.open`): its name, rules, state, blocks
 * and tags, how it mines, and what it was loaded from (its export writes that again); or, for a
 * fork, copies of another chain's parts.
 */
import type { Common } from '@ethereumjs/common'
import type { BlockStore } from './blocks/blockStore.ts'
import type { BlockRecord } from './blocks/types.ts'
import type { ChainClock } from './clock.ts'
import type { MiningMode } from './mining/miner.ts'
import type { TxPool } from './pool/txPool.ts'
import type { ChainStore, EditedState } from './store/chainStore.ts'
import type { RecordingStateManager } from './vm/recordingState.ts'

/** What a chain was loaded from, kept for its export: the genesis file's bytes, the fixture's index. */
export interface ChainSource {
  /** `genesis.json` as read (an export writes the same bytes). */
  readonly genesis: Uint8Array
  /** `accounts.json` as read, when the fixture had one. */
  readonly index?: unknown
}

export interface ChainOptions {
  name: string
  common: Common
  /**
   * Makes the chain's state (called once, on first need): its trie database holds every record's
   * state root. The chain moves it to the head's.
   */
  state: () => Promise<RecordingStateManager>
  store: BlockStore
  safe: bigint
  finalized: bigint
  verifiedBy?: 'replay' | 'cache'
  /** Where mined blocks take their timestamps from. Default: the system clock. */
  clock?: ChainClock
  miningMode?: MiningMode
  /** The chain's contracts by name (a fixture's accounts.json). Default: none. */
  contracts?: Readonly<Record<string, string>>
  /** State edits of blocks (an export's `edits.json`, replayed): what reads of each see. */
  edits?: ReadonlyMap<BlockRecord, EditedState>
  /** What the chain was loaded from (its export writes it again). */
  source?: ChainSource
}

/** A chain made of parts that exist already (a fork's copies). */
export interface ChainParts extends Pick<ChainOptions, 'verifiedBy' | 'clock' | 'miningMode' | 'contracts' | 'source'> {
  readonly parts: { readonly store: ChainStore; readonly pool: TxPool }
}
