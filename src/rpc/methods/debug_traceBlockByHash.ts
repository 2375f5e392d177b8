import { traceMined, TraceError } from '../../chain/tracing/replay.ts'
import { tracerFactory } from '../../chain/tracing/tracers.ts'
import { defineMethod } from '../method.ts'
import { blockTraceJson, budgetFor, traceFailure, traceOptions } from '../traceConfig.ts'
import { hash } from '../validators.ts'
import { defaultLogger } from './debug_traceTransaction.ts'

/** debug_traceBlockByNumber, the block named by its hash (-32000 `block 0x... not found`). */
export const debug_traceBlockByHash = defineMethod({
  name: 'debug_traceBlockByHash',
  params: [hash, traceOptions],
  async run([blockHash, options], { chain, execution }) {
    try {
      const record = chain.byHash(blockHash)
      if (!record) throw new TraceError(`block ${blockHash} not found`)
      const factory = tracerFactory(options?.request ?? { logger: defaultLogger() })
      if (record.number === 0n) throw new TraceError('genesis is not traceable')
      const last = record.transactions.length - 1
      return blockTraceJson(last < 0 ? [] : await traceMined(chain, record, { first: 0, last }, factory, budgetFor(options, execution)))
    } catch (err) {
      throw traceFailure(err)
    }
  },
})
