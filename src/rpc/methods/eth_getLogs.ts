import type { LogJson } from '../../chain/blocks/render.ts'
import { filterCriteria } from '../filterCriteria.ts'
import { queryLogs } from '../logQuery.ts'
import { defineMethod } from '../method.ts'

/**
 * Logs matching a filter: one block by `blockHash`, or the blocks `fromBlock` to `toBlock`
 * (default `latest` both), by address (one or a list) and topics (per position: a hash, a list of
 * alternatives, or null for any). Errors as geth (../logQuery.ts), at most 10,000 logs (the
 * service's -32005). Answered from the receipts kept at load or mining.
 */
export const eth_getLogs = defineMethod({
  name: 'eth_getLogs',
  params: [filterCriteria],
  run: ([criteria], { chain, logResults }): LogJson[] => queryLogs(chain, criteria, logResults),
})
