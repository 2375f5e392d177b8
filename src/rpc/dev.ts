/**
 * Shared by the test methods (`anvil_*`, `evm_*`, `hardhat_*`, served only on the test endpoint):
 * the dev context, state edits with their errors in JSON-RPC's shape, Anvil's timestamp error.
 */
import type { Chain } from '../chain/chain.ts'
import { StateEditError } from '../chain/vm/stateEdits.ts'
import type { StateEdit } from '../chain/vm/stateEdits.ts'
import { InvalidParamsError, RpcError } from './errors.ts'
import type { DevContext, RpcContext } from './method.ts'

/** The test endpoint's context; a test method reached without it is a bug of its caller. */
export function devOf(ctx: RpcContext): DevContext {
  if (!ctx.dev) throw new RpcError(-32601, 'test methods are served on the test endpoint only')
  return ctx.dev
}

/** Applies state edits to the head (`Chain.editState`); a malformed edit is -32602. */
export async function editHead(chain: Chain, edits: readonly StateEdit[]): Promise<void> {
  try {
    await chain.editState(edits)
  } catch (err) {
    if (err instanceof StateEditError) throw new InvalidParamsError(err.message)
    throw err
  }
}

/** Anvil's refusal of a timestamp not after the head's (the double also refuses an equal one). */
export function checkAfterHead(chain: Chain, timestamp: bigint): void {
  if (timestamp <= chain.head.timestamp) {
    throw new InvalidParamsError(`Timestamp error: ${timestamp} is lower than or equal to previous block's timestamp`)
  }
}

/** A block count or seconds the double handles at once: a bound on the time one call can take. */
export const MAX_BLOCKS_PER_CALL = 10_000
