import { CallRejected, runCall } from '../../chain/execution/call.ts'
import { toData } from '../../encoding/hex.ts'
import { revertMessage } from '../../encoding/revert.ts'
import { callObject } from '../callObject.ts'
import { ExecutionRevertedError, InvalidParamsError, ServerError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { optional } from '../params.ts'
import type { Param } from '../params.ts'
import { blockNumberOrHash } from '../validators.ts'
import { GAS_CAP_MULTIPLIER } from './eth_estimateGas.ts'
import { LATEST, stateRecord } from '../blocks.ts'

/**
 * geth's third and fourth eth_call params (state and block overrides). The double cannot apply
 * them; it says so rather than answering as if they were not there. Empty objects are accepted.
 */
function unsupportedOverride(what: string): Param<undefined> {
  return {
    parse(v) {
      if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0) return undefined
      throw new InvalidParamsError(`${what} overrides are not supported by this double`)
    },
  }
}

/**
 * Executes a call on the state of a block (default `latest`) and returns what it returned. Its
 * gas is the call's `gas` or, absent, the gas cap, and at most the cap: 10x the head block's gas
 * limit, as for eth_estimateGas (under Osaka also at most 2^24, see chain/call.ts). A revert
 * answers code 3 with geth's message and the revert data; another halt answers -32000 with geth's
 * name for it (`out of gas`, `invalid jump destination`, ...); a call geth refuses before running
 * it answers -32000 with geth's words (`err: insufficient funds for gas * price + value: ...`).
 */
export const eth_call = defineMethod({
  name: 'eth_call',
  params: [
    callObject,
    optional(blockNumberOrHash, LATEST),
    optional(unsupportedOverride('state'), undefined),
    optional(unsupportedOverride('block'), undefined),
  ],
  async run([args, selector], { chain }) {
    const record = stateRecord(chain, selector)
    const gasCap = chain.head.block.header.gasLimit * GAS_CAP_MULTIPLIER
    let outcome
    try {
      ;({ outcome } = await runCall(chain, record, args, gasCap))
    } catch (err) {
      if (err instanceof CallRejected) throw new ServerError(err.message)
      throw err
    }
    if (outcome.reverted) throw new ExecutionRevertedError(revertMessage(outcome.returnValue), toData(outcome.returnValue))
    if (outcome.failed) throw new ServerError(outcome.error ?? 'execution failed')
    return toData(outcome.returnValue)
  },
})
