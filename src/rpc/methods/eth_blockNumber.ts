import { toQuantity } from '../../encoding/hex.ts'
import { defineMethod } from '../method.ts'

/** The number of the chain's head block. */
export const eth_blockNumber = defineMethod({
  name: 'eth_blockNumber',
  params: [],
  run: (_params, { chain }) => toQuantity(chain.head.number),
})
