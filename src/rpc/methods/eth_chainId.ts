import { toQuantity } from '../../encoding/hex.ts'
import { defineMethod } from '../method.ts'

/** The chain id of the network (EIP-695), as a quantity. */
export const eth_chainId = defineMethod({
  name: 'eth_chainId',
  params: [],
  run: (_params, { chain }) => toQuantity(chain.chainId),
})
