/**
 * A new branch for a reorg: blocks mined one after another on an earlier block (the ancestor, with
 * the state edits made on it), each with the transactions planned for it, as `mineChild` mines on
 * the head. Their headers carry
 * `extraData` "gateway-double reorg <n>": a branch of the same transactions at the same times
 * would otherwise be the very blocks it replaces.
 *
 * A planned transaction EthereumJS refuses (a nonce gap once an earlier one is left out, a
 * balance spent differently) is left out of its block, and so are the sender's later ones in that
 * block; they come back in `left`. With `strict`, a refusal refuses the whole branch instead
 * (`BranchRefusedError`, naming the transaction): transactions a test gave must all run.
 */
import type { Common } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { VM } from '@ethereumjs/vm'
import type { BlockRecord } from '../blocks/types.ts'
import { childHeaderFields, MiningError, mineChild } from './mining.ts'

/** A transaction planned for the branch. */
export interface BranchTransaction {
  readonly tx: TypedTransaction
  /** As blocks hold it. */
  readonly raw: Uint8Array
  /** Lowercase hex. */
  readonly hash: string
  /** Lowercase sender. */
  readonly from: string
}

export interface BranchPlan {
  /** The block the branch grows from. */
  readonly ancestor: BlockRecord
  /** The new blocks' transactions, block by block (an empty list: an empty block). */
  readonly blocks: readonly (readonly BranchTransaction[])[]
  /** Refuse the branch when a transaction is refused, rather than leave it out. */
  readonly strict: boolean
  /** Tells this branch's blocks from any other's (in their `extraData`). */
  readonly branch: number
}

export interface BranchRules {
  /** A Common at the fork of a block at that height and time. */
  commonAt(number: bigint, timestamp: bigint): Common
  /** The timestamp of a block mined on `parent` now (`max(parent + 1, clock)`). */
  timestampOn(parent: BlockRecord): bigint
  /** The fee recipient of mined blocks. */
  readonly coinbase: string
  /** The branch's gas limit (a test's setting); default each parent's. */
  readonly gasLimit?: bigint
  /** The state the first block executes on: the ancestor's, with the state edits made on it. */
  readonly ancestorRoot: Uint8Array
}

/** A transaction of a strict plan did not run: nothing of the branch is kept. */
export class BranchRefusedError extends Error {
  override readonly name = 'BranchRefusedError'
  /** Where it was planned: block `block` (0 = the first new one), position `index`. */
  constructor(
    readonly block: number,
    readonly index: number,
    reason: string,
  ) {
    super(reason)
  }
}

/**
 * Mines the branch; the VM's state is left at its last block's root. Returns its records, oldest
 * first, and the transactions left out (non-strict plans), in their planned order.
 */
export async function mineBranch(vm: VM, rules: BranchRules, plan: BranchPlan): Promise<{ records: BlockRecord[]; left: BranchTransaction[] }> {
  const extraData = new TextEncoder().encode(`gateway-double reorg ${plan.branch}`)
  const records: BlockRecord[] = []
  const left: BranchTransaction[] = []
  let parent = plan.ancestor
  for (const [b, planned] of plan.blocks.entries()) {
    const timestamp = rules.timestampOn(parent)
    const common = rules.commonAt(parent.number + 1n, timestamp)
    const fields = { ...childHeaderFields(parent, common, timestamp, rules.coinbase, { gasLimit: rules.gasLimit }), extraData }
    const on = parent
    const root = on === plan.ancestor ? rules.ancestorRoot : on.block.header.stateRoot
    const mine = (txs: readonly BranchTransaction[]) => mineChild(vm, on, root, common, fields, txs)
    let record: BlockRecord
    try {
      record = await mine(planned)
    } catch (err) {
      if (!(err instanceof MiningError)) throw err
      const kept: BranchTransaction[] = []
      const refusedSenders = new Set<string>()
      for (const [i, t] of planned.entries()) {
        if (refusedSenders.has(t.from)) {
          left.push(t)
          continue
        }
        try {
          await mine([...kept, t])
          kept.push(t)
        } catch (e) {
          if (!(e instanceof MiningError)) throw e
          if (plan.strict) throw new BranchRefusedError(b, i, e.message)
          refusedSenders.add(t.from)
          left.push(t)
        }
      }
      record = await mine(kept)
    }
    records.push(record)
    parent = record
  }
  return { records, left }
}
