/**
 * What a chain holds: its blocks (the block store), the safe and finalized tags and how far they
 * trail the head, its state (one trie database, in layers a restore drops: ../vm/trieDatabase.ts,
 * keeping the loaded blocks', the snapshots' and the recent blocks' states: ./stateHistory.ts),
 * its VM, and a Common per fork. Reads never re-execute anything.
 *
 * The state manager and the VM are made on first use (`getState()`, `getVm()`): a chain that only
 * answers reads never loads `@ethereumjs/vm` and `@ethereumjs/evm` (see ../vm/vmLibraries.ts).
 *
 * The head changes in three places only: `append` (a block mined on the head), `rewind` (back to an
 * earlier list of blocks: a restore) and `replaceAfter` (a reorg's branch in place of the tail).
 * Whatever must follow the head (chain events for filters and subscriptions) is told from there.
 *
 * The head's state can also change without a block: state edits (`editHead`: Anvil's
 * `anvil_setBalance`...) are applied to it, and the root they give is what reads of the head see and
 * what the next block executes on (`stateRootOf`); the head's header keeps the root it was mined
 * with. The edits are kept per block (`editsOf`), for an export and for snapshots; they go with
 * their block when a rewind or a reorg removes it. (Its option and content types: ./storeTypes.ts.)
 */
import type { Common } from '@ethereumjs/common'
import { bytesToHex, createAddressFromString } from '@ethereumjs/util'
import type { Account } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { BlockStore } from '../blocks/blockStore.ts'
import type { ChainReader } from '../blocks/chainReader.ts'
import type { BlockRecord, BlockSelector } from '../blocks/types.ts'
import type { BlockStateManager } from '../vm/blockState.ts'
import type { RecordingStateManager } from '../vm/recordingState.ts'
import { applyEdits } from '../vm/stateEdits.ts'
import type { StateEdit } from '../vm/stateEdits.ts'
import { stateLibraries, vmLibraries } from '../vm/vmLibraries.ts'
import { ForkCommons } from './forkCommons.ts'
import { headAccount } from './headAccount.ts'
import { ReadStates } from './readStates.ts'
import { StateHistory } from './stateHistory.ts'
import { RenderedJson } from './renderedJson.ts'
import { StorageWords } from './storageWords.ts'
import { TrieDatabase } from '../vm/trieDatabase.ts'
import type { TrieLayer } from '../vm/trieDatabase.ts'
import type { ChainStoreOptions, EditedState, StoreContents } from './storeTypes.ts'

/** How many blocks' read-only states `stateAt` keeps. */
const READ_STATES_KEPT = 16

export type { ChainStoreOptions, EditedState, StoreContents }

export class ChainStore implements ChainReader {
  readonly name: string
  readonly common: Common
  /** The blocks; also the blockchain the VM reads BLOCKHASH from. */
  readonly blockchain: BlockStore
  readonly chainId: bigint
  #safe: bigint
  #finalized: bigint
  /** How far safe and finalized stay behind the head as blocks are mined (the fixture's distances, or its `lags`). */
  readonly #safeLag: bigint
  readonly #finalizedLag: bigint
  /** Read-only states by state root (hex): the state at a root never changes. */
  readonly #states = new ReadStates(READ_STATES_KEPT)
  readonly #edits: Map<BlockRecord, EditedState>
  readonly #commons: ForkCommons
  #vm: Promise<VM> | undefined
  readonly #makeState: () => Promise<RecordingStateManager>
  #state: Promise<RecordingStateManager> | undefined
  /** The state's trie database, once made, its layer then (what a restore of contents taken before goes back to), and the state's cache journal. */
  #db: { database: TrieDatabase; made: TrieLayer; caches: RecordingStateManager['cacheJournal'] } | undefined
  /** Which states are kept (./stateHistory.ts). */
  readonly #history: StateHistory
  /** The words `eth_getStorageAt` answered at the last block read, emptied where a block's state may change (./storageWords.ts). */
  readonly storageWords = new StorageWords()
  /** Blocks, receipts and headers rendered to JSON text, by block hash, bounded in bytes (./renderedJson.ts). */
  readonly renderedJson = new RenderedJson()

  constructor(opts: ChainStoreOptions) {
    this.name = opts.name
    this.common = opts.common
    this.#commons = new ForkCommons(opts.common)
    this.#makeState = opts.state
    this.blockchain = opts.store
    this.chainId = opts.common.chainId()
    this.#safe = opts.safe
    this.#finalized = opts.finalized
    this.#safeLag = opts.lags?.safe ?? this.head.number - opts.safe
    this.#finalizedLag = opts.lags?.finalized ?? this.head.number - opts.finalized
    this.#edits = new Map(opts.edits)
    this.#history = new StateHistory(this.head.number)
  }

