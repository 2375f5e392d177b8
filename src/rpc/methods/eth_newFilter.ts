import type { FilterBlock } from '../../chain/blocks/logs.ts'
import { InvalidParamsError, ServerError } from '../errors.ts'
import { filterCriteria } from '../filterCriteria.ts'
import { install } from '../filters.ts'
import { defineMethod } from '../method.ts'

/** geth's `rpc.BlockNumber` of a bound: numbers as they are, `earliest` 0, other tags negative. */
function position(bound: FilterBlock | undefined): bigint | 'latest' | 'other' {
  if (bound === undefined) return 'latest'
  if (bound.kind === 'number') return bound.number
  if (bound.tag === 'earliest') return 0n
  return bound.tag === 'latest' ? 'latest' : 'other'
}

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
    if (criteria.fromBlock?.kind === 'tag' && criteria.fromBlock.tag === 'pending') throw new ServerError('pending logs are not supported')
    if (criteria.toBlock?.kind === 'tag' && criteria.toBlock.tag === 'pending') throw new ServerError('pending logs are not supported')
    const from = position(criteria.fromBlock)
    const to = position(criteria.toBlock)
    const ok = (from === 'latest' && to === 'latest') || (typeof from === 'bigint' && (to === 'latest' || (typeof to === 'bigint' && to >= from)))
    if (!ok) throw new InvalidParamsError('invalid block range params')
    return install(ctx, (filters) => filters.installLogs(criteria))
  },
})
