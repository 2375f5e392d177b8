import type { BlockRecord } from '../../chain/blocks/types.ts'
import { defineMethod } from '../method.ts'
import { RawJson } from '../rawJson.ts'
import { blockNumberOrHashOrDecimal } from '../validators.ts'

/** Each block's receipts as JSON text, written on the first request (blocks added later too). */
const receiptsJson = new WeakMap<BlockRecord, RawJson>()

/**
 * Every receipt of a block, in transaction order, or null when there is no such block. Answered
 * from what the chain rendered at load: nothing is re-executed, and the JSON text is written once
 * per block and spliced into every response.
 */
export const eth_getBlockReceipts = defineMethod({
  name: 'eth_getBlockReceipts',
  params: [blockNumberOrHashOrDecimal],
  run([selector], { chain }) {
    const record = chain.resolve(selector)
    if (!record) return null
    let json = receiptsJson.get(record)
    if (!json) receiptsJson.set(record, (json = RawJson.of(record.receipts)))
    return json
  },
})
