import { anvilNumber } from '../devParams.ts'
import { InvalidParamsError } from '../errors.ts'
import { defineMethod } from '../method.ts'

/** The gas limit of the next blocks (at least 21,000); answers true, as Anvil does. */
export const evm_setBlockGasLimit = defineMethod({
  name: 'evm_setBlockGasLimit',
  params: [anvilNumber(63)],
  run([gasLimit], { chain }) {
    if (gasLimit < 21_000n) throw new InvalidParamsError(`gas limit: at least 21000, got ${gasLimit}`)
    chain.setMiningSettings({ gasLimit })
    return true
  },
})
