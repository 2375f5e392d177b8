/**
 * A chain's reads (./chain.ts's `Chain` extends this class): each goes straight to the store
 * (./store/chainStore.ts), never waiting behind the changes `Chain` runs one at a time.
 */
import type { Common } from '@ethereumjs/common'
import type { VM } from '@ethereumjs/vm'
import type { BlockStore } from './blocks/blockStore.ts'
import type { ChainReader } from './blocks/chainReader.ts'
import type { BlockRecord, BlockSelector } from './blocks/types.ts'
import type { ChainStore, EditedState } from './store/chainStore.ts'
import { readyState } from './store/readStates.ts'
import type { BlockStateManager } from './vm/blockState.ts'
import type { KeyBook } from './vm/keyBook.ts'
import type { RecordingStateManager } from './vm/recordingState.ts'

export abstract class ChainReads implements ChainReader {
  /** What the chain holds; `Chain` changes it only through its queue. */
  protected readonly store: ChainStore

  constructor(store: ChainStore) {
    this.store = store
  }

  get name(): string {
    return this.store.name
  }

  get common(): Common {
    return this.store.common
  }

  /** The blocks; also the blockchain the VM reads BLOCKHASH from. */
  get blockchain(): BlockStore {
    return this.store.blockchain
  }

  get chainId(): bigint {
    return this.store.chainId
  }

  /** The head's state, made on the first call (see ChainStore.getState). */
  getState(): Promise<RecordingStateManager> {
    return this.store.getState()
  }

  /** The chain's VM, made (and `@ethereumjs/vm` imported) on the first call. */
  getVm(): Promise<VM> {
    return this.store.getVm()
  }

  get genesis(): BlockRecord {
    return this.store.genesis
  }

  get head(): BlockRecord {
    return this.store.head
  }

  get safeNumber(): bigint {
    return this.store.safeNumber
  }

  get finalizedNumber(): bigint {
    return this.store.finalizedNumber
  }

  byNumber(n: bigint): BlockRecord | undefined {
    return this.store.byNumber(n)
  }

  /** `hash` in lowercase hex. */
  byHash(hash: string): BlockRecord | undefined {
    return this.store.byHash(hash)
  }

  transactionByHash(hash: string): { record: BlockRecord; index: number } | undefined {
    return this.store.transactionByHash(hash)
  }

  /** The block a selector names, or undefined for an unknown hash or a future number; `pending` is the head. */
  resolve(selector: BlockSelector): BlockRecord | undefined {
    return this.store.resolve(selector)
  }

  /** A read-only state manager at the state after `record` (the last few kept). */
  stateAt(record: BlockRecord): Promise<BlockStateManager> {
    return this.store.stateAt(record)
  }

  /** The state `stateAt` would give, at once when it is kept and made (a synchronous read path); else undefined. */
  readyStateAt(record: BlockRecord): BlockStateManager | undefined {
    return readyState(this.store.stateAt(record))
  }

  /** The state root reads of `record` see: its header's, or the one its state edits gave. */
  stateRootOf(record: BlockRecord): Uint8Array {
    return this.store.stateRootOf(record)
  }

  /** The state edits made while `record` was the head, if any (what an export writes to `edits.json`). */
  editsOf(record: BlockRecord): EditedState | undefined {
    return this.store.editsOf(record)
  }

  /** The addresses and slots the chain's state was written at (see vm/keyBook.ts). */
  keyBook(): Promise<KeyBook> {
    return this.store.keyBook()
  }
}
