import { traceMined, TraceError } from '../../chain/tracing/replay.ts'
import { tracerFactory } from '../../chain/tracing/tracers.ts'
import { defineMethod } from '../method.ts'
import { blockTraceJson, budgetFor, traceFailure, traceOptions } from '../traceConfig.ts'
import { blockNumber } from '../validators.ts'
import { defaultLogger } from './debug_traceTransaction.ts'

/**
 * Every transaction of a block (number or tag), each re-executed with the tracer: `[{txHash,
 * result}]`. Block 0 is -32000 `genesis is not traceable`, a block past the head `block #N not
 * found`.
 */
export const debug_traceBlockByNumber = defineMethod({
  name: 'debug_traceBlockByNumber',
  params: [blockNumber, traceOptions],
  async run([selector, options], { chain, execution }) {
    try {
      const record = chain.resolve(selector)
      if (!record) throw new TraceError(`block #${selector.kind === 'number' ? selector.number : 0} not found`)
      const factory = tracerFactory(options?.request ?? { logger: defaultLogger() })
      const last = record.transactions.length - 1
      if (record.number === 0n) throw new TraceError('genesis is not traceable')
      return blockTraceJson(last < 0 ? [] : await traceMined(chain, record, { first: 0, last }, factory, budgetFor(options, execution)))
    } catch (err) {
      throw traceFailure(err)
    }
  },
})
