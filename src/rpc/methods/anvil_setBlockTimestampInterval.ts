import { anvilNumber } from '../devParams.ts'
import { defineMethod } from '../method.ts'

/** Every next block `seconds` after its parent (at least 1), until removed. */
export const anvil_setBlockTimestampInterval = defineMethod({
  name: 'anvil_setBlockTimestampInterval',
  params: [anvilNumber(63)],
  run([seconds], { chain }) {
    chain.setMiningSettings({ interval: seconds })
    return null
  },
})
