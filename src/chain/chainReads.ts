/**
 * A chain's reads (./chain.ts's `Chain` extends this class): each goes straight to the store
 * (./store/chainStore.ts) or the pool, never waiting behind the changes `Chain` runs one at a time;
 * and where its contents came from (`ChainOrigin`).
 */
import type { Common } from '@ethereumjs/common'
import type { RawJson } from '../encoding/rawJson.ts'
import type { VM } from '@ethereumjs/vm'
import type { BlockStore } from './blocks/blockStore.ts'
import type { ChainReader } from './blocks/chainReader.ts'
import type { BlockRecord, BlockSelector } from './blocks/types.ts'
import type { ChainSource } from './chainOptions.ts'
import type { PoolTransaction } from './pool/poolTransaction.ts'
import type { TxPool } from './pool/txPool.ts'
import type { ChainStore, EditedState } from './store/chainStore.ts'
import type { RenderedForm } from './store/renderedJson.ts'
import { readyState } from './store/readStates.ts'
import type { BlockStateManager } from './vm/blockState.ts'
import type { KeyBook } from './vm/keyBook.ts'
import type { ForkOrigin } from './vm/forkState.ts'
import type { RecordingStateManager } from './vm/recordingState.ts'

/** Where a chain's contents came from; a network forked again (`Chain.adopt`) takes the new chain's. */
export interface ChainOrigin {
  /** How the blocks were verified: replayed now, or replayed by an earlier load and read back. */
  readonly verifiedBy: 'replay' | 'cache'
  /** The chain's contracts' addresses by name, as its fixture's accounts.json names them (a fork keeps them). */
  readonly contracts: Readonly<Record<string, string>>
  /** What the chain was loaded from, for its export (undefined for a chain made another way). */
  readonly source: ChainSource | undefined
  /** A forked network's upstream: blocks, transactions and states up to its first block are read there. */
  readonly upstream: ForkOrigin | undefined
}

export abstract class ChainReads implements ChainReader {
  /** What the chain holds; `Chain` changes it (and replaces it with `origin`) only through its queue. */
  protected store: ChainStore
  protected origin: ChainOrigin
  /** The transactions waiting to be mined (./pool/txPool.ts); `Chain` changes it through its queue. */
  protected readonly pool: TxPool

  constructor(store: ChainStore, pool: TxPool, origin: ChainOrigin) {
    this.store = store
    this.pool = pool
    this.origin = origin
  }

  get verifiedBy(): ChainOrigin['verifiedBy'] {
    return this.origin.verifiedBy
  }

  get contracts(): ChainOrigin['contracts'] {
    return this.origin.contracts
  }

  get source(): ChainOrigin['source'] {
    return this.origin.source
  }

  get upstream(): ChainOrigin['upstream'] {
    return this.origin.upstream
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

  /**
   * The word `eth_getStorageAt` answered at `record` for an address and a slot as written
   * (`StorageWords.key`), while nothing has changed that block's state since (./store/storageWords.ts).
   */
  storageWord(record: BlockRecord, key: string): string | undefined {
    return this.store.storageWords.get(record, key)
  }

  /** Keeps a word read at `record` for `storageWord`. */
  keepStorageWord(record: BlockRecord, key: string, word: string): void {
    this.store.storageWords.keep(record, key, word)
  }

  /** `record`'s `form` as JSON text, kept by the store (./store/renderedJson.ts) or rendered now by `render`. */
  renderedJson(record: BlockRecord, form: RenderedForm, render: () => RawJson): RawJson {
    return this.store.renderedJson.of(record, form, render)
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
  async keyBook(): Promise<KeyBook> {
    return (await this.store.getState()).book
  }

  /** The transactions waiting in the pool, by sender (in order of first arrival), then nonce. */
  get pending(): readonly PoolTransaction[] {
    return this.pool.pending
  }

  /** A pooled transaction by hash (lowercase hex). */
  pendingByHash(hash: string): PoolTransaction | undefined {
    return this.pool.byHash(hash)
  }

  /** geth's pending nonce: the head state's nonce, plus the pooled transactions that follow it without a gap. */
  async pendingNonce(address: string): Promise<bigint> {
    const from = address.toLowerCase()
    return this.pool.pendingNonce(from, (await this.store.accountAt(this.head, from))?.nonce ?? 0n)
  }
}
