/**
 * A network's chain: what it holds (./store/chainStore.ts: every block with what a node keeps of
 * it, rendered in the execution-apis wire shapes; the safe and finalized tags; a state database
 * that keeps the states ./store/stateHistory.ts says; its VM, made on first need) and what acts on it: the pool
 * (./pool/: eth_sendRawTransaction's transactions pass geth's pool rules), the miner
 * (./mining/miner.ts: at once in `auto` mode, on `mine()` in `manual`), snapshots and forks.
 *
 * Every change (a send, mining, a restore, a fork, a state edit) runs one at a time, in call order
 * (`#exclusive`): two concurrent sends never share a parent. Reads go straight to the store.
 * Listeners follow the changes through `events` (./events/chainEvents.ts), told once each change is
 * complete. Reads are ./chainReads.ts's (this class extends it), the options ./chainOptions.ts's.
 *
 * For test suites (Anvil's test methods, docs/your-chain.md): state edits of the head
 * (`editState`), sends from impersonated accounts (`sendImpersonated`), the next blocks' settings
 * (`setMiningSettings`: time, fee recipient, gas limit, base fee), `mineBlocks`, `reset`.
 */
import { BlockStore } from './blocks/blockStore.ts'
import type { BlockRecord } from './blocks/types.ts'
import { admissionContext } from './chainAdmission.ts'
import type { ChainOptions, ChainParts, ChainSource } from './chainOptions.ts'
import { ChainReads } from './chainReads.ts'
import type { ChainOrigin } from './chainReads.ts'
import type { ChainClock } from './clock.ts'
import { ChainEvents } from './events/chainEvents.ts'
import { Miner } from './mining/miner.ts'
import type { MiningMode, ReorgOptions, ReorgResult } from './mining/miner.ts'
import type { MiningSettingsState } from './mining/settings.ts'
import { admit } from './pool/admission.ts'
import { impersonatedRaw } from './pool/impersonation.ts'
import type { UnsignedTxFields } from './pool/impersonation.ts'
import { TxRejectedError } from './pool/poolRules.ts'
import type { PoolTransaction } from './pool/poolTransaction.ts'
import { TxPool } from './pool/txPool.ts'
import { ChainSnapshot } from './snapshot.ts'
import { ReplayPoints } from './tracing/replayPoints.ts'
import type { SnapshotContents } from './snapshot.ts'
import { ChainStore } from './store/chainStore.ts'
import type { EditedState } from './store/chainStore.ts'
import type { StateEdit } from './vm/stateEdits.ts'

/** A transaction waiting in the pool. */
export type PendingTransaction = PoolTransaction

export type { ReorgOptions, ReorgResult }

// A chain's snapshots are its API (`snapshot()`, `restore()`): named here too, where users meet them.
export { ChainSnapshot }
export type { ChainOptions, ChainSource, EditedState }

export class Chain extends ChainReads {
  /** Blocks added and removed, transactions pooled (./events/chainEvents.ts); a fork has its own. */
  readonly events = new ChainEvents()
  /** The state before each transaction of the last blocks traced (./tracing/replayPoints.ts): a trace replays one transaction, not its block. */
  readonly replayPoints = new ReplayPoints()
  #miner: Miner
  /** The tail of the queue that serializes sends, mining, restores and forks. */
  #queue: Promise<unknown> = Promise.resolve()
  /** Accounts `sendImpersonated` may send from (lowercase); every account with `#autoImpersonate`. */
  readonly #impersonated = new Set<string>()
  #autoImpersonate = false
  /** The chain as loaded (or forked), for `reset()`. */
  #initial: ChainSnapshot
  /** The stores held before an `adopt`, by store (a snapshot's owner), with their origins and `#initial`. */
  readonly #held = new WeakMap<object, { store: ChainStore; origin: ChainOrigin; initial: ChainSnapshot }>()

  constructor(opts: ChainOptions | ChainParts) {
    const parts = 'parts' in opts ? opts.parts : { store: new ChainStore(opts), pool: new TxPool() }
    super(parts.store, parts.pool, { verifiedBy: opts.verifiedBy ?? 'replay', contracts: opts.contracts ?? {}, source: opts.source, upstream: opts.upstream })
    this.#miner = new Miner(this.store, this.pool, { clock: opts.clock, mode: opts.miningMode, events: this.events })
    this.#initial = this.snapshot()
  }

  /**
   * A chain over `records` whose state `state()` makes (its trie database holding every record's
   * state root). Its state and its VM are made on first use (`getState()`, `getVm()`).
   */
  static open(opts: Omit<ChainOptions, 'store'> & { records: readonly BlockRecord[] }): Chain {
    return new Chain({ ...opts, store: new BlockStore(opts.records) })
  }

  // State edits.

