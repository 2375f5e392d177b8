import { devOf } from '../dev.ts'
import { anvilNumber } from '../devParams.ts'
import { InvalidParamsError } from '../errors.ts'
import { defineMethod } from '../method.ts'

/**
 * Mines a block every `seconds` (Anvil's unit; Hardhat's is ms, which viem's anvil mode does not
 * send), with whatever the pool holds; transactions wait for it (automine off). 0 stops the timer
 * and leaves automine off. At most a day.
 */
export const evm_setIntervalMining = defineMethod({
  name: 'evm_setIntervalMining',
  params: [anvilNumber(32)],
  run([seconds], ctx) {
    if (seconds > 86_400n) throw new InvalidParamsError(`interval: at most 86400 seconds, got ${seconds}`)
    devOf(ctx).setIntervalMining(Number(seconds))
    if (seconds === 0n) ctx.chain.setMiningMode('manual')
    return null
  },
})
