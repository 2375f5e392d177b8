import { checkSubscribableRange, filterCriteria } from '../filterCriteria.ts'
import { install } from '../filters.ts'
import { defineMethod } from '../method.ts'


/**
 * A log filter: eth_getFilterChanges then hands over the logs of each new block that match its
 * addresses and topics (and its numeric range, if any), and the logs of blocks a reorg or restore
 * removes, again with `removed: true`. Its range is checked as geth's `SubscribeLogs` does: latest
 * to latest, a number to latest, or number to number in order; `pending` is refused.
 */
export const eth_newFilter = defineMethod({
  name: 'eth_newFilter',
  params: [filterCriteria],
  run([criteria], ctx): string {
    checkSubscribableRange(criteria)
    return install(ctx, (filters) => filters.installLogs(criteria))
  },
})