  /** The head's state (mining moves it; its trie database keeps the states the chain keeps): made on the first call, at the head's state root, the same one after. */
  getState(): Promise<RecordingStateManager> {
    if (!this.#state) {
      const state = this.#makeState().then(async (made) => {
        await made.setStateRoot(this.stateRootOf(this.head))
        const database = TrieDatabase.under(made)
        if (database) this.#db = { database, made: database.mark(), caches: made.cacheJournal }
        if (made.fork !== undefined) this.#history.keepAll()
        return made
      })
      this.#state = state
      state.catch(() => {
        if (this.#state === state) this.#state = undefined
      })
    }
    return this.#state
  }

  /**
   * The chain's VM, over its state and reading BLOCKHASH from its blocks: made (and
   * `@ethereumjs/vm` imported) on the first call, the same one after. Its Common is the chain's.
   */
  getVm(): Promise<VM> {
    if (!this.#vm) {
      const vm = Promise.all([vmLibraries(), this.getState()]).then(async ([{ vm: lib }, stateManager]) => {
        const made = await lib.createVM({ common: this.common, stateManager, blockchain: this.blockchain })
        // The VM added its parameters (and the EVM's) to the Common's table, which its copies share,
        // but a copy caches the parameters of its fork: the ones made before are rebuilt.
        this.#commons.rebuild()
        return made
      })
      this.#vm = vm
      vm.catch(() => {
        if (this.#vm === vm) this.#vm = undefined
      })
    }
    return this.#vm
  }

  get genesis(): BlockRecord {
    return this.blockchain.first
  }

  get head(): BlockRecord {
    return this.blockchain.last
  }

  get safeNumber(): bigint {
    return this.#safe
  }

  get finalizedNumber(): bigint {
    return this.#finalized
  }

  byNumber(n: bigint): BlockRecord | undefined {
    return this.blockchain.byNumber(n)
  }

  /** `hash` in lowercase hex. */
  byHash(hash: string): BlockRecord | undefined {
    return this.blockchain.byHash(hash)
  }

  transactionByHash(hash: string): { record: BlockRecord; index: number } | undefined {
    return this.blockchain.transactionByHash(hash)
  }

  /** The block a selector names, or undefined for an unknown hash or a future number. `pending` is the head. */
  resolve(selector: BlockSelector): BlockRecord | undefined {
    switch (selector.kind) {
      case 'number':
        return this.byNumber(selector.number)
      case 'hash':
        return this.byHash(selector.hash)
      case 'tag':
        switch (selector.tag) {
          case 'earliest':
            return this.genesis
          case 'latest':
          case 'pending':
            return this.head
          case 'safe':
            return this.byNumber(this.#safe)
          case 'finalized':
            return this.byNumber(this.#finalized)
        }
    }
  }

  /**
   * A state manager at the state after `record`, for reads only; copies share the trie database (an
   * old block's state may be pruned: ./stateHistory.ts). The last few are kept, each remembering what
   * it read (../vm/blockState.ts): a copy per read, or a trie walk again, costs more than the read.
   */
  stateAt(record: BlockRecord): Promise<BlockStateManager> {
    const root = this.stateRootOf(record)
    return this.#states.get(bytesToHex(root), () =>
      Promise.all([this.getState(), stateLibraries()]).then(([sm, { blockState }]) => blockState.BlockStateManager.at(sm, root)),
    )
  }

  /**
   * The state root reads of `record` see: its header's, or after state edits made while it was the
   * head, the root they gave (the state the next block executed on). A `MissingStateError` when
   * that state was pruned (./stateHistory.ts).
   */
  stateRootOf(record: BlockRecord): Uint8Array {
    return this.#history.check(record, this.#edits.get(record)?.root ?? record.block.header.stateRoot, this.#db?.database)
  }

  /** The state edits made while `record` was the head, if any (what an export writes to `edits.json`). */
  editsOf(record: BlockRecord): EditedState | undefined {
    return this.#edits.get(record)
  }

  /**
   * Applies `edits` to the head's state, outside any transaction: every read of the head sees them
   * from now on, and the next block executes on them. A failed edit changes nothing.
   */
  async editHead(edits: readonly StateEdit[]): Promise<void> {
    const head = this.head
    const root = this.stateRootOf(head)
    const state = await this.getState()
    try {
      await state.setStateRoot(root)
      await applyEdits(state, edits)
      const edited = await state.getStateRoot()
      this.#edits.set(head, { root: edited, edits: [...(this.#edits.get(head)?.edits ?? []), ...edits] })
      this.storageWords.clear()
    } catch (err) {
      await state.setStateRoot(root)
      throw err
    }
  }

  /** An account in the state after `record` (`from` in lowercase hex); the head's read as ./headAccount.ts reads it. */
  async accountAt(record: BlockRecord, from: string): Promise<Account | undefined> {
    if (record === this.head) return headAccount(await this.getState(), this.stateRootOf(record), from, () => this.stateAt(record))
    return (await this.stateAt(record)).getAccount(createAddressFromString(from))
  }

  /** A Common at the fork of a block at that height and time; one per fork, never changed after. */
  commonAt(blockNumber: bigint, timestamp: bigint): Common {
    return this.#commons.at(blockNumber, timestamp)
  }

  /**
   * A block mined on the head becomes the head; safe and finalized keep their distance behind it.
   * Its header and transactions share their fork's parameters (./forkCommons.ts). Returns the
   * pruning it brings (./stateHistory.ts), to run once the block is told (8-24 ms every 64 blocks).
   */
  append(record: BlockRecord): () => void {
    this.#commons.share(record.block)
    this.blockchain.append(record)
    this.#advanceTags()
    this.storageWords.clear()
    return () => this.#history.appended(this.blockchain.records, this.#edits, this.#db?.database)
  }

  /**
   * A reorg: the blocks after `ancestor` are replaced by `branch` (mined on it, oldest first), the
   * replaced ones gone from every lookup with their kept read states; safe and finalized follow
   * the new head at their distances, never moving back; the head state moves to the new head.
   * Returns the blocks that left and the ones that came, oldest first.
   */
  async replaceAfter(ancestor: BlockRecord, branch: readonly BlockRecord[]): Promise<{ removed: BlockRecord[]; added: BlockRecord[] }> {
    const kept = this.blockchain.records.slice(0, Number(ancestor.number - this.genesis.number) + 1)
    const change = this.blockchain.reset([...kept, ...branch])
    // The replaced blocks' edits go with them; the ancestor's stay (the branch was mined on them).
    this.#forgetEditsOfRemoved()
    this.storageWords.clear()
    this.#advanceTags()
    await (await this.getState()).setStateRoot(this.stateRootOf(this.head))
    return change
  }

  /** Drops the edits of blocks no longer in the chain (read states are keyed by root and stay valid). */
  #forgetEditsOfRemoved(): void {
    for (const record of [...this.#edits.keys()]) if (!this.blockchain.has(record)) this.#edits.delete(record)
  }

  /** Safe and finalized follow the head at the fixture's distances, never moving back. */
  #advanceTags(): void {
    const head = this.head.number
    const safe = head - this.#safeLag
    const finalized = head - this.#finalizedLag
    if (safe > this.#safe) this.#safe = safe
    if (finalized > this.#finalized) this.#finalized = finalized
  }

  /** The blocks and tags now, to `rewind` to later (and the trie layer that holds their state). */
  contents(): StoreContents {
    const layer = this.#db?.database.mark()
    this.#db?.caches.begin(this.stateRootOf(this.head))
    return { records: [...this.blockchain.records], safe: this.#safe, finalized: this.#finalized, edits: new Map(this.#edits), ...(layer ? { layer } : {}) }
  }

  /**
   * Back to `contents` (whose first block is this chain's genesis): blocks not in it disappear
   * from every lookup, their kept read states are dropped, the trie nodes written since go (see
   * ../vm/trieDatabase.ts), and the head state moves to its head.
   * Returns the blocks that left and the ones that came, oldest first.
   */
  async rewind(contents: StoreContents): Promise<{ removed: BlockRecord[]; added: BlockRecord[] }> {
    const change = this.blockchain.reset(contents.records)
    // The edits as they were then (the head's included); those of blocks gone are gone with them.
    this.#edits.clear()
    for (const [record, edited] of contents.edits) if (this.blockchain.has(record)) this.#edits.set(record, edited)
    this.storageWords.clear()
    this.#safe = contents.safe
    this.#finalized = contents.finalized
    const state = await this.getState()
    const db = this.#db
    if (db) db.database.rewind(contents.layer ?? db.made)
    // The caches put back as they were at the snapshot where they can be (../vm/cacheJournal.ts), else emptied.
    if (!(await db?.caches.rewindTo(this.stateRootOf(this.head)))) await state.setStateRoot(this.stateRootOf(this.head))
    return change
  }

  /**
   * An independent store named `name` that starts as a copy of this one. Blocks and the trie
   * database's layers are shared, which is safe: records never change, and a layer only gains
   * nodes, keyed by their hashes; the copy writes to a layer of its own.
   */
  async copy(name: string): Promise<ChainStore> {
    // Its root is set to the copy's head when the copy first uses it.
    const state = (await this.getState()).shallowCopy(false)
    TrieDatabase.under(state)?.forkUnder(state)
    return new ChainStore({
      name,
      common: this.common.copy(),
      state: () => Promise.resolve(state),
      store: this.blockchain.copy(),
      safe: this.#safe,
      finalized: this.#finalized,
      lags: { safe: this.#safeLag, finalized: this.#finalizedLag },
      edits: this.#edits,
    })
  }
}
