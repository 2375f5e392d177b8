/**
 * A log query as eth_getLogs answers it, and eth_getFilterLogs with a filter's criteria: one block
 * by `blockHash`, or the blocks `fromBlock` to `toBlock` (default `latest` both), with geth's
 * errors and the service's result limit.
 *
 * The limit (shared/reference/service-surfaces.md §3): more than 10,000 logs is refused with
 * -32005 and the service's hint, a range from the query's first block that stays within it:
 * `query returned more than 10000 results. Try with this block range [0xFROM, 0xTO].`, data
 * `{from, limit, to}` (hex digits in capitals, as observed).
 */
import type { ChainReader } from '../chain/blocks/chainReader.ts'
import { blockLogs, matchesLog } from '../chain/blocks/logs.ts'
import type { FilterBlock, FilterCriteria, LogFilter } from '../chain/blocks/logs.ts'
import type { LogJson } from '../chain/blocks/render.ts'
import type { BlockSelector } from '../chain/blocks/types.ts'
import { InvalidParamsError, LimitExceededError, ServerError } from './errors.ts'
import type { RpcError } from './errors.ts'

/** The most logs one query answers. */
export const LOG_QUERY_RESULT_LIMIT = 10_000

const upperHex = (n: bigint): string => `0x${n.toString(16).toUpperCase()}`

function tooMany(from: bigint, to: bigint): LimitExceededError {
  const range = { from: upperHex(from), to: upperHex(to) }
  return new LimitExceededError(
    `query returned more than ${LOG_QUERY_RESULT_LIMIT} results. Try with this block range [${range.from}, ${range.to}].`,
    { from: range.from, limit: LOG_QUERY_RESULT_LIMIT, to: range.to },
  )
}

/**
 * The most logs one answer holds and the error past it, naming the widest range from the query's
 * first block that stays within it (`RpcContext.logResults`: a provider profile's; default the
 * service's).
 */
export interface LogResultLimit {
  readonly max: number
  refuse(from: bigint, to: bigint): RpcError
}

export const SERVICE_LOG_RESULTS: LogResultLimit = { max: LOG_QUERY_RESULT_LIMIT, refuse: tooMany }

/** geth's range checks answer -32602 (execution-apis requires it), its other refusals -32000. */
function resolveBound(chain: ChainReader, bound: FilterBlock): bigint {
  if (bound.kind === 'number') return bound.number
  const record = chain.resolve(bound as BlockSelector)
  if (!record) throw new ServerError(`${bound.tag} header not found`)
  return record.number
}

/** The matching logs of blocks `from` to `to`, refused past the limit. */
function limitedRangeLogs(chain: ChainReader, from: bigint, to: bigint, filter: LogFilter, limit: LogResultLimit): LogJson[] {
  const out: LogJson[] = []
  for (let n = from; n <= to; n++) {
    const record = chain.byNumber(n)
    if (!record) continue
    for (const receipt of record.receipts) {
      for (const log of receipt.logs) {
        if (!matchesLog(log, filter)) continue
        if (out.length === limit.max) throw limit.refuse(from, n > from ? n - 1n : from)
        out.push(log)
      }
    }
  }
  return out
}

/**
 * Logs matching `criteria`. Errors as geth: a range past the head or reversed is -32602,
 * `pending` is refused (logs are never pending here), an unknown block hash is `unknown block`;
 * more than 10,000 logs is the service's -32005.
 */
export function queryLogs(chain: ChainReader, criteria: FilterCriteria, limit: LogResultLimit = SERVICE_LOG_RESULTS): LogJson[] {
  if (criteria.blockHash !== undefined) {
    const record = chain.byHash(criteria.blockHash)
    if (!record) throw new ServerError('unknown block')
    const logs = blockLogs(record, criteria)
    if (logs.length > limit.max) throw limit.refuse(record.number, record.number)
    return logs
  }
  const from = criteria.fromBlock ?? { kind: 'tag', tag: 'latest' }
  const to = criteria.toBlock ?? { kind: 'tag', tag: 'latest' }
  if (from.kind === 'number' && to.kind === 'number' && from.number > 0n && to.number > 0n && from.number > to.number) {
    throw new InvalidParamsError('invalid block range params')
  }
  if ((from.kind === 'tag' && from.tag === 'pending') || (to.kind === 'tag' && to.tag === 'pending')) {
    throw new ServerError('pending logs are not supported')
  }
  const begin = resolveBound(chain, from)
  const end = resolveBound(chain, to)
  const head = chain.head.number
  if (begin > head || end > head) throw new InvalidParamsError('block range extends beyond current head block')
  if (begin > end) throw new InvalidParamsError('invalid block range params')
  return limitedRangeLogs(chain, begin, end, criteria, limit)
}
