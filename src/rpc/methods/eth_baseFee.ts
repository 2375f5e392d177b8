import { nextBaseFee } from '../../chain/fees/feeHistory.ts'
import { toQuantity } from '../../encoding/hex.ts'
import { defineMethod } from '../method.ts'

/** The base fee of the next block (EIP-1559's rule on the head), `null` when the next block is before London. */
export const eth_baseFee = defineMethod({
  name: 'eth_baseFee',
  params: [],
  run(_params, { chain }) {
    const head = chain.head
    const next = chain.common.getHardforkBy({ blockNumber: head.number + 1n, timestamp: head.timestamp })
    if (!chain.common.hardforkGteHardfork(next, 'london')) return null
    return toQuantity(nextBaseFee(chain, head))
  },
})
