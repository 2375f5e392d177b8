import { defineMethod } from '../method.ts'
import { hash, uint } from '../validators.ts'

/** The transaction at an index of a block named by hash, or null when either does not exist. */
export const eth_getTransactionByBlockHashAndIndex = defineMethod({
  name: 'eth_getTransactionByBlockHashAndIndex',
  params: [hash, uint],
  run([blockHash, index], { chain }) {
    const record = chain.byHash(blockHash)
    if (!record || index >= BigInt(record.transactions.length)) return null
    return record.transactions[Number(index)]
  },
})
