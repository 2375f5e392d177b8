/**
 * The chain's miner: when blocks are mined (`auto`: at every send; `manual`: on `mine()`), the
 * time they take (`max(parent + 1, clock seconds)`), the next block's base fees, and mining itself:
 * the executable pooled transactions (../pool/selection.ts) into one block on the head
 * (./mining.ts), appended to the store, and told to the chain's events. Next-block controls (a set timestamp, a fee recipient)
 * belong here, beside `nextTimestamp`.
 */
import { SYSTEM_CLOCK } from '../clock.ts'
import type { ChainClock } from '../clock.ts'
import type { BlockRecord } from '../blocks/types.ts'
import type { ChainEvents } from '../events/chainEvents.ts'
import type { PoolTransaction } from '../pool/poolTransaction.ts'
import { selectExecutable } from '../pool/selection.ts'
import type { TxPool } from '../pool/txPool.ts'
import type { ChainStore } from '../store/chainStore.ts'
import { childHeaderFields, MiningError, mineChild } from './mining.ts'

/** `auto`: every valid transaction is mined at once, in a block of its own. `manual`: they wait for `mine()`. */
export type MiningMode = 'auto' | 'manual'

export class Miner {
  readonly #store: ChainStore
  readonly #pool: TxPool
  readonly #events: ChainEvents | undefined
  #clock: ChainClock
  #mode: MiningMode

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

  /** The next block's timestamp, as the clock reads now. */
  nextTimestamp(): bigint {
    const now = BigInt(Math.floor(this.#clock.now() / 1000))
    const min = this.#store.head.timestamp + 1n
    return now > min ? now : min
  }

  /** The next block's base fee (undefined before London). */
  nextBaseFee(): bigint | undefined {
    const head = this.#store.head.block.header
    const common = this.#store.commonAt(head.number + 1n, this.nextTimestamp())
    if (!common.isActivatedEIP(1559)) return undefined
    return head.baseFeePerGas !== undefined ? head.calcNextBaseFee() : common.param('initialBaseFee')
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
    // First: the block's Common must have the VM's parameters (see ChainStore.getVm).
    const vm = await store.getVm()
    const parent = store.head
    const timestamp = this.nextTimestamp()
    const common = store.commonAt(parent.number + 1n, timestamp)
    const fields = childHeaderFields(parent, common, timestamp, store.genesis.block.header.coinbase.toString())
    const nonces = new Map<string, bigint>()
    for (const p of this.#pool.entries) if (!nonces.has(p.from)) nonces.set(p.from, await store.nonceAt(parent, p.from))
    const baseFee = fields.baseFeePerGas === undefined ? undefined : BigInt(fields.baseFeePerGas as bigint)
    let chosen = selectExecutable(this.#pool.entries, (from) => nonces.get(from)!, baseFee, parent.block.header.gasLimit)
    const failed = new Map<string, string>()
    if (chosen.length === 0 && !always) return failed
    const mine = (txs: readonly PoolTransaction[]): Promise<BlockRecord> => mineChild(vm, parent, common, fields, txs)
    let record: BlockRecord
    try {
      record = await mine(chosen)
    } catch (err) {
      if (!(err instanceof MiningError)) throw err
      chosen = await this.#withoutRefused(chosen, mine, failed)
      this.#pool.remove((p) => failed.has(p.hash))
      if (chosen.length === 0 && !always) {
        await (await store.getState()).setStateRoot(parent.block.header.stateRoot)
        return failed
      }
      record = await mine(chosen)
    }
    store.append(record)
    const included = new Set(chosen)
    this.#pool.remove((p) => included.has(p))
    this.#events?.emitChange([], parent, [record], 'mined')
    return failed
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
