import { defineMethod } from '../method.ts'
import { hash } from '../validators.ts'

/**
 * A transaction by hash, as rendered when its block was loaded or mined; a transaction waiting in
 * the pool (manual mining) as geth shows a pending one (block fields null); else null.
 */
export const eth_getTransactionByHash = defineMethod({
  name: 'eth_getTransactionByHash',
  params: [hash],
  run([txHash], { chain }) {
    const found = chain.transactionByHash(txHash)
    if (found) return found.record.transactions[found.index]
    return chain.pendingByHash(txHash)?.json ?? null
  },
})
