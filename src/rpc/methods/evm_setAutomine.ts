import { devOf } from '../dev.ts'
import { flag } from '../devParams.ts'
import { defineMethod } from '../method.ts'

/**
 * `true`: every sent transaction is mined at once (the chain's `auto` mode); `false`: they wait
 * for `evm_mine` (`manual`). Either stops interval mining.
 */
export const evm_setAutomine = defineMethod({
  name: 'evm_setAutomine',
  params: [flag],
  run([on], ctx) {
    devOf(ctx).setIntervalMining(0)
    ctx.chain.setMiningMode(on ? 'auto' : 'manual')
    return null
  },
})
