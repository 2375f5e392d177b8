/**
 * Log queries over what the chain kept at load: the logs of each block's rendered receipts, in
 * block and log-index order. Matching is geth's `filterLogs`: an address list matches any of its
 * addresses (empty: any address); topic position i matches any hash of its set (empty or null:
 * any topic), and a log with fewer topics than the filter has positions never matches.
 */
import type { ChainReader } from './chainReader.ts'
import type { BlockRecord } from './types.ts'
import type { LogJson } from './render.ts'

export interface LogFilter {
  /** Lowercase addresses; empty matches every address. */
  addresses: readonly string[]
  /** Per position, lowercase topic hashes; `null` (or empty) matches any topic there. */
  topics: readonly (readonly string[] | null)[]
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

/** The matching logs of blocks `from` to `to` (inclusive, both within the chain). */
export function rangeLogs(chain: ChainReader, from: bigint, to: bigint, filter: LogFilter): LogJson[] {
  const out: LogJson[] = []
  for (let n = from; n <= to; n++) {
    const record = chain.byNumber(n)
    if (record) out.push(...blockLogs(record, filter))
  }
  return out
}
