import { defineMethod } from '../method.ts'

/** Whether sent transactions are mined at once (the chain's `auto` mode). */
export const anvil_getAutomine = defineMethod({
  name: 'anvil_getAutomine',
  params: [],
  run: (_params, { chain }) => chain.miningMode === 'auto',
})
