import { defineMethod } from '../method.ts'
import { hash } from '../validators.ts'

/** A transaction's receipt by its hash, kept from the block's execution (nothing re-runs), or null. */
export const eth_getTransactionReceipt = defineMethod({
  name: 'eth_getTransactionReceipt',
  params: [hash],
  run([txHash], { chain }) {
    const found = chain.transactionByHash(txHash)
    return found ? found.record.receipts[found.index] : null
  },
})
