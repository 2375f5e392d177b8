import { defineMethod } from '../method.ts'
import { blockNumberOrHashOrDecimal } from '../validators.ts'

/**
 * Every receipt of a block, in transaction order, or null when there is no such block. Answered
 * from what the chain rendered at load: nothing is re-executed.
 */
export const eth_getBlockReceipts = defineMethod({
  name: 'eth_getBlockReceipts',
  params: [blockNumberOrHashOrDecimal],
  run([selector], { chain }) {
    return chain.resolve(selector)?.receipts ?? null
  },
})
