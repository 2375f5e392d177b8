import { install } from '../filters.ts'
import { defineMethod } from '../method.ts'
import { optional } from '../params.ts'
import { bool } from '../validators.ts'

/**
 * A pending-transaction filter: eth_getFilterChanges then hands over the hash of each transaction
 * entering the pool, or (geth's optional `fullTx`, true) the transaction as a pending one renders.
 */
export const eth_newPendingTransactionFilter = defineMethod({
  name: 'eth_newPendingTransactionFilter',
  params: [optional(bool, false)],
  run: ([fullTx], ctx): string => install(ctx, (filters) => filters.installPendingTransactions(fullTx)),
})
