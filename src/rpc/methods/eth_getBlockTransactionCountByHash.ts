import { toQuantity } from '../../encoding/hex.ts'
import { defineMethod } from '../method.ts'
import { hash } from '../validators.ts'

/** How many transactions a block (by hash) holds, or null for an unknown hash. */
export const eth_getBlockTransactionCountByHash = defineMethod({
  name: 'eth_getBlockTransactionCountByHash',
  params: [hash],
  run([blockHash], { chain }) {
    const record = chain.byHash(blockHash)
    return record ? toQuantity(record.transactions.length) : null
  },
})
