/**
 * The pool: the transactions waiting for a block, in arrival order, each numbered (`seq`) for
 * ties. Entries come in through `add` (./admission.ts decides) and leave through `remove` (mined,
 * or refused by the EVM), the two places a "transaction entered the pool" event would be told from.
 */
import type { PoolTransaction } from './poolTransaction.ts'

/**
 * The pool's bounds: geth's count (`GlobalSlots` + `GlobalQueue`, 4,096 + 1,024 transactions of at
 * most one 32 KiB slot each) and 16 MiB of raw transactions (a pooled transaction is kept raw,
 * decoded and as JSON: about four times its size in memory, so at most about 64 MiB).
 */
export const POOL_LIMITS = Object.freeze({ maxTransactions: 5120, maxBytes: 16 * 1024 * 1024 })

export class TxPool {
  #entries: PoolTransaction[]
  #seq: number

  constructor(entries: readonly PoolTransaction[] = [], seq = 0) {
    this.#entries = [...entries]
    this.#seq = seq
  }

  /** Every pooled transaction, in arrival order. */
  get entries(): readonly PoolTransaction[] {
    return this.#entries
  }

  /** The next arrival number. */
  takeSeq(): number {
    return this.#seq++
  }

  /** `hash` as `bytesToHex` writes it (lowercase). */
  has(hash: string): boolean {
    return this.#entries.some((p) => p.hash === hash)
  }

  /** A pooled transaction by hash (any case). */
  byHash(hash: string): PoolTransaction | undefined {
    const h = hash.toLowerCase()
    return this.#entries.find((p) => p.hash === h)
  }

  /** The pooled transactions by sender (in order of first arrival), then nonce. */
  get pending(): readonly PoolTransaction[] {
    const firstSeen = new Map<string, number>()
    for (const p of this.#entries) firstSeen.set(p.from, Math.min(firstSeen.get(p.from) ?? p.seq, p.seq))
    return [...this.#entries].sort((a, b) => firstSeen.get(a.from)! - firstSeen.get(b.from)! || (a.nonce < b.nonce ? -1 : 1))
  }

  /** geth's pending nonce: `stateNonce`, plus the sender's pooled transactions that follow it without a gap. */
  pendingNonce(from: string, stateNonce: bigint): bigint {
    const nonces = new Set(this.#entries.filter((p) => p.from === from).map((p) => p.nonce))
    let next = stateNonce
    while (nonces.has(next)) next++
    return next
  }

  /** The raw transactions' bytes, together. */
  get bytes(): number {
    return this.#entries.reduce((n, p) => n + p.raw.length, 0)
  }

  /** Whether pooling `ptx` (in place of `replaced`) keeps the pool within `POOL_LIMITS`. */
  fits(ptx: PoolTransaction, replaced?: PoolTransaction): boolean {
    const count = this.#entries.length + (replaced === undefined ? 1 : 0)
    const bytes = this.bytes + ptx.raw.length - (replaced?.raw.length ?? 0)
    return count <= POOL_LIMITS.maxTransactions && bytes <= POOL_LIMITS.maxBytes
  }

  /** Pools `ptx`, in place of `replaced` (a same-nonce transaction it outbids) if given. */
  add(ptx: PoolTransaction, replaced?: PoolTransaction): void {
    if (replaced !== undefined) this.#entries = this.#entries.filter((p) => p !== replaced)
    this.#entries.push(ptx)
  }

  /** Takes out every transaction `gone` says goes. */
  remove(gone: (p: PoolTransaction) => boolean): void {
    this.#entries = this.#entries.filter((p) => !gone(p))
  }

  /** Drops a pooled transaction (`anvil_dropTransaction`); true when it was there. */
  drop(hash: string): boolean {
    const h = hash.toLowerCase()
    const before = this.#entries.length
    this.#entries = this.#entries.filter((p) => p.hash !== h)
    return this.#entries.length < before
  }

  /** Puts back the entries of an earlier moment (a restore); arrival numbers go on. */
  reset(entries: readonly PoolTransaction[]): void {
    this.#entries = [...entries]
  }

  /** An independent pool with the same entries and numbering (a fork's). */
  copy(): TxPool {
    return new TxPool(this.#entries, this.#seq)
  }
}
