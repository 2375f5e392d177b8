/**
 * The chain's miner: when blocks are mined (`auto`: at every send; `manual`: on `mine()`), the
 * time they take (`max(parent + 1, clock seconds)`, moved by the test's settings: ./settings.ts),
 * the next block's base fees, and mining itself: the executable pooled transactions
 * (../pool/selection.ts) into one block on the head's state (state edits included: the store's
 * `stateRootOf`) (./mining.ts), appended to the store, and told to the chain's events.
 */
import { SYSTEM_CLOCK } from '../clock.ts'
import type { ChainClock } from '../clock.ts'
import type { BlockRecord } from '../blocks/types.ts'
import type { ChainEvents } from '../events/chainEvents.ts'
import { poolTransaction } from '../pool/poolTransaction.ts'
import type { PoolTransaction } from '../pool/poolTransaction.ts'
import type { TxPool } from '../pool/txPool.ts'
import type { ChainStore } from '../store/chainStore.ts'
import { BranchRefusedError, mineBranch } from './branch.ts'
import { MiningError } from './mining.ts'
import { nextBlock } from './nextBlock.ts'
import { planReorg, ReorgError } from './reorg.ts'
import type { ReorgOptions } from './reorg.ts'
import { afterMined, DEFAULT_MINING_SETTINGS, nextTimestamp } from './settings.ts'
import type { MiningSettingsState } from './settings.ts'

/** `auto`: every valid transaction is mined at once, in a block of its own. `manual`: they wait for `mine()`. */
export type MiningMode = 'auto' | 'manual'

export type { ReorgOptions }

/** What a reorg did. */
export interface ReorgResult {
  /** The last block both branches share. */
  readonly ancestor: BlockRecord
  /** The blocks replaced, oldest first. */
  readonly removed: readonly BlockRecord[]
  /** The new branch, oldest first. */
  readonly added: readonly BlockRecord[]
  /** The replaced transactions the branch left out, back in the pool. */
  readonly pooled: readonly PoolTransaction[]
  /** The replaced transactions named in `drop`, gone. */
  readonly dropped: readonly string[]
}

export class Miner {
  readonly #store: ChainStore
  readonly #pool: TxPool
  readonly #events: ChainEvents | undefined
  #clock: ChainClock
  #mode: MiningMode
  /** Reorgs made so far (each branch's blocks say which one made them). */
  #reorgs = 0
  #settings: MiningSettingsState = DEFAULT_MINING_SETTINGS
  /** The last pending block built, for the head and pool it was built on (`pendingBlock`). */
  #pending: { key: string; record: BlockRecord | undefined } | undefined

  constructor(store: ChainStore, pool: TxPool, opts: { clock?: ChainClock; mode?: MiningMode; events?: ChainEvents } = {}) {
    this.#store = store
    this.#pool = pool
    this.#events = opts.events
    this.#clock = opts.clock ?? SYSTEM_CLOCK
    this.#mode = opts.mode ?? 'auto'
  }

  get mode(): MiningMode {
    return this.#mode
  }

