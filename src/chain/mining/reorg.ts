/**
 * What a reorg replaces and with what: the plan of `Chain.reorg` (the chain then mines it with
 * ./branch.ts and swaps it in). Semantics, as geth's `reorg` and its pool's reset treat a chain
 * reorganisation:
 *
 * - `depth` blocks from the head are replaced (at least 1; never a safe or finalized block, so at
 *   most `head - safe`: safe and finalized never move back);
 * - by a branch of `length` blocks (default `depth`; at most `MAX_REORG_LENGTH`) on their parent;
 * - holding, by default (`transactions: 'same'`), the same transactions block for block, minus
 *   those named in `drop`; or none (`'empty'`); or the raw transactions given, block by block
 *   (`[[raw...], [raw...]]`, decoded and checked as eth_sendRawTransaction's; each must run);
 * - the replaced blocks' transactions the branch does not include go back to the pool, as geth's
 *   pool re-injects them, except those named in `drop` (gone for good), or none with
 *   `repool: false` (Anvil's `anvil_reorg`).
 */
import type { Common } from '@ethereumjs/common'
import { bytesToHex } from '@ethereumjs/util'
import { keccak256 } from '../../encoding/keccak.ts'
import type { BlockRecord } from '../blocks/types.ts'
import { decodeRawTransaction, TxDecodeError } from '../pool/rawTransaction.ts'
import { TxRejectedError, validateTransaction } from '../pool/poolRules.ts'
import type { BranchTransaction } from './branch.ts'

/** The most blocks a reorg's new branch may have. */
export const MAX_REORG_LENGTH = 1024

export interface ReorgOptions {
  /** How many blocks from the head are replaced. */
  readonly depth: number
  /** How many blocks the new branch has (default `depth`). */
  readonly length?: number
  /** The new blocks' transactions: `'same'` (default), `'empty'`, or raw transactions per block. */
  readonly transactions?: 'same' | 'empty' | readonly (readonly Uint8Array[])[]
  /** Hashes of replaced transactions to leave out for good (not returned to the pool). */
  readonly drop?: readonly string[]
  /**
   * `false`: every replaced transaction the branch leaves out is gone, none returned to the pool
   * (Anvil's `anvil_reorg`). Default `true`, as geth's pool re-injects them.
   */
  readonly repool?: boolean
}

/** A reorg the chain cannot make; `field` names the option at fault. Nothing changed. */
export class ReorgError extends Error {
  override readonly name = 'ReorgError'
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message)
  }
}

export interface ReorgPlan {
  /** The last block kept. */
  readonly ancestor: BlockRecord
  /** The blocks replaced, oldest first. */
  readonly replaced: readonly BlockRecord[]
  /** The new blocks' transactions. */
  readonly blocks: readonly (readonly BranchTransaction[])[]
  /** Given transactions must all run. */
  readonly strict: boolean
  /** Lowercase hashes left out for good. */
  readonly dropped: ReadonlySet<string>
}

/** What the planner reads of the chain. */
export interface ReorgChain {
  readonly head: BlockRecord
  readonly safeNumber: bigint
  byNumber(n: bigint): BlockRecord | undefined
  /** Rules for a given raw transaction: the Common at the ancestor's fork and at its child's. */
  rulesOn(parent: BlockRecord): { common: Common; nextCommon: Common; gasLimit: bigint; chainId: bigint }
}

function isWhole(n: unknown, min: number, max: number): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= min && n <= max
}

/** The transactions of a block as the branch plans them. */
function transactionsOf(record: BlockRecord): BranchTransaction[] {
  return record.block.transactions.map((tx, i) => ({
    tx,
    raw: tx.serialize(),
    hash: record.transactions[i]!.hash,
    from: String(record.transactions[i]!.from).toLowerCase(),
  }))
}

function givenTransaction(raw: Uint8Array, where: string, chain: ReorgChain, ancestor: BlockRecord): BranchTransaction {
  try {
    const decoded = decodeRawTransaction(raw)
    const { tx, from } = validateTransaction(decoded.canonical, decoded, chain.rulesOn(ancestor))
    return { tx, raw: decoded.canonical, hash: bytesToHex(keccak256(decoded.canonical)), from }
  } catch (err) {
    if (err instanceof TxDecodeError || err instanceof TxRejectedError) throw new ReorgError(where, err.message)
    throw err
  }
}

/** Checks the options against the chain and plans the branch; throws `ReorgError` naming the option. */
export function planReorg(chain: ReorgChain, options: ReorgOptions): ReorgPlan {
  const head = chain.head.number
  const deepest = head - chain.safeNumber
  if (!isWhole(options.depth, 1, Number.MAX_SAFE_INTEGER) || BigInt(options.depth) > deepest) {
    throw new ReorgError(
      'depth',
      deepest < 1n
        ? `no block can be replaced: the head (${head}) is safe`
        : `must be an integer from 1 to ${deepest} (head ${head}, safe ${chain.safeNumber}: a reorg never replaces a safe or finalized block), got ${String(options.depth)}`,
    )
  }
  const depth = BigInt(options.depth)
  const length = options.length ?? options.depth
  if (!isWhole(length, 1, MAX_REORG_LENGTH)) throw new ReorgError('length', `must be an integer from 1 to ${MAX_REORG_LENGTH}, got ${String(length)}`)
  const ancestor = chain.byNumber(head - depth)!
  const replaced: BlockRecord[] = []
  for (let n = head - depth + 1n; n <= head; n++) replaced.push(chain.byNumber(n)!)
  const inReplaced = new Set(replaced.flatMap((r) => r.transactions.map((t) => t.hash)))
  const dropped = new Set<string>()
  for (const [i, hash] of (options.drop ?? []).entries()) {
    const h = String(hash).toLowerCase()
    if (!inReplaced.has(h)) throw new ReorgError(`drop[${i}]`, `${String(hash)} is not a transaction of the replaced blocks ${head - depth + 1n} to ${head}`)
    dropped.add(h)
  }
  const mode = options.transactions ?? 'same'
  let blocks: BranchTransaction[][]
  if (mode === 'same') {
    blocks = Array.from({ length }, (_, i) => (replaced[i] ? transactionsOf(replaced[i]).filter((t) => !dropped.has(t.hash)) : []))
  } else if (mode === 'empty') {
    blocks = Array.from({ length }, () => [])
  } else {
    if (mode.length > length) throw new ReorgError('transactions', `gives ${mode.length} blocks, more than the branch's ${length}`)
    blocks = Array.from({ length }, (_, b) => (mode[b] ?? []).map((raw, i) => givenTransaction(raw, `transactions[${b}][${i}]`, chain, ancestor)))
  }
  return { ancestor, replaced, blocks, strict: Array.isArray(mode), dropped }
}