  /**
   * Changes accounts outside any transaction (Anvil's `anvil_setBalance`, `setCode`, `setNonce`,
   * `setStorageAt`, `anvil_loadState`). The edits apply to the head's state: every read of the head
   * (by tag, number or hash) sees them at once, the head block's header stays as it was mined, and
   * the next block executes on the edited state, so its state root includes them. A snapshot taken
   * before an edit restores the state without it; `editsOf(head)` lists them for an export.
   */
  editState(edits: readonly StateEdit[]): Promise<void> {
    return this.#exclusive(() => this.store.editHead(edits))
  }

  // The pool and mining.

  get miningMode(): MiningMode {
    return this.#miner.mode
  }

  /** Switches the mining mode. Switching to `auto` mines nothing by itself: the next send or `mine()` does. */
  setMiningMode(mode: MiningMode): void {
    this.#miner.setMode(mode)
  }

  get clock(): ChainClock {
    return this.#miner.clock
  }

  /** Sets where mined blocks take their timestamps from (`max(parent + 1, floor(now / 1000))`). */
  setClock(clock: ChainClock): void {
    this.#miner.setClock(clock)
  }

  /** The clock, in seconds, as block timestamps read it (before the chain's own offset). */
  clockSeconds(): bigint {
    return this.#miner.clockSeconds()
  }

  /** The next block as the miner would make it now: geth's `pending` block context for calls. */
  nextBlock(): { number: bigint; timestamp: bigint; gasLimit: bigint; baseFee: bigint | undefined } {
    const m = this.#miner
    return { number: this.head.number + 1n, timestamp: m.nextTimestamp(), gasLimit: m.nextGasLimit(), baseFee: m.nextBaseFee() }
  }

  /** What the next blocks' headers take besides their parent (mining/settings.ts). */
  get miningSettings(): MiningSettingsState {
    return this.#miner.settings
  }

  /** Changes the mining settings: the fields given replace the current ones (undefined clears one). */
  setMiningSettings(change: Partial<MiningSettingsState>): MiningSettingsState {
    return this.#miner.setSettings(change)
  }

  // Impersonation.

