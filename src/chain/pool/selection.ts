/**
 * What the next block takes from the pool, as geth's miner picks (see `selectExecutable`).
 */
import type { PoolTransaction } from './poolTransaction.ts'

/** The miner's tip of a transaction at a base fee: `min(tip, feeCap - baseFee)`. */
function minerTip(p: PoolTransaction, baseFee: bigint | undefined): bigint {
  if (baseFee === undefined) return p.tipCap
  const room = p.feeCap - baseFee
  return room < p.tipCap ? room : p.tipCap
}

/**
 * What the next block takes from the pool, as geth's miner picks: per sender, the transactions
 * whose nonces follow the state's without a gap and that pay at least the base fee; across
 * senders, the highest miner tip first (earliest arrival on a tie), each sender in nonce order;
 * a transaction that no longer fits the block's gas (by gas limits) ends its sender's run.
 */
export function selectExecutable(
  pool: readonly PoolTransaction[],
  nonceOf: (from: string) => bigint,
  baseFee: bigint | undefined,
  gasLimit: bigint,
): PoolTransaction[] {
  const runs = new Map<string, PoolTransaction[]>()
  for (const p of [...pool].sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : a.seq - b.seq))) {
    let run = runs.get(p.from)
    if (!run) runs.set(p.from, (run = []))
    run.push(p)
  }
  for (const [from, txs] of runs) {
    let next = nonceOf(from)
    const executable: PoolTransaction[] = []
    for (const p of txs) {
      if (p.nonce !== next || (baseFee !== undefined && p.feeCap < baseFee)) break
      executable.push(p)
      next++
    }
    runs.set(from, executable)
  }
  const picked: PoolTransaction[] = []
  let gasLeft = gasLimit
  for (;;) {
    let best: PoolTransaction | undefined
    for (const run of runs.values()) {
      const head = run[0]
      if (!head) continue
      if (!best) best = head
      else {
        const a = minerTip(head, baseFee)
        const b = minerTip(best, baseFee)
        if (a > b || (a === b && head.seq < best.seq)) best = head
      }
    }
    if (!best) return picked
    const run = runs.get(best.from)!
    if (best.gasLimit > gasLeft) {
      runs.delete(best.from)
      continue
    }
    run.shift()
    picked.push(best)
    gasLeft -= best.gasLimit
  }
}
