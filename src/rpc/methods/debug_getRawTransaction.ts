import { rawTransaction } from '../../chain/blocks/rawEncoding.ts'
import { toData } from '../../encoding/hex.ts'
import { defineMethod } from '../method.ts'
import { hash } from '../validators.ts'

/** A transaction's binary form, mined or pooled (a pooled blob transaction without its sidecar); `null` if unknown. */
export const debug_getRawTransaction = defineMethod({
  name: 'debug_getRawTransaction',
  params: [hash],
  run([txHash], { chain }) {
    const found = chain.transactionByHash(txHash)
    if (found) return toData(rawTransaction(found.record, found.index))
    const pooled = chain.pendingByHash(txHash)
    return pooled ? toData(pooled.raw) : null
  },
})
