import { defineMethod } from '../method.ts'

/** Always false: a fixture chain is complete from the start. */
export const eth_syncing = defineMethod({
  name: 'eth_syncing',
  params: [],
  run: () => false,
})
