/**
 * A chain held in memory: every block with what a node keeps of it (senders, receipts, gas used,
 * effective gas prices, contract addresses, block-wide log indexes) already rendered in the
 * execution-apis wire shapes, plus a state database (trie) that keeps every block's state root, so
 * any historical state can be read. Reads never re-execute anything. The chain's VM, which mining
 * needs, is made on first use (`getVm()`): a chain that only answers reads never loads
 * `@ethereumjs/vm` and `@ethereumjs/evm`.
 *
 * The chain also grows: eth_sendRawTransaction's transactions pass geth's pool rules (pool/txPool.ts)
 * and are mined into new blocks on the head (mining/mining.ts), at once (`auto`) or when `mine()` is
 * called (`manual`). `snapshot()`/`restore()` go back to an earlier head, and `fork()` makes an
 * independent copy. Sends, mining, restores and forks run one at a time, in call order.
 */
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { bytesToHex, createAddressFromString, toChecksumAddress } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { keccak256 } from '../encoding/keccak.ts'
import type { BlockStateManager } from './vm/blockState.ts'
import { BlockStore } from './blocks/blockStore.ts'
import type { ChainReader } from './blocks/chainReader.ts'
import type { BlockRecord, BlockSelector } from './blocks/types.ts'
import { SYSTEM_CLOCK } from './clock.ts'
import { ChainEvents } from './events/chainEvents.ts'
import type { ChainClock } from './clock.ts'
import { childHeaderFields, MiningError, mineChild } from './mining/mining.ts'
import { decodeRawTransaction } from './pool/rawTransaction.ts'
import { checkSubmission, poolTransaction, selectExecutable, TxRejectedError, validateTransaction, validateWithState } from './pool/txPool.ts'
import type { PoolTransaction } from './pool/txPool.ts'
import { stateLibraries, vmLibraries } from './vm/vmLibraries.ts'

/** `auto`: every valid transaction is mined at once, in a block of its own. `manual`: they wait for `mine()`. */
export type MiningMode = 'auto' | 'manual'

/** A transaction waiting in the pool. */
export type PendingTransaction = PoolTransaction

/** A chain's state at one moment, to `restore` later. Opaque; valid for the chain that made it. */
export class ChainSnapshot {
  readonly #chain: Chain
  readonly #records: readonly BlockRecord[]
  readonly #safe: bigint
  readonly #finalized: bigint
  readonly #pool: readonly PoolTransaction[]
  readonly #mode: MiningMode

  /** @internal Made by `Chain.snapshot()`. */
  constructor(chain: Chain, records: readonly BlockRecord[], safe: bigint, finalized: bigint, pool: readonly PoolTransaction[], mode: MiningMode) {
    this.#chain = chain
    this.#records = records
    this.#safe = safe
    this.#finalized = finalized
    this.#pool = pool
    this.#mode = mode
  }

  /** The head block number when it was taken. */
  get headNumber(): bigint {
    return this.#records[this.#records.length - 1]!.number
  }

  /** @internal */
  static contents(s: ChainSnapshot): { chain: Chain; records: readonly BlockRecord[]; safe: bigint; finalized: bigint; pool: readonly PoolTransaction[]; mode: MiningMode } {
    return { chain: s.#chain, records: s.#records, safe: s.#safe, finalized: s.#finalized, pool: s.#pool, mode: s.#mode }
  }
}

/** How many blocks' read-only states `stateAt` keeps. */
const READ_STATES_KEPT = 16


export interface ChainOptions {
  name: string
  common: Common
  /**
   * Makes the chain's state (called once, on first need): its trie database holds every record's
   * state root. The chain moves it to the head's.
   */
  state: () => Promise<MerkleStateManager>
  store: BlockStore
  safe: bigint
  finalized: bigint
  verifiedBy?: 'replay' | 'cache'
  /** Where mined blocks take their timestamps from. Default: the system clock. */
  clock?: ChainClock
  miningMode?: MiningMode
}

export class Chain implements ChainReader {
  readonly name: string
  readonly common: Common
  /** The blocks; also the blockchain the VM reads BLOCKHASH from. */
  readonly blockchain: BlockStore
  readonly chainId: bigint
  /** How the blocks were verified: replayed now, or replayed by an earlier load and read back. */
  readonly verifiedBy: 'replay' | 'cache'
  /** Blocks added and removed, transactions pooled (./events/chainEvents.ts); a fork has its own. */
  readonly events = new ChainEvents()
  #safe: bigint
  #finalized: bigint
  /** How far safe and finalized stay behind the head as blocks are mined (the fixture's distances). */
  readonly #safeLag: bigint
  readonly #finalizedLag: bigint
  readonly #states = new Map<BlockRecord, Promise<BlockStateManager>>()
  #clock: ChainClock
  #mode: MiningMode
  #pool: PoolTransaction[] = []
  #seq = 0
  readonly #commons = new Map<string, Common>()
  /** The tail of the queue that serializes sends, mining, restores and forks. */
  #queue: Promise<unknown> = Promise.resolve()
  #vm: Promise<VM> | undefined
  readonly #makeState: () => Promise<MerkleStateManager>
  #state: Promise<MerkleStateManager> | undefined

