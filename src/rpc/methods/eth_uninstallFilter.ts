import { filterId } from '../filters.ts'
import { defineMethod } from '../method.ts'

/** Removes a filter: true if there was one, false otherwise (never an error, as in geth). */
export const eth_uninstallFilter = defineMethod({
  name: 'eth_uninstallFilter',
  params: [filterId],
  run: ([id], ctx): boolean => ctx.filters?.uninstall(id) ?? false,
})