  /** Switches the mining mode. Switching to `auto` mines nothing by itself: the next send or `mine()` does. */
  setMode(mode: MiningMode): void {
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

  /** The clock, in seconds, as block timestamps read it (before the chain's own offset). */
  clockSeconds(): bigint {
    return BigInt(Math.floor(this.#clock.now() / 1000))
  }

  /** What the next blocks' headers take besides their parent (./settings.ts). */
  get settings(): MiningSettingsState {
    return this.#settings
  }

  /** Puts back settings of an earlier moment (a restore). */
  replaceSettings(settings: MiningSettingsState): void {
    this.#settings = settings
  }

  /** Replaces the settings given (a field given as undefined is cleared). */
  setSettings(change: Partial<MiningSettingsState>): MiningSettingsState {
    const next: Record<string, unknown> = { ...this.#settings, ...change }
    for (const [field, value] of Object.entries(next)) if (value === undefined) delete next[field]
    this.#settings = next as unknown as MiningSettingsState
    return this.#settings
  }

  /** The next block's timestamp, as the clock and the settings read now. */
  nextTimestamp(): bigint {
    return nextTimestamp(this.#settings, this.#store.head.timestamp, this.clockSeconds())
  }

  /**
   * The timestamp of a reorg's block mined on `parent` now: as `nextTimestamp`, with the clock's
   * offset or the interval, but never the one-shot next timestamp, kept for the block after the branch.
   */
  timestampOn(parent: BlockRecord): bigint {
    return nextTimestamp({ ...this.#settings, nextTimestamp: undefined }, parent.timestamp, this.clockSeconds())
  }

  /** The next blocks' gas limit: the settings', else the head's. */
  nextGasLimit(): bigint {
    return this.#settings.gasLimit ?? this.#store.head.block.header.gasLimit
  }

  /** The next block's base fee (undefined before London). */
  nextBaseFee(): bigint | undefined {
    const head = this.#store.head.block.header
    const common = this.#store.commonAt(head.number + 1n, this.nextTimestamp())
    if (!common.isActivatedEIP(1559)) return undefined
    if (this.#settings.nextBaseFee !== undefined) return this.#settings.nextBaseFee
    return head.baseFeePerGas !== undefined ? head.calcNextBaseFee() : common.param('initialBaseFee')
  }

  /**
   * Mines `count` blocks (Anvil's `anvil_mine`), the first with the executable pooled
   * transactions. With `interval`, the first is `interval` seconds after the time the next block
   * would have had and each next one exactly `interval` after it; time goes on from the last.
   */
  async mineBlocks(count: number, interval?: bigint): Promise<void> {
    for (let i = 0; i < count; i++) {
      if (interval !== undefined && interval > 0n) {
        if (i > 0) this.setSettings({ nextTimestamp: this.#store.head.timestamp + interval })
        else if (this.#settings.nextTimestamp === undefined) this.setSettings({ nextTimestamp: this.nextTimestamp() + interval })
      }
      await this.mineExecutable(true)
    }
  }

  /** The next block's blob base fee (undefined before Cancun). */
  nextBlobBaseFee(): bigint | undefined {
    const head = this.#store.head.block.header
    const common = this.#store.commonAt(head.number + 1n, this.nextTimestamp())
    if (!common.isActivatedEIP(4844)) return undefined
    return head.excessBlobGas !== undefined ? head.calcNextBlobGasPrice(common) : 1n
  }

  /**
   * Mines the executable pooled transactions into one block (or none: only when `always`, an
   * empty block). A transaction EthereumJS refuses to execute leaves the pool with its reason,
   * and the block is made of the others. Returns the refused ones' reasons by hash.
   */
  async mineExecutable(always: boolean): Promise<Map<string, string>> {
    const store = this.#store
    const { parent, parentRoot, settings, timestamp, chosen: executable, mine } = await nextBlock(this.#store, this.#pool, this.#settings, this.nextTimestamp())
    let chosen = executable
    const failed = new Map<string, string>()
    if (chosen.length === 0 && !always) return failed
    let record: BlockRecord
    try {
      record = await mine(chosen)
    } catch (err) {
      if (!(err instanceof MiningError)) throw err
      chosen = await this.#withoutRefused(chosen, mine, failed)
      this.#pool.remove((p) => failed.has(p.hash))
      if (chosen.length === 0 && !always) {
        await (await store.getState()).setStateRoot(parentRoot)
        return failed
      }
      record = await mine(chosen)
    }
    const prune = store.append(record)
    this.#settings = afterMined(settings, timestamp, this.clockSeconds())
    const included = new Set(chosen)
    this.#pool.remove((p) => included.has(p))
    this.#events?.emitChange([], parent, [record], 'mined')
    // After the event (still in the chain's exclusive section): a pruning never delays a notification.
    prune()
    return failed
  }

  /**
   * The pending block, as geth's miner builds it: the executable pooled transactions mined on the
   * head now, not appended (the head's state is put back), kept until the head or the pool
   * changes; undefined when nothing in the pool is executable, or EthereumJS refuses one of them.
   * Its state's trie nodes stay in the trie database, as a mined block's do.
   */
  async pendingBlock(): Promise<BlockRecord | undefined> {
    const key = `${this.#store.head.hash}:${this.#pool.entries.map((p) => p.hash).join()}`
    if (this.#pending?.key === key) return this.#pending.record
    const { parentRoot, chosen, mine } = await nextBlock(this.#store, this.#pool, this.#settings, this.nextTimestamp())
    let record: BlockRecord | undefined
    try {
      record = chosen.length === 0 ? undefined : await mine(chosen)
    } catch (err) {
      if (!(err instanceof MiningError)) throw err
    } finally {
      await (await this.#store.getState()).setStateRoot(parentRoot)
    }
    this.#pending = { key, record }
    return record
  }

  /**
   * Replaces the last blocks with a new branch (./reorg.ts says what it holds): planned, mined on
   * the ancestor (./branch.ts), swapped in; the replaced transactions it leaves out go back to the
   * pool (unless dropped). Told as the blocks removed, each new block, then each transaction pooled.
   * Throws `ReorgError` with nothing changed.
   *
   * With a test's settings (./settings.ts): the branch's blocks take the clock's offset or the
   * interval, the fee recipient and the gas limit; the one-shot next timestamp and base fee wait
   * for the first block after the branch. State edits of the replaced blocks go with them; the
   * ancestor's stay, and the branch executes on them.
   */
  async reorg(options: ReorgOptions): Promise<ReorgResult> {
    const store = this.#store
    const plan = planReorg(
      {
        head: store.head,
        safeNumber: store.safeNumber,
        byNumber: (n) => store.byNumber(n),
        rulesOn: (parent) => ({
          common: store.commonAt(parent.number, parent.timestamp),
          nextCommon: store.commonAt(parent.number + 1n, this.timestampOn(parent)),
          gasLimit: this.#settings.gasLimit ?? parent.block.header.gasLimit,
          chainId: store.chainId,
        }),
      },
      options,
    )
    const vm = await store.getVm()
    const rules = {
      commonAt: (n: bigint, t: bigint) => store.commonAt(n, t),
      timestampOn: (parent: BlockRecord) => this.timestampOn(parent),
      coinbase: this.#settings.coinbase ?? store.genesis.block.header.coinbase.toString(),
      gasLimit: this.#settings.gasLimit,
      ancestorRoot: store.stateRootOf(plan.ancestor),
    }
    let branch: { records: BlockRecord[] }
    try {
      branch = await mineBranch(vm, rules, { ...plan, branch: ++this.#reorgs })
    } catch (err) {
      await (await store.getState()).setStateRoot(store.stateRootOf(store.head))
      if (err instanceof BranchRefusedError) throw new ReorgError(`transactions[${err.block}][${err.index}]`, err.message)
      throw err
    }
    const { removed, added } = await store.replaceAfter(plan.ancestor, branch.records)
    const pooled = options.repool === false ? [] : await this.#repool(removed, plan.dropped)
    this.#events?.emitChange(removed, plan.ancestor, added, 'reorg')
    for (const p of pooled) this.#events?.emitPooled(p)
    return { ancestor: plan.ancestor, removed, added, pooled, dropped: [...plan.dropped] }
  }

  /**
   * After a reorg: the replaced transactions the new chain does not hold go back to the pool
   * (geth's pool re-injects them), except the dropped ones; then the pool keeps only what can
   * still be mined (a nonce not below the sender's at the new head, not in the new chain).
   * Returns the transactions put back.
   */
  async #repool(removed: readonly BlockRecord[], dropped: ReadonlySet<string>): Promise<PoolTransaction[]> {
    const store = this.#store
    const back: PoolTransaction[] = []
    for (const record of removed) {
      record.block.transactions.forEach((tx, i) => {
        const json = record.transactions[i]!
        if (dropped.has(json.hash) || store.transactionByHash(json.hash) || this.#pool.has(json.hash)) return
        back.push(poolTransaction(tx.serialize(), tx, String(json.from).toLowerCase(), this.#pool.takeSeq()))
      })
    }
    for (const p of back) this.#pool.add(p)
    const nonces = new Map<string, bigint>()
    for (const p of this.#pool.entries) if (!nonces.has(p.from)) nonces.set(p.from, (await store.accountAt(store.head, p.from))?.nonce ?? 0n)
    const stale = (p: PoolTransaction) => p.nonce < nonces.get(p.from)! || store.transactionByHash(p.hash) !== undefined
    this.#pool.remove(stale)
    return back.filter((p) => !stale(p))
  }

  /**
   * The transactions EthereumJS executes, found one prefix at a time (rare: the pool's checks come
   * first); the refused ones' reasons go into `failed`.
   */
  async #withoutRefused(
    chosen: readonly PoolTransaction[],
    mine: (txs: readonly PoolTransaction[]) => Promise<BlockRecord>,
    failed: Map<string, string>,
  ): Promise<PoolTransaction[]> {
    const kept: PoolTransaction[] = []
    const refusedSenders = new Set<string>()
    for (const p of chosen) {
      // A sender's later transactions wait behind the refused one (their nonces now have a gap).
      if (refusedSenders.has(p.from)) continue
      try {
        await mine([...kept, p])
        kept.push(p)
      } catch (e) {
        if (!(e instanceof MiningError)) throw e
        failed.set(p.hash, e.message)
        refusedSenders.add(p.from)
      }
    }
    return kept
  }
}
