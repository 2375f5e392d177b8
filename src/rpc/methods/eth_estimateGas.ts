import type { BlockSelector } from '../../chain/blocks/types.ts'
import { estimateGas, EstimateRevert } from '../../chain/execution/estimateGas.ts'
import { CallError } from '../../chain/execution/callArgs.ts'
import { OverrideError } from '../../chain/execution/overrides.ts'
import { ExecutionTimeout } from '../../chain/vm/executionGuard.ts'
import { toData, toQuantity } from '../../encoding/hex.ts'
import { revertMessage } from '../../encoding/revert.ts'
import { LATEST, callBlock } from '../blocks.ts'
import { callObject } from '../callObject.ts'
import { ExecutionRevertedError, ServerError } from '../errors.ts'
import { defineMethod, executionBudget } from '../method.ts'
import { optional } from '../params.ts'
import { blockOverridesParam, stateOverrideParam } from '../overrides.ts'
import { blockNumberOrHash } from '../validators.ts'

/** The hosted service caps `gas` of eth_estimateGas and eth_call at 10x the current block gas limit. */
export const GAS_CAP_MULTIPLIER = 10n

/**
 * The lowest gas limit (within geth's 1.5%) at which the call succeeds, found by executing it
 * (see chain/estimateGas.ts). A revert answers code 3 with geth's message and the revert data.
 * `safe` is answered as `finalized`, as the hosted service documents. The third and fourth
 * params are geth's state and block overrides, as for eth_call.
 */
export const eth_estimateGas = defineMethod({
  name: 'eth_estimateGas',
  params: [callObject, optional(blockNumberOrHash, LATEST), stateOverrideParam, blockOverridesParam],
  async run([args, selector, state, block], { chain, execution }) {
    const resolved: BlockSelector = selector.kind === 'tag' && selector.tag === 'safe' ? { kind: 'tag', tag: 'finalized' } : selector
    const { record, block: context } = await callBlock(chain, resolved, block)
    try {
      const { gas } = await estimateGas(chain, record, args, {
        gasCap: chain.head.block.header.gasLimit * GAS_CAP_MULTIPLIER,
        overrides: state === undefined && context === undefined ? undefined : { state, block: context },
        budget: executionBudget(execution),
      })
      return toQuantity(gas)
    } catch (err) {
      if (err instanceof EstimateRevert) throw new ExecutionRevertedError(revertMessage(err.data), toData(err.data))
      if (err instanceof CallError || err instanceof OverrideError || err instanceof ExecutionTimeout) throw new ServerError(err.message)
      throw err
    }
  },
})
