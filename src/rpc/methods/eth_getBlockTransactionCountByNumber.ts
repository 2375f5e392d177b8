import { toQuantity } from '../../encoding/hex.ts'
import { defineMethod } from '../method.ts'
import { blockNumber } from '../validators.ts'

/** How many transactions a block (by number or tag) holds, or null past the head. */
export const eth_getBlockTransactionCountByNumber = defineMethod({
  name: 'eth_getBlockTransactionCountByNumber',
  params: [blockNumber],
  run([selector], { chain }) {
    const record = chain.resolve(selector)
    return record ? toQuantity(record.transactions.length) : null
  },
})
