import { suggestTipCap } from '../../chain/fees/gasPrice.ts'
import { toQuantity } from '../../encoding/hex.ts'
import { defineMethod } from '../method.ts'

/** geth's tip suggestion for EIP-1559 transactions (see chain/gasPrice.ts). */
export const eth_maxPriorityFeePerGas = defineMethod({
  name: 'eth_maxPriorityFeePerGas',
  params: [],
  run: (_params, { chain }) => toQuantity(suggestTipCap(chain)),
})
