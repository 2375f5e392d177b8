import { traceMined, TraceError } from '../../chain/tracing/replay.ts'
import { tracerFactory } from '../../chain/tracing/tracers.ts'
import { defineMethod } from '../method.ts'
import { RawJson } from '../../encoding/rawJson.ts'
import { budgetFor, traceFailure, traceOptions } from '../traceConfig.ts'
import { hash } from '../validators.ts'

/**
 * A mined transaction, re-executed with a tracer: from the state before it, as the chain's replay
 * points keep it (its block replayed up to it once, on the block's first trace: chain/tracing/replay.ts). The struct logger by default, or `callTracer`, `prestateTracer`.
 * A pooled or unknown transaction is -32000 `transaction not found`, as geth answers.
 */
export const debug_traceTransaction = defineMethod({
  name: 'debug_traceTransaction',
  params: [hash, traceOptions],
  async run([txHash, options], { chain, execution }) {
    try {
      const found = chain.transactionByHash(txHash)
      if (!found) throw new TraceError('transaction not found')
      const factory = tracerFactory(options?.request ?? { logger: defaultLogger() })
      const [traced] = await traceMined(chain, found.record, { first: found.index, last: found.index }, factory, budgetFor(options, execution), chain.replayPoints)
      return new RawJson(traced!.result)
    } catch (err) {
      throw traceFailure(err)
    }
  },
})

export function defaultLogger() {
  return { disableStorage: false, disableStack: false, enableMemory: false, enableReturnData: false, limit: 0 }
}
