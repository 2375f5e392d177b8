import { defineMethod } from '../method.ts'
import { hash } from '../validators.ts'

/** A transaction by hash, as rendered when its block was loaded or mined, or null. */
export const eth_getTransactionByHash = defineMethod({
  name: 'eth_getTransactionByHash',
  params: [hash],
  run([txHash], { chain }) {
    const found = chain.transactionByHash(txHash)
    return found ? found.record.transactions[found.index] : null
  },
})
