import { InvalidParamsError } from '../errors.ts'
import { anything } from '../devParams.ts'
import { defineMethod } from '../method.ts'
import { optional } from '../params.ts'

/**
 * Refused, as Anvil refuses it once EIP-1559 is active (every fork the double builds); the pool's
 * minimum tip is geth's 1 wei.
 */
export const anvil_setMinGasPrice = defineMethod({
  name: 'anvil_setMinGasPrice',
  params: [optional(anything, undefined)],
  run() {
    throw new InvalidParamsError('anvil_setMinGasPrice is not supported when EIP-1559 is active')
  },
})
