import type { LogJson } from '../../chain/blocks/render.ts'
import { FilterNotFoundError, filterId, filtersOf } from '../filters.ts'
import { queryLogs } from '../logQuery.ts'
import { defineMethod } from '../method.ts'

/**
 * Every log a log filter's criteria match now, as eth_getLogs with them answers (its errors and
 * its 10,000-log limit). `filter not found` for any other id. Polling it does not keep the filter
 * alive (only eth_getFilterChanges does, as in geth).
 */
export const eth_getFilterLogs = defineMethod({
  name: 'eth_getFilterLogs',
  params: [filterId],
  run([id], ctx): LogJson[] {
    const criteria = filtersOf(ctx).logCriteria(id)
    if (!criteria) throw new FilterNotFoundError()
    return queryLogs(ctx.chain, criteria, ctx.logResults)
  },
})
