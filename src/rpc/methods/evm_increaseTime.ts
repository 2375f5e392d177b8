import { anvilNumber } from '../devParams.ts'
import { defineMethod } from '../method.ts'

/**
 * Moves the chain's time forward by `seconds`: the next blocks take the clock plus the chain's
 * offset. Answers the offset now, in seconds (a number, as Anvil). The gateway's clock (credits'
 * day) does not move: `POST /_double/clock` moves that.
 */
export const evm_increaseTime = defineMethod({
  name: 'evm_increaseTime',
  params: [anvilNumber(63)],
  run([seconds], { chain }) {
    const { offset } = chain.setMiningSettings({ offset: chain.miningSettings.offset + seconds })
    return Number(offset)
  },
})
