import { defineMethod } from '../method.ts'

/** Back to the clock's time for the next blocks; true when an interval was set. */
export const anvil_removeBlockTimestampInterval = defineMethod({
  name: 'anvil_removeBlockTimestampInterval',
  params: [],
  run(_params, { chain }) {
    const had = chain.miningSettings.interval !== undefined
    chain.setMiningSettings({ interval: undefined })
    return had
  },
})
