import { install } from '../filters.ts'
import { defineMethod } from '../method.ts'

/** A block filter: eth_getFilterChanges then hands over the hash of each new block. */
export const eth_newBlockFilter = defineMethod({
  name: 'eth_newBlockFilter',
  params: [],
  run: (_params, ctx): string => install(ctx, (filters) => filters.installBlocks()),
})
