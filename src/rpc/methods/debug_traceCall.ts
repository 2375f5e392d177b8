import { traceCall } from '../../chain/tracing/traceCall.ts'
import { TraceError } from '../../chain/tracing/replay.ts'
import { tracerFactory } from '../../chain/tracing/tracers.ts'
import type { BlockSelector } from '../../chain/blocks/types.ts'
import type { CallOverrides } from '../../chain/execution/callArgs.ts'
import { OverrideError } from '../../chain/execution/overrides.ts'
import { callObject } from '../callObject.ts'
import { InvalidParamsError, ServerError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { optional } from '../params.ts'
import { parseBlockOverrides, parseStateOverride } from '../overrides.ts'
import { RawJson } from '../../encoding/rawJson.ts'
import { budgetFor, parseTraceOptions, traceFailure } from '../traceConfig.ts'
import type { TraceOptions } from '../traceConfig.ts'
import { blockNumberOrHash } from '../validators.ts'
import { defaultLogger } from './debug_traceTransaction.ts'
import { GAS_CAP_MULTIPLIER } from './eth_estimateGas.ts'

/**
 * geth's `TraceCallConfig`: the trace options, plus `stateOverrides` and `blockOverrides` as
 * eth_call takes them (chain/execution/overrides.ts), and `txIndex`, which the double refuses
 * rather than tracing as if it were not there.
 */
interface TraceCallOptions {
  trace: TraceOptions
  overrides: CallOverrides | undefined
}

const traceCallConfig = optional<TraceCallOptions | undefined, undefined>(
  {
    parse(v): TraceCallOptions {
      const trace = parseTraceOptions(v, 'tracers.TraceCallConfig')
      const o = v as Record<string, unknown>
      if (o.txIndex !== undefined && o.txIndex !== null) throw new InvalidParamsError('txIndex is not supported by this double')
      const state = parseStateOverride(o.stateOverrides)
      const block = parseBlockOverrides(o.blockOverrides)
      return { trace, overrides: state === undefined && block === undefined ? undefined : { state, block } }
    },
  },
  undefined,
)

function blockNotFound(selector: BlockSelector): TraceError {
  return new TraceError(selector.kind === 'hash' ? `block ${selector.hash} not found` : `block #${selector.kind === 'number' ? selector.number : 0} not found`)
}

/**
 * A call traced on the state after a block (number, tag or hash; required, as geth has it), run
 * as eth_call runs it: the same gas cap (10x the head's gas limit), fee defaults and errors.
 * `pending` is refused as geth refuses it.
 */
export const debug_traceCall = defineMethod({
  name: 'debug_traceCall',
  params: [callObject, blockNumberOrHash, traceCallConfig],
  async run([args, selector, options], { chain, execution }) {
    try {
      if (selector.kind === 'tag' && selector.tag === 'pending') throw new TraceError('tracing on top of pending is not supported')
      const record = chain.resolve(selector)
      if (!record) throw blockNotFound(selector)
      const factory = tracerFactory(options?.trace.request ?? { logger: defaultLogger() })
      const gasCap = chain.head.block.header.gasLimit * GAS_CAP_MULTIPLIER
      return new RawJson(await traceCall(chain, record, args, gasCap, options?.overrides, factory, budgetFor(options?.trace, execution)))
    } catch (err) {
      if (err instanceof OverrideError) throw new ServerError(err.message)
      throw traceFailure(err)
    }
  },
})
