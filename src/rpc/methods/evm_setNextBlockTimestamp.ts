import { checkAfterHead } from '../dev.ts'
import { anvilNumber } from '../devParams.ts'
import { defineMethod } from '../method.ts'

/** The next block's timestamp (after the head's); the blocks after it go on from there. */
export const evm_setNextBlockTimestamp = defineMethod({
  name: 'evm_setNextBlockTimestamp',
  params: [anvilNumber(64)],
  run([timestamp], { chain }) {
    checkAfterHead(chain, timestamp)
    chain.setMiningSettings({ nextTimestamp: timestamp })
    return null
  },
})
