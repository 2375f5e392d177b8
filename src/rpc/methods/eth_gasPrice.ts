import { suggestTipCap } from '../../chain/fees/gasPrice.ts'
import { toQuantity } from '../../encoding/hex.ts'
import { defineMethod } from '../method.ts'

/**
 * geth's legacy gas price suggestion: the oracle's tip (see chain/gasPrice.ts) plus the head
 * block's base fee (none before London).
 */
export const eth_gasPrice = defineMethod({
  name: 'eth_gasPrice',
  params: [],
  run: (_params, { chain }) => toQuantity(suggestTipCap(chain) + (chain.head.block.header.baseFeePerGas ?? 0n)),
})
