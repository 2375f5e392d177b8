import { RawJson } from '../../encoding/rawJson.ts'
import { defineMethod } from '../method.ts'
import { blockNumberOrHashOrDecimal } from '../validators.ts'

/**
 * Every receipt of a block, in transaction order, or null when there is no such block. Answered
 * from what the chain rendered at load: nothing is re-executed, and the JSON text, kept by the
 * chain's store (chain/store/renderedJson.ts), is spliced into every response.
 */
export const eth_getBlockReceipts = defineMethod({
  name: 'eth_getBlockReceipts',
  params: [blockNumberOrHashOrDecimal],
  run([selector], { chain }) {
    const record = chain.resolve(selector)
    if (!record) return null
    return chain.renderedJson(record, 'receipts', () => RawJson.of(record.receipts))
  },
})
