import { anvilNumber } from '../devParams.ts'
import { InvalidParamsError } from '../errors.ts'
import { defineMethod } from '../method.ts'

/** The next block's base fee (then EIP-1559 goes on from it); the pool checks fee caps against it. */
export const anvil_setNextBlockBaseFeePerGas = defineMethod({
  name: 'anvil_setNextBlockBaseFeePerGas',
  params: [anvilNumber(256)],
  run([fee], { chain }) {
    if (chain.head.block.header.baseFeePerGas === undefined) throw new InvalidParamsError('the chain has no base fee before London')
    chain.setMiningSettings({ nextBaseFee: fee })
    return null
  },
})
