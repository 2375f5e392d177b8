import { anvilNumber } from '../devParams.ts'
import { defineMethod } from '../method.ts'

/**
 * Sets the chain's time: the next blocks take `timestamp` plus the seconds passed since (never
 * less than the head's timestamp + 1). Answers the chain's offset from the clock in seconds, as
 * Anvil does (0 when the time set is behind the clock).
 */
export const anvil_setTime = defineMethod({
  name: 'anvil_setTime',
  params: [anvilNumber(64)],
  run([timestamp], { chain }) {
    const offset = timestamp - chain.clockSeconds()
    chain.setMiningSettings({ offset, nextTimestamp: undefined })
    return offset > 0n ? Number(offset) : 0
  },
})
