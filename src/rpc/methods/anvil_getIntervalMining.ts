import { devOf } from '../dev.ts'
import { defineMethod } from '../method.ts'

/** The interval mining period in seconds, or null when blocks are not mined on a timer. */
export const anvil_getIntervalMining = defineMethod({
  name: 'anvil_getIntervalMining',
  params: [],
  run: (_params, ctx) => devOf(ctx).intervalMining(),
})
