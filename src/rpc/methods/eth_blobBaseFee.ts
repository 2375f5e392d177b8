import { toQuantity } from '../../encoding/hex.ts'
import { defineMethod } from '../method.ts'

/** The blob base fee of the head block (geth's `CalcBlobFee` of the current header), `null` before Cancun. */
export const eth_blobBaseFee = defineMethod({
  name: 'eth_blobBaseFee',
  params: [],
  run(_params, { chain }) {
    const header = chain.head.block.header
    return header.excessBlobGas === undefined ? null : toQuantity(header.getBlobGasPrice())
  },
})
