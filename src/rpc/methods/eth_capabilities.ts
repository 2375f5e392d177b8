import { toQuantity } from '../../encoding/hex.ts'
import { defineMethod } from '../method.ts'

/**
 * geth's log index keeps a window of this many blocks by default (`--history.logs`), which a
 * default node reports; the double keeps every log, and no chain it serves is this long.
 */
const LOG_INDEX_WINDOW = 2_350_000

/**
 * Which history the node serves (execution-apis PR 755): everything, from genesis, as an archive
 * node with full history does; the logs with geth's default log index window.
 */
export const eth_capabilities = defineMethod({
  name: 'eth_capabilities',
  params: [],
  run(_params, { chain }) {
    const all = { disabled: false, oldestBlock: '0x0' }
    const head = chain.head
    const logsOldest = head.number + 1n <= BigInt(LOG_INDEX_WINDOW) ? 0n : head.number + 1n - BigInt(LOG_INDEX_WINDOW)
    return {
      head: { number: toQuantity(head.number), hash: head.hash },
      state: all,
      tx: all,
      logs: { disabled: false, oldestBlock: toQuantity(logsOldest), deleteStrategy: { type: 'window', retentionBlocks: toQuantity(LOG_INDEX_WINDOW) } },
      receipts: all,
      blocks: all,
      stateproofs: all,
    }
  },
})
