/**
 * What a `ChainStore` (./chainStore.ts) is made from, the state edits it keeps per block, and its
 * contents at one moment (what a snapshot keeps and a restore puts back).
 */
import type { Common } from '@ethereumjs/common'
import type { BlockStore } from '../blocks/blockStore.ts'
import type { BlockRecord, TagLags } from '../blocks/types.ts'
import type { RecordingStateManager } from '../vm/recordingState.ts'
import type { StateEdit } from '../vm/stateEdits.ts'
import type { TrieLayer } from '../vm/trieDatabase.ts'

export interface ChainStoreOptions {
  name: string
  common: Common
  /**
   * Makes the chain's state (called once, on first need): its trie database holds every record's
   * state root. The store moves it to the head's.
   */
  state: () => Promise<RecordingStateManager>
  store: BlockStore
  safe: bigint
  finalized: bigint
  /**
   * How many blocks safe and finalized trail the head as blocks are mined (never moving back).
   * Default: their distances from the head at the start.
   */
  lags?: TagLags
  /** State edits of blocks (an export's `edits.json`, replayed): what reads of each see. */
  edits?: ReadonlyMap<BlockRecord, EditedState>
}


/**
 * The state edits made while a block was the head, and the state root they gave: what reads of
 * that block see, and what the next block executed on (see `ChainStore.editHead`).
 */
export interface EditedState {
  readonly root: Uint8Array
  readonly edits: readonly StateEdit[]
}

/** The blocks and tags at one moment (records never change: a list of them is the chain's history). */
export interface StoreContents {
  readonly records: readonly BlockRecord[]
  readonly safe: bigint
  readonly finalized: bigint
  /**
   * The state edits of its blocks then (the head's so far): a restore puts them all back, even
   * those of blocks a reorg or an earlier restore removed in between.
   */
  readonly edits: ReadonlyMap<BlockRecord, EditedState>
  /** The trie layer that held the state then (absent: taken before the state was first used). */
  readonly layer?: TrieLayer
}
