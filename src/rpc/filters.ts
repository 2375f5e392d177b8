/**
 * What the filter methods share: the id param, the table of the caller's filters, and geth's
 * `filter not found` (-32000) for an unknown, expired or dropped id.
 */
import type { FilterTable } from '../chain/filters/filterTable.ts'
import { FilterLimitError } from '../chain/filters/filterTable.ts'
import { LimitExceededError, ServerError } from './errors.ts'
import type { RpcContext } from './method.ts'
import { ArgumentError } from './params.ts'
import type { Param } from './params.ts'

/** geth's `rpc.ID`: any JSON string. */
export const filterId: Param<string> = {
  parse(v) {
    if (typeof v !== 'string') {
      const kind = Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v
      throw new ArgumentError(`json: cannot unmarshal ${kind} into Go value of type rpc.ID`)
    }
    return v
  },
}

export class FilterNotFoundError extends ServerError {
  constructor() {
    super('filter not found')
  }
}

/** The caller's filters; without any (no key known), every id is unknown. */
export function filtersOf(ctx: RpcContext): FilterTable {
  if (!ctx.filters) throw new FilterNotFoundError()
  return ctx.filters
}

/** Installs a filter, a full table answering the service's -32005. */
export function install(ctx: RpcContext, make: (table: FilterTable) => string): string {
  if (!ctx.filters) throw new ServerError('filters need an API key')
  try {
    return make(ctx.filters)
  } catch (err) {
    if (err instanceof FilterLimitError) throw new LimitExceededError(err.message)
    throw err
  }
}
