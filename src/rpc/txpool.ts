/**
 * The pool as geth's txpool_* methods show it: per sender, the transactions that follow the
 * head state's nonce without a gap are `pending` (the next block could take them), the others
 * `queued`. Blob transactions live in geth's blob pool, whose content geth does not list (it
 * answers empty maps) but whose size `txpool_status` counts: the same here.
 */
import { TransactionType } from '@ethereumjs/tx'
import { toChecksumAddress } from '@ethereumjs/util'
import type { Chain, PendingTransaction } from '../chain/chain.ts'

export interface PoolSplit {
  pending: PendingTransaction[]
  queued: PendingTransaction[]
}

/** The pool's transactions (of one sender, when `from` is given), split as geth splits them. */
export async function splitPool(chain: Chain, from?: string): Promise<PoolSplit> {
  const split: PoolSplit = { pending: [], queued: [] }
  const next = new Map<string, bigint>()
  for (const p of chain.pending) {
    if (from !== undefined && p.from !== from) continue
    let nonce = next.get(p.from)
    if (nonce === undefined) next.set(p.from, (nonce = await chain.pendingNonce(p.from)))
    ;(p.nonce < nonce ? split.pending : split.queued).push(p)
  }
  return split
}

export function isBlob(p: PendingTransaction): boolean {
  return p.tx.type === TransactionType.BlobEIP4844
}

/** `{nonce: value}` for one sender's transactions (blob ones left out), nonces in decimal as geth keys them. */
export function byNonce<T>(txs: readonly PendingTransaction[], value: (p: PendingTransaction) => T): Record<string, T> {
  const out: Record<string, T> = {}
  for (const p of txs) if (!isBlob(p)) out[p.nonce.toString()] = value(p)
  return out
}

/** `{checksummed sender: {nonce: value}}`, as geth's `account.Hex()` keys them. */
export function bySender<T>(txs: readonly PendingTransaction[], value: (p: PendingTransaction) => T): Record<string, Record<string, T>> {
  const groups = new Map<string, PendingTransaction[]>()
  for (const p of txs) {
    if (isBlob(p)) continue
    let group = groups.get(p.from)
    if (!group) groups.set(p.from, (group = []))
    group.push(p)
  }
  const out: Record<string, Record<string, T>> = {}
  for (const [sender, group] of groups) out[toChecksumAddress(sender)] = byNonce(group, value)
  return out
}
