import { CallRejected, runCall } from '../../chain/execution/call.ts'
import { OverrideError } from '../../chain/execution/overrides.ts'
import { ExecutionTimeout } from '../../chain/vm/executionGuard.ts'
import { toData } from '../../encoding/hex.ts'
import { revertMessage } from '../../encoding/revert.ts'
import { callObject } from '../callObject.ts'
import { ExecutionRevertedError, ServerError } from '../errors.ts'
import { defineMethod, executionBudget } from '../method.ts'
import { optional } from '../params.ts'
import { blockOverridesParam, stateOverrideParam } from '../overrides.ts'
import { blockNumberOrHash } from '../validators.ts'
import { GAS_CAP_MULTIPLIER } from './eth_estimateGas.ts'
import { LATEST, callBlock } from '../blocks.ts'

/**
 * Executes a call on the state of a block (default `latest`) and returns what it returned. Its
 * gas is the call's `gas` or, absent, the gas cap, and at most the cap: 10x the head block's gas
 * limit, as for eth_estimateGas (under Osaka not held to 2^24, as geth's calls are not: see
 * chain/execution/call.ts). A revert
 * answers code 3 with geth's message and the revert data; another halt answers -32000 with geth's
 * name for it (`out of gas`, `invalid jump destination`, ...); a call geth refuses before running
 * it answers -32000 with geth's words (`err: insufficient funds for gas * price + value: ...`).
 *
 * The third and fourth params are geth's state and block overrides (chain/execution/overrides.ts),
 * applied to this call's own state; an override geth refuses answers -32000 in its words.
 */
export const eth_call = defineMethod({
  name: 'eth_call',
  params: [
    callObject,
    optional(blockNumberOrHash, LATEST),
    stateOverrideParam,
    blockOverridesParam,
  ],
  async run([args, selector, state, block], ctx) {
    const { chain, execution } = ctx
    const { record, block: context } = await callBlock(chain, selector, block)
    const gasCap = chain.head.block.header.gasLimit * GAS_CAP_MULTIPLIER
    const overrides = state === undefined && context === undefined ? undefined : { state, block: context }
    let outcome
    try {
      const result = await runCall(chain, record, args, gasCap, overrides, executionBudget(execution))
      outcome = result.outcome
      if (result.console.length > 0) ctx.console?.(result.console, 'call')
    } catch (err) {
      if (err instanceof CallRejected || err instanceof OverrideError || err instanceof ExecutionTimeout) throw new ServerError(err.message)
      throw err
    }
    if (outcome.reverted) throw new ExecutionRevertedError(revertMessage(outcome.returnValue), toData(outcome.returnValue))
    if (outcome.failed) throw new ServerError(outcome.error ?? 'execution failed')
    return toData(outcome.returnValue)
  },
})
