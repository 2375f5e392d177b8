/**
 * What filters hand over (`FilterChange`), what a table counts of it (the estimated bytes, as if
 * each change were a copy of its own: strings of one-byte characters, object overheads), and the
 * filters' ids (geth's).
 */
import { randomBytes } from 'node:crypto'
import type { FilterCriteria } from '../blocks/logs.ts'
import type { LogJson, TransactionJson } from '../blocks/render.ts'

/** A log as a log filter hands it over: as the receipt has it, or sent again as removed. */
export type FilterLog = LogJson | (Omit<LogJson, 'removed'> & { removed: true })

/** What `takeChanges` hands over: logs, block or transaction hashes, or pending transactions. */
export type FilterChange = FilterLog | string | TransactionJson


/** geth's `rpc.NewID`: 16 random bytes, hex, without leading zeros. */
export function randomFilterId(): string {
  const hex = randomBytes(16).toString('hex').replace(/^0+/, '')
  return `0x${hex === '' ? '0' : hex}`
}

/** Estimates, in bytes, of what a table keeps (strings of one-byte characters, object overheads). */
const FILTER_BYTES = 256
const HASH_BYTES = 128
const LOG_BYTES = 512
const TRANSACTION_BYTES = 1024

export function criteriaBytes(c: FilterCriteria | undefined): number {
  if (!c) return FILTER_BYTES
  const topics = c.topics.reduce((n, set) => n + (set?.length ?? 0), 0)
  return FILTER_BYTES + 64 * c.addresses.length + 88 * topics
}

export function changeBytes(change: FilterChange): number {
  if (typeof change === 'string') return HASH_BYTES
  if ('logIndex' in change) {
    const log = change as FilterLog
    return LOG_BYTES + log.data.length + 88 * log.topics.length
  }
  const input = (change as { input?: unknown }).input
  return TRANSACTION_BYTES + (typeof input === 'string' ? input.length : 0)
}