  /** The accounts `sendImpersonated` may send from (Anvil's `anvil_impersonateAccount`), lowercase. */
  get impersonatedAccounts(): readonly string[] {
    return [...this.#impersonated]
  }

  setImpersonated(address: string, on: boolean): void {
    if (on) this.#impersonated.add(address.toLowerCase())
    else this.#impersonated.delete(address.toLowerCase())
  }

  /** `true`: every account may send (`anvil_autoImpersonateAccount`). */
  setAutoImpersonate(on: boolean): void {
    this.#autoImpersonate = on
  }

  isImpersonated(address: string): boolean {
    return this.#autoImpersonate || this.#impersonated.has(address.toLowerCase())
  }

  /**
   * eth_sendRawTransaction: decodes `raw` and checks it as geth does (throwing `TxDecodeError` or
   * `TxRejectedError` with geth's message), pools it, and in `auto` mode mines every executable
   * pooled transaction into a new block before answering. Returns the transaction hash.
   */
  sendRawTransaction(raw: Uint8Array): Promise<string> {
    return this.#exclusive(() => this.#submit(raw, undefined))
  }

  /**
   * A transaction from `from` without a signature (an impersonated account: the caller decides who
   * may send, see `isImpersonated`). It is checked, pooled and mined as `sendRawTransaction`'s are,
   * carrying a placeholder signature (pool/impersonation.ts). Returns the transaction hash.
   */
  sendImpersonated(fields: UnsignedTxFields, from: string): Promise<string> {
    return this.#exclusive(() => {
      const sender = from.toLowerCase()
      const raw = impersonatedRaw(fields, sender, this.store.commonAt(this.head.number + 1n, this.#miner.nextTimestamp()))
      return this.#submit(raw, sender)
    })
  }

  /** Drops a pooled transaction (`anvil_dropTransaction`); true when it was there. */
  dropTransaction(hash: string): boolean {
    return this.pool.drop(hash)
  }

  /**
   * Mines one block with every executable pooled transaction (an empty block when there is none);
   * with `timestamp`, at that time (after the head's).
   */
  mine(opts: { timestamp?: bigint } = {}): Promise<BlockRecord> {
    return this.#exclusive(async () => {
      if (opts.timestamp !== undefined) this.#miner.setSettings({ nextTimestamp: opts.timestamp })
      await this.#miner.mineExecutable(true)
      return this.head
    })
  }

  /**
   * Replaces the last `depth` blocks with a new branch (./mining/reorg.ts says what it holds), so
   * every read sees the new chain, the replaced receipts are gone, and the replaced transactions
   * the branch leaves out are back in the pool (unless dropped). Told to listeners as the blocks
   * removed, each new block, then each transaction pooled. Throws `ReorgError` (nothing changed).
   */
  reorg(options: ReorgOptions): Promise<ReorgResult> {
    return this.#exclusive(() => this.#miner.reorg(options))
  }

  /**
   * Mines `count` blocks one after the other (Anvil's `anvil_mine`); with `interval`, exactly that
   * many seconds apart (see Miner.mineBlocks). Returns the new head.
   */
  mineBlocks(count: number, interval?: bigint): Promise<BlockRecord> {
    return this.#exclusive(async () => {
      await this.#miner.mineBlocks(count, interval)
      return this.head
    })
  }

  /** The pending block with the pool's executable transactions (Miner.pendingBlock); undefined when there is none. */
  pendingBlock(): Promise<BlockRecord | undefined> {
    return this.pool.entries.length === 0 ? Promise.resolve(undefined) : this.#exclusive(() => this.#miner.pendingBlock())
  }

  // Snapshots and forks.

  /** The head, safe and finalized blocks, the pool and the mining mode, as they are now. */
  snapshot(): ChainSnapshot {
    return new ChainSnapshot(this.store, this.name, {
      store: this.store.contents(),
      pool: [...this.pool.entries],
      mode: this.#miner.mode,
      settings: this.#miner.settings,
    })
  }

  /**
   * Goes back to `snapshot`: blocks mined since disappear from every lookup, and mining continues
   * from its head. A snapshot stays valid after use (restore it again, or restore a later one).
   */
  restore(snapshot: ChainSnapshot): Promise<void> {
    let contents: SnapshotContents
    const held = this.#held.get(ChainSnapshot.ownerOf(snapshot))
    try {
      contents = ChainSnapshot.contentsFor(snapshot, held?.store ?? this.store, this.name)
    } catch (err) {
      return Promise.reject(err as Error)
    }
    return this.#exclusive(async () => {
      if (held !== undefined && held.store !== this.store) {
        this.#install(held.store, held.origin, contents.mode)
        this.#initial = held.initial
      }
      const before = new Set(this.pool.entries)
      this.pool.reset(contents.pool)
      this.#miner.setMode(contents.mode)
      this.#miner.replaceSettings(contents.settings)
      const { removed, added } = await this.store.rewind(contents.store)
      const ancestor = this.store.byNumber((added[0]?.number ?? this.head.number + 1n) - 1n)!
      this.events.emitChange(removed, ancestor, added, 'restore')
      for (const p of this.pool.entries) if (!before.has(p)) this.events.emitPooled(p)
    })
  }

  /**
   * An independent chain named `name` that starts as a copy of this one (blocks, pool, mining
   * mode, clock). Blocks and the trie database are shared (see ChainStore.copy).
   */
  fork(name: string): Promise<Chain> {
    return this.#exclusive(async () => {
      const parts = { store: await this.store.copy(name), pool: this.pool.copy() }
      const forked = new Chain({ parts, verifiedBy: this.verifiedBy, clock: this.clock, miningMode: this.miningMode, contracts: this.contracts, ...(this.source ? { source: this.source } : {}), ...(this.upstream ? { upstream: this.upstream } : {}) })
      forked.#miner.replaceSettings(this.#miner.settings)
      for (const a of this.#impersonated) forked.#impersonated.add(a)
      forked.#autoImpersonate = this.#autoImpersonate
      forked.#initial = forked.snapshot()
      return forked
    })
  }

  /**
   * Back to the chain as it was loaded (or forked): its blocks, state edits, pool, mining mode and
   * settings (Anvil's `anvil_reset`); impersonation ends.
   */
  async reset(): Promise<void> {
    await this.restore(this.#initial)
    this.#impersonated.clear()
    this.#autoImpersonate = false
  }

  /**
   * Becomes `next`, this network forked again (Anvil's `anvil_reset` with `forking`): its blocks, state and
   * upstream, an empty pool, the mining mode as loaded, no impersonation; `reset()` comes back here. Listeners
   * stay (nothing is told of the swap, as Anvil); a snapshot taken before brings the old chain back (`restore`).
   */
  async adopt(next: Chain): Promise<void> {
    await this.#exclusive(async () => {
      this.#install(next.store, next.origin, ChainSnapshot.contentsFor(this.#initial, this.store, this.name).mode)
      this.pool.reset([])
      this.#initial = this.snapshot()
    })
    this.#impersonated.clear()
    this.#autoImpersonate = false
  }

  /** Serves `store` from now on (keeping the one it replaces, for its snapshots), with a miner of its own. */
  #install(store: ChainStore, origin: ChainOrigin, mode: MiningMode): void {
    this.#held.set(this.store, { store: this.store, origin: this.origin, initial: this.#initial })
    this.store = store
    this.origin = origin
    this.#miner = new Miner(store, this.pool, { clock: this.clock, mode, events: this.events })
    this.replayPoints.clear()
  }

  /** Admits `raw` (an impersonated transaction when `sender` is given), and in `auto` mode mines it. */
  async #submit(raw: Uint8Array, sender: string | undefined): Promise<string> {
    const ptx = await admit(raw, this.pool, admissionContext(this.store, this.#miner), sender)
    this.events.emitPooled(ptx)
    if (this.#miner.mode === 'auto') {
      const failed = await this.#miner.mineExecutable(false)
      const own = failed.get(ptx.hash)
      if (own) throw new TxRejectedError(own)
    }
    return ptx.hash
  }

  #exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task)
    this.#queue = run.catch(() => undefined)
    return run
  }
}
