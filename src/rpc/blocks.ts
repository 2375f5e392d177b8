/** The block a state-reading method reads, with geth's errors for one it cannot find (code -32000). */
import type { Chain } from '../chain/chain.ts'
import type { BlockRecord, BlockSelector } from '../chain/blocks/types.ts'
import type { BlockOverrides } from '../chain/execution/overrides.ts'
import { ServerError } from './errors.ts'

export class HeaderNotFoundError extends ServerError {
  constructor() {
    super('header not found')
  }
}

/** The default block of methods whose block parameter is optional. */
export const LATEST: BlockSelector = { kind: 'tag', tag: 'latest' }

/**
 * geth's `StateAndHeaderByNumberOrHash`: an unknown hash is `header for hash not found`, a number
 * past the head (or a tag the chain lacks) `header not found`.
 */
export function stateRecord(chain: Chain, selector: BlockSelector): BlockRecord {
  const record = chain.resolve(selector)
  if (record) return record
  if (selector.kind === 'hash') throw new ServerError('header for hash not found')
  throw new HeaderNotFoundError()
}

/** The `pending` tag: the pending block's state when the pool has transactions to apply. */
export const isPending = (selector: BlockSelector): boolean => selector.kind === 'tag' && selector.tag === 'pending'

/**
 * The block a state read at `selector` reads, with geth's `pending`: the pending block, the pool's
 * executable transactions mined on the head (`Chain.pendingBlock`), when the pool has any; else
 * as `stateRecord` (synchronously).
 */
export function readRecord(chain: Chain, selector: BlockSelector): BlockRecord | Promise<BlockRecord> {
  if (!isPending(selector)) return stateRecord(chain, selector)
  return chain.pendingBlock().then((pending) => pending ?? stateRecord(chain, selector))
}

/**
 * The block a call at `selector` runs in and on, and its block overrides: at `pending`, the
 * pending block (its number, time, base fee and state, the pool's transactions applied) when the
 * pool has executable transactions, else the next block's context over the head's state
 * (`pendingContext`); any other selector, its block and the call's own overrides.
 */
export async function callBlock(chain: Chain, selector: BlockSelector, block: BlockOverrides | undefined): Promise<{ record: BlockRecord; block: BlockOverrides | undefined }> {
  const pending = isPending(selector) ? await chain.pendingBlock() : undefined
  if (pending !== undefined) return { record: pending, block }
  return { record: stateRecord(chain, selector), block: pendingContext(chain, selector, block) }
}

/**
 * The block context of a call at `pending`, as geth's pending block gives it: the next block's
 * number, timestamp (as the miner would give it on the gateway's clock now), gas limit and base
 * fee, over the head's state; the call's own block overrides win. Other selectors keep `block`.
 */
export function pendingContext(chain: Chain, selector: BlockSelector, block: BlockOverrides | undefined): BlockOverrides | undefined {
  if (selector.kind !== 'tag' || selector.tag !== 'pending') return block
  const next = chain.nextBlock()
  const context: BlockOverrides = { number: next.number, time: next.timestamp, gasLimit: next.gasLimit }
  if (next.baseFee !== undefined) context.baseFeePerGas = next.baseFee
  return { ...context, ...block }
}
