/**
 * What the rooms above the blocks (execution, fees, logs) read of a chain: its blocks by number,
 * hash and tag, its rules, and its state. `Chain` is one; a room that takes a `ChainReader` never
 * imports the chain, so the chain can import it.
 */
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { BlockStore } from './blockStore.ts'
import type { BlockRecord, BlockSelector } from './types.ts'

export interface ChainReader {
  readonly name: string
  /** The chain's Common (its fork schedule); copy it before changing its hardfork. */
  readonly common: Common
  readonly chainId: bigint
  /** The blocks; also the blockchain an EVM reads BLOCKHASH from. */
  readonly blockchain: BlockStore
  readonly genesis: BlockRecord
  readonly head: BlockRecord
  byNumber(n: bigint): BlockRecord | undefined
  byHash(hash: string): BlockRecord | undefined
  /** The block a selector names, or undefined for an unknown hash or a future number. */
  resolve(selector: BlockSelector): BlockRecord | undefined
  /** The head's state manager, whose trie database holds the kept blocks' states (../store/stateHistory.ts). */
  getState(): Promise<MerkleStateManager>
  /**
   * The state root reads of `record` see: its header's, or the root that state edits made while
   * it was the head gave (`Chain.editState`).
   */
  stateRootOf(record: BlockRecord): Uint8Array
}
