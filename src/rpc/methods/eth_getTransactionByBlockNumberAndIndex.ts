import { defineMethod } from '../method.ts'
import { blockNumber, uint } from '../validators.ts'

/** The transaction at an index of a block, or null when the block or the index does not exist. */
export const eth_getTransactionByBlockNumberAndIndex = defineMethod({
  name: 'eth_getTransactionByBlockNumberAndIndex',
  params: [blockNumber, uint],
  run([selector, index], { chain }) {
    const record = chain.resolve(selector)
    if (!record || index >= BigInt(record.transactions.length)) return null
    return record.transactions[Number(index)]
  },
})
