import type { FilterChange } from '../../chain/filters/filterTable.ts'
import { FilterNotFoundError, filterId, filtersOf } from '../filters.ts'
import { defineMethod } from '../method.ts'

/**
 * What a filter collected since the last call (logs, block hashes, transaction hashes or
 * transactions), `[]` when nothing; the filter's 15 minutes start again. `filter not found` for an
 * unknown, expired or dropped id.
 */
export const eth_getFilterChanges = defineMethod({
  name: 'eth_getFilterChanges',
  params: [filterId],
  run([id], ctx): FilterChange[] {
    const changes = filtersOf(ctx).takeChanges(id)
    if (!changes) throw new FilterNotFoundError()
    return changes
  },
})