  constructor(opts: ChainOptions) {
    this.name = opts.name
    this.common = opts.common
    this.#makeState = opts.state
    this.blockchain = opts.store
    this.chainId = opts.common.chainId()
    this.verifiedBy = opts.verifiedBy ?? 'replay'
    this.#safe = opts.safe
    this.#finalized = opts.finalized
    this.#safeLag = this.head.number - opts.safe
    this.#finalizedLag = this.head.number - opts.finalized
    this.#clock = opts.clock ?? SYSTEM_CLOCK
    this.#mode = opts.miningMode ?? 'auto'
  }

  /**
   * A chain over `records` whose state `state()` makes (its trie database holding every record's
   * state root). Its state and its VM are made on first use (`getState()`, `getVm()`).
   */
  static open(opts: Omit<ChainOptions, 'store'> & { records: readonly BlockRecord[] }): Chain {
    return new Chain({ ...opts, store: new BlockStore(opts.records) })
  }

  /**
   * The head's state (mining moves it; its trie database keeps every block's state root): made on
   * the first call, at the head's state root, the same one after.
   */
  getState(): Promise<MerkleStateManager> {
    if (!this.#state) {
      const state = this.#makeState().then(async (made) => {
        await made.setStateRoot(this.head.block.header.stateRoot)
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
        for (const common of this.#commons.values()) common.updateParams({})
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

  /**
   * The block a selector names, or undefined for an unknown hash or a future number. `pending`
   * is the head: pooled transactions are not executed until they are mined.
   */
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
   * A state manager positioned at the state after `record`, for reads only. Copies share the trie
   * database, which keeps every root (nothing is pruned). The last few are kept, each remembering
   * what it read (./blockState.ts): a block's state never changes, and making a copy per read, or
   * walking the trie again, costs more than the read.
   */
  stateAt(record: BlockRecord): Promise<BlockStateManager> {
    let state = this.#states.get(record)
    if (state) {
      // Most recently used last, so the oldest is first to go.
      this.#states.delete(record)
    } else {
      const root = record.block.header.stateRoot
      state = Promise.all([this.getState(), stateLibraries()]).then(([sm, { blockState }]) => blockState.BlockStateManager.at(sm, root))
      // A failed one is not kept.
      state.catch(() => {
        if (this.#states.get(record) === state) this.#states.delete(record)
      })
      if (this.#states.size >= READ_STATES_KEPT) this.#states.delete(this.#states.keys().next().value!)
    }
    this.#states.set(record, state)
    return state
  }

  // Mining.

  get miningMode(): MiningMode {
    return this.#mode
  }

  /** Switches the mining mode. Switching to `auto` mines nothing by itself: the next send or `mine()` does. */
  setMiningMode(mode: MiningMode): void {
    if (mode !== 'auto' && mode !== 'manual') throw new TypeError(`mining mode must be 'auto' or 'manual', got ${String(mode)}`)
    this.#mode = mode
  }

  get clock(): ChainClock {
    return this.#clock
  }

  /** Sets where mined blocks take their timestamps from (`max(parent + 1, floor(now / 1000))`). */
  setClock(clock: ChainClock): void {
    this.#clock = clock
  }

  /** The transactions waiting in the pool, by sender (in order of first arrival), then nonce. */
  get pending(): readonly PendingTransaction[] {
    const firstSeen = new Map<string, number>()
    for (const p of this.#pool) firstSeen.set(p.from, Math.min(firstSeen.get(p.from) ?? p.seq, p.seq))
    return [...this.#pool].sort((a, b) => firstSeen.get(a.from)! - firstSeen.get(b.from)! || (a.nonce < b.nonce ? -1 : 1))
  }

  /** A pooled transaction by hash (lowercase hex). */
  pendingByHash(hash: string): PendingTransaction | undefined {
    const h = hash.toLowerCase()
    return this.#pool.find((p) => p.hash === h)
  }

  /** geth's pending nonce: the head state's nonce, plus the pooled transactions that follow it without a gap. */
  async pendingNonce(address: string): Promise<bigint> {
    const from = address.toLowerCase()
    let next = await this.#nonceAt(this.head, from)
    const nonces = new Set(this.#pool.filter((p) => p.from === from).map((p) => p.nonce))
    while (nonces.has(next)) next++
    return next
  }

  /**
   * eth_sendRawTransaction: decodes `raw` and checks it as geth does (throwing `TxDecodeError` or
   * `TxRejectedError` with geth's message), pools it, and in `auto` mode mines every executable
   * pooled transaction into a new block before answering. Returns the transaction hash.
   */
  sendRawTransaction(raw: Uint8Array): Promise<string> {
    return this.#exclusive(async () => {
      const decoded = decodeRawTransaction(raw)
      checkSubmission(decoded)
      const head = this.head
      const hash = bytesToHex(keccak256(raw))
      if (this.#pool.some((p) => p.hash === hash)) throw new TxRejectedError('already known')
      const { tx, from } = validateTransaction(raw, decoded, {
        common: this.#commonAt(head.number, head.timestamp),
        nextCommon: this.#commonAt(head.number + 1n, this.#nextTimestamp()),
        gasLimit: head.block.header.gasLimit,
        chainId: this.chainId,
      })
      const ptx = poolTransaction(decoded.canonical, tx, from, this.#seq++)
      const state = await this.stateAt(head)
      const account = await state.getAccount(createAddressFromString(from))
      const replaced = validateWithState(ptx, { nonce: account?.nonce ?? 0n, balance: account?.balance ?? 0n }, this.#pool)
      const baseFee = this.#nextBaseFee()
      if (baseFee !== undefined && ptx.feeCap < baseFee) {
        throw new TxRejectedError(
          `max fee per gas less than block base fee: address ${toChecksumAddress(from)}, maxFeePerGas: ${ptx.feeCap}, baseFee: ${baseFee}`,
        )
      }
      const blobFee = ptx.blobGas > 0n ? this.#nextBlobBaseFee() : undefined
      if (blobFee !== undefined && ptx.blobFeeCap < blobFee) {
        throw new TxRejectedError(
          `max fee per blob gas less than block blob gas fee: address ${toChecksumAddress(from)} blobGasFeeCap: ${ptx.blobFeeCap}, blobBaseFee: ${blobFee}`,
        )
      }
      this.#pool = this.#pool.filter((p) => p !== replaced)
      this.#pool.push(ptx)
      this.events.emitPooled(ptx)
      if (this.#mode === 'auto') {
        const failed = await this.#mineExecutable(false)
        const own = failed.get(ptx.hash)
        if (own) throw new TxRejectedError(own)
      }
      return ptx.hash
    })
  }

  /** Mines one block with every executable pooled transaction (an empty block when there is none). */
  mine(): Promise<BlockRecord> {
    return this.#exclusive(async () => {
      await this.#mineExecutable(true)
      return this.head
    })
  }

  // Snapshots and forks.

  /** The head, safe and finalized blocks, the pool and the mining mode, as they are now. */
  snapshot(): ChainSnapshot {
    return new ChainSnapshot(this, [...this.blockchain.records], this.#safe, this.#finalized, [...this.#pool], this.#mode)
  }

  /**
   * Goes back to `snapshot`: blocks mined since disappear from every lookup, and mining continues
   * from its head. A snapshot stays valid after use (restore it again, or restore a later one).
   */
  restore(snapshot: ChainSnapshot): Promise<void> {
    const s = ChainSnapshot.contents(snapshot)
    if (s.chain !== this) return Promise.reject(new TypeError(`snapshot was taken of chain ${s.chain.name}, not ${this.name}`))
    return this.#exclusive(async () => {
      const { removed, added } = this.blockchain.reset(s.records)
      for (const record of [...this.#states.keys()]) if (!this.blockchain.has(record)) this.#states.delete(record)
      this.#safe = s.safe
      this.#finalized = s.finalized
      const before = new Set(this.#pool)
      this.#pool = [...s.pool]
      this.#mode = s.mode
      await (await this.getState()).setStateRoot(this.head.block.header.stateRoot)
      const ancestor = this.blockchain.byNumber((added[0]?.number ?? this.head.number + 1n) - 1n)!
      this.events.emitChange(removed, ancestor, added, 'restore')
      for (const p of this.#pool) if (!before.has(p)) this.events.emitPooled(p)
    })
  }

  /**
   * An independent chain named `name` that starts as a copy of this one (blocks, pool, mining
   * mode, clock). Blocks and the trie database are shared, which is safe: records never change,
   * and the database only ever gains nodes, keyed by their hashes.
   */
  fork(name: string): Promise<Chain> {
    return this.#exclusive(async () => {
      const common = this.common.copy()
      const store = this.blockchain.copy()
      // Its root is set to the fork's head when the fork first uses it.
      const copy = (await this.getState()).shallowCopy(false)
      const state = () => Promise.resolve(copy)
      const forked = new Chain({
        name,
        common,
        state,
        store,
        safe: this.#safe,
        finalized: this.#finalized,
        verifiedBy: this.verifiedBy,
        clock: this.#clock,
        miningMode: this.#mode,
      })
      forked.#pool = [...this.#pool]
      forked.#seq = this.#seq
      return forked
    })
  }

  // Internals.

  #exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task)
    this.#queue = run.catch(() => undefined)
    return run
  }

  /** A Common at the fork of a block at that height and time; one per fork, never changed after. */
  #commonAt(blockNumber: bigint, timestamp: bigint): Common {
    const hardfork = this.common.getHardforkBy({ blockNumber, timestamp })
    let common = this.#commons.get(hardfork)
    if (!common) {
      common = this.common.copy()
      common.setHardfork(hardfork)
      // Copies share the parameter table, which blocks, transactions and the VM add to (the VM
      // once made: see getVm), but each caches its fork's parameters: this one from the table now.
      common.updateParams({})
      this.#commons.set(hardfork, common)
    }
    return common
  }

  #nextTimestamp(): bigint {
    const now = BigInt(Math.floor(this.#clock.now() / 1000))
    const min = this.head.timestamp + 1n
    return now > min ? now : min
  }

  #nextBaseFee(): bigint | undefined {
    const head = this.head.block.header
    const common = this.#commonAt(head.number + 1n, this.#nextTimestamp())
    if (!common.isActivatedEIP(1559)) return undefined
    return head.baseFeePerGas !== undefined ? head.calcNextBaseFee() : common.param('initialBaseFee')
  }

  #nextBlobBaseFee(): bigint | undefined {
    const head = this.head.block.header
    const common = this.#commonAt(head.number + 1n, this.#nextTimestamp())
    if (!common.isActivatedEIP(4844)) return undefined
    return head.excessBlobGas !== undefined ? head.calcNextBlobGasPrice(common) : 1n
  }

  async #nonceAt(record: BlockRecord, from: string): Promise<bigint> {
    const state = await this.stateAt(record)
    return (await state.getAccount(createAddressFromString(from)))?.nonce ?? 0n
  }

  /**
   * Mines the executable pooled transactions into one block (or none: only when `always`, an
   * empty block). A transaction EthereumJS refuses to execute leaves the pool with its reason,
   * and the block is made of the others. Returns the refused ones' reasons by hash.
   */
  async #mineExecutable(always: boolean): Promise<Map<string, string>> {
    // First: the block's Common must have the VM's parameters (see getVm).
    const vm = await this.getVm()
    const parent = this.head
    const timestamp = this.#nextTimestamp()
    const common = this.#commonAt(parent.number + 1n, timestamp)
    const fields = childHeaderFields(parent, common, timestamp, this.genesis.block.header.coinbase.toString())
    const nonces = new Map<string, bigint>()
    for (const p of this.#pool) if (!nonces.has(p.from)) nonces.set(p.from, await this.#nonceAt(parent, p.from))
    const baseFee = fields.baseFeePerGas === undefined ? undefined : BigInt(fields.baseFeePerGas as bigint)
    let chosen = selectExecutable(this.#pool, (from) => nonces.get(from)!, baseFee, parent.block.header.gasLimit)
    const failed = new Map<string, string>()
    if (chosen.length === 0 && !always) return failed
    let record: BlockRecord
    try {
      record = await mineChild(vm, parent, common, fields, chosen)
    } catch (err) {
      if (!(err instanceof MiningError)) throw err
      // Find the transactions EthereumJS refuses, one prefix at a time (rare: the pool's checks come first).
      const kept: PoolTransaction[] = []
      const refusedSenders = new Set<string>()
      for (const p of chosen) {
        // A sender's later transactions wait behind the refused one (their nonces now have a gap).
        if (refusedSenders.has(p.from)) continue
        try {
          await mineChild(vm, parent, common, fields, [...kept, p])
          kept.push(p)
        } catch (e) {
          if (!(e instanceof MiningError)) throw e
          failed.set(p.hash, e.message)
          refusedSenders.add(p.from)
        }
      }
      chosen = kept
      this.#pool = this.#pool.filter((p) => !failed.has(p.hash))
      if (chosen.length === 0 && !always) {
        await (await this.getState()).setStateRoot(parent.block.header.stateRoot)
        return failed
      }
      record = await mineChild(vm, parent, common, fields, chosen)
    }
    this.#append(record)
    const included = new Set(chosen)
    this.#pool = this.#pool.filter((p) => !included.has(p))
    this.events.emitChange([], parent, [record], 'mined')
    return failed
  }

  #append(record: BlockRecord): void {
    this.blockchain.append(record)
    const head = record.number
    const safe = head - this.#safeLag
    const finalized = head - this.#finalizedLag
    if (safe > this.#safe) this.#safe = safe
    if (finalized > this.#finalized) this.#finalized = finalized
  }
}
