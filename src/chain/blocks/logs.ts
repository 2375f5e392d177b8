/**
 * Log queries over what the chain kept at load: the logs of each block's rendered receipts, in
 * block and log-index order. Matching is geth's `filterLogs`: an address list matches any of its
 * addresses (empty: any address); topic position i matches any hash of its set (empty or null:
 * any topic), and a log with fewer topics than the filter has positions never matches.
 */
import type { BlockRecord, BlockTag } from './types.ts'
import type { LogJson } from './render.ts'

export interface LogFilter {
  /** Lowercase addresses; empty matches every address. */
  addresses: readonly string[]
  /** Per position, lowercase topic hashes; `null` (or empty) matches any topic there. */
  topics: readonly (readonly string[] | null)[]
}

/** A bound of a log query's range, as the request named it. */
export type FilterBlock = { kind: 'tag'; tag: BlockTag } | { kind: 'number'; number: bigint }

/** A log query (eth_getLogs, eth_newFilter) as geth's `FilterCriteria.UnmarshalJSON` leaves it. */
export interface FilterCriteria extends LogFilter {
  /** Lowercase; exclusive with the range. */
  blockHash?: string
  fromBlock?: FilterBlock
  toBlock?: FilterBlock
}

export function matchesLog(log: LogJson, filter: LogFilter): boolean {
  if (filter.addresses.length > 0 && !filter.addresses.includes(log.address)) return false
  if (filter.topics.length > log.topics.length) return false
  return filter.topics.every((set, i) => set === null || set.length === 0 || set.includes(log.topics[i]!))
}

/** The matching logs of one block, in log-index order. */
export function blockLogs(record: BlockRecord, filter: LogFilter): LogJson[] {
  const out: LogJson[] = []
  for (const receipt of record.receipts) {
    for (const log of receipt.logs) if (matchesLog(log, filter)) out.push(log)
  }
  return out
}
