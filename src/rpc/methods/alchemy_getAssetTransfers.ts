import type { ChainReader } from '../../chain/blocks/chainReader.ts'
import type { BlockRecord } from '../../chain/blocks/types.ts'
import type { TraceBudget } from '../../chain/tracing/limits.ts'
import { traceMined } from '../../chain/tracing/replay.ts'
import { tracerFactory } from '../../chain/tracing/tracers.ts'
import { ADDRESS_RE } from '../../encoding/hex.ts'
import { tokenFacts } from '../alchemy/tokenReads.ts'
import type { TokenFacts } from '../alchemy/tokenReads.ts'
import { transferJson } from '../alchemy/transferJson.ts'
import { TRANSFER_CATEGORIES, blocksIn, externalTransfer, internalTransfers, logTransfers } from '../alchemy/transfers.ts'
import type { RawTransfer, TransferCategory } from '../alchemy/transfers.ts'
import { InvalidParamsError } from '../errors.ts'
import { defineMethod, executionBudget } from '../method.ts'
import { ArgumentError } from '../params.ts'
import type { Param } from '../params.ts'
import { budgetFor, traceFailure } from '../traceConfig.ts'
import { defaultLogger } from './debug_traceTransaction.ts'

/** Alchemy's page size and its ceiling (`maxCount`, default and most `0x3e8`). */
const MAX_COUNT = 1000

export interface TransferQuery {
  readonly fromBlock: bigint | 'latest'
  readonly toBlock: bigint | 'latest'
  readonly fromAddress: string | undefined
  readonly toAddress: string | undefined
  readonly contractAddresses: ReadonlySet<string> | undefined
  readonly category: ReadonlySet<TransferCategory>
  readonly descending: boolean
  readonly withMetadata: boolean
  readonly excludeZeroValue: boolean
  readonly maxCount: number
  readonly offset: number
}

const FIELDS = ['fromBlock', 'toBlock', 'fromAddress', 'toAddress', 'contractAddresses', 'category', 'order', 'withMetadata', 'excludeZeroValue', 'maxCount', 'pageKey']

function blockParam(v: unknown, name: string, fallback: bigint | 'latest'): bigint | 'latest' {
  if (v === undefined || v === null) return fallback
  if (v === 'latest') return 'latest'
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v)
  if (typeof v === 'string' && /^0x[0-9a-fA-F]{1,16}$/.test(v)) return BigInt(v)
  throw new ArgumentError(`${name}: a block number (hex or integer) or "latest", got ${JSON.stringify(v)}`)
}

function addressParam(v: unknown, name: string): string | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string' || !ADDRESS_RE.test(v)) throw new ArgumentError(`${name}: a 20-byte hex address, got ${JSON.stringify(v)}`)
  return v.toLowerCase()
}

function flag(v: unknown, name: string, fallback: boolean): boolean {
  if (v === undefined || v === null) return fallback
  if (typeof v !== 'boolean') throw new ArgumentError(`${name}: true or false, got ${JSON.stringify(v)}`)
  return v
}

/** The page key: the offset of the page's first transfer in the query's answer, in the shape of Alchemy's (a UUID). */
export const pageKeyOf = (offset: number): string => `00000000-0000-4000-8000-${offset.toString(16).padStart(12, '0')}`
const PAGE_KEY_RE = /^00000000-0000-4000-8000-([0-9a-f]{12})$/

export const transferQuery: Param<TransferQuery> = {
  parse(value) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ArgumentError('want an object of query fields')
    const q = value as Record<string, unknown>
    for (const name of Object.keys(q)) if (!FIELDS.includes(name)) throw new ArgumentError(`unknown field ${name} (allowed: ${FIELDS.join(', ')})`)
    if (!Array.isArray(q.category) || q.category.length === 0) throw new ArgumentError(`category: required, a list of ${TRANSFER_CATEGORIES.join(', ')}`)
    const category = new Set<TransferCategory>()
    for (const c of q.category) {
      if (!TRANSFER_CATEGORIES.includes(c as TransferCategory)) throw new ArgumentError(`category: ${JSON.stringify(c)} is none of ${TRANSFER_CATEGORIES.join(', ')}`)
      category.add(c as TransferCategory)
    }
    let contracts: Set<string> | undefined
    if (q.contractAddresses !== undefined && q.contractAddresses !== null) {
      if (!Array.isArray(q.contractAddresses)) throw new ArgumentError('contractAddresses: a list of addresses')
      contracts = new Set(q.contractAddresses.map((a, i) => addressParam(a, `contractAddresses[${i}]`)!))
    }
    if (q.order !== undefined && q.order !== 'asc' && q.order !== 'desc') throw new ArgumentError(`order: "asc" or "desc", got ${JSON.stringify(q.order)}`)
    let maxCount = MAX_COUNT
    if (q.maxCount !== undefined && q.maxCount !== null) {
      const n = typeof q.maxCount === 'number' ? q.maxCount : typeof q.maxCount === 'string' && /^0x[0-9a-fA-F]{1,8}$/.test(q.maxCount) ? Number(q.maxCount) : NaN
      if (!Number.isSafeInteger(n) || n < 1 || n > MAX_COUNT) throw new ArgumentError(`maxCount: from 0x1 to 0x3e8, got ${JSON.stringify(q.maxCount)}`)
      maxCount = n
    }
    let offset = 0
    if (q.pageKey !== undefined && q.pageKey !== null) {
      const m = typeof q.pageKey === 'string' ? PAGE_KEY_RE.exec(q.pageKey) : null
      if (!m) throw new ArgumentError(`pageKey: not a page key this query returned, got ${JSON.stringify(q.pageKey)}`)
      offset = parseInt(m[1]!, 16)
    }
    return {
      fromBlock: blockParam(q.fromBlock, 'fromBlock', 0n),
      toBlock: blockParam(q.toBlock, 'toBlock', 'latest'),
      fromAddress: addressParam(q.fromAddress, 'fromAddress'),
      toAddress: addressParam(q.toAddress, 'toAddress'),
      contractAddresses: contracts,
      category,
      descending: q.order === 'desc',
      withMetadata: flag(q.withMetadata, 'withMetadata', false),
      excludeZeroValue: flag(q.excludeZeroValue, 'excludeZeroValue', true),
      maxCount,
      offset,
    }
  },
}

function wanted(t: RawTransfer, q: TransferQuery): boolean {
  if (!q.category.has(t.category)) return false
  if (q.fromAddress !== undefined && t.from !== q.fromAddress) return false
  if (q.toAddress !== undefined && t.to !== q.toAddress) return false
  if (q.contractAddresses !== undefined && t.contract !== null && !q.contractAddresses.has(t.contract)) return false
  return !(q.excludeZeroValue && t.amount === 0n)
}

/** A block's transfers of the asked categories, in transaction order (reversed for `desc`). */
async function blockTransfers(chain: ChainReader, record: BlockRecord, q: TransferQuery, traceBudget: TraceBudget): Promise<RawTransfer[]> {
  const frames = new Map<string, unknown>()
  if (q.category.has('internal') && record.transactions.length > 0 && record.number > 0n) {
    try {
      const traced = await traceMined(chain, record, { first: 0, last: record.transactions.length - 1 }, tracerFactory({ tracer: 'callTracer', logger: defaultLogger() }), traceBudget)
      for (const t of traced) frames.set(t.txHash, JSON.parse(t.result))
    } catch (err) {
      throw traceFailure(err)
    }
  }
  const out: RawTransfer[] = []
  record.transactions.forEach((tx, i) => {
    const receipt = record.receipts[i]!
    const created = typeof receipt.contractAddress === 'string' ? receipt.contractAddress : null
    if (q.category.has('external')) out.push(externalTransfer(record, tx, created))
    const frame = frames.get(tx.hash)
    if (frame !== undefined) out.push(...internalTransfers(record, tx.hash, frame as Parameters<typeof internalTransfers>[2]))
    for (const log of receipt.logs) out.push(...logTransfers(record, log))
  })
  return q.descending ? out.reverse() : out
}

/**
 * Alchemy's Transfers API (the `alchemy` profile only): the ether and token transfers of a block
 * range (default `0x0` to `latest`), by sender and recipient (ANDed) and token contract (ORed,
 * token categories only), of the `category` asked (required), oldest first or `desc`, at most
 * `maxCount` (`0x3e8`) a page, with a `pageKey` for the next. Zero-value transfers are left out
 * unless `excludeZeroValue` is false. Read from the blocks, receipts and (for `internal`) the
 * callTracer's frames, traced within one trace budget for the request, as debug_traceBlock's);
 * token symbols and decimals from the token's own `symbol()`/`decimals()`.
 */
export const alchemy_getAssetTransfers = defineMethod({
  name: 'alchemy_getAssetTransfers',
  params: [transferQuery],
  async run([q], { chain, execution }) {
    const head = chain.head.number
    const from = q.fromBlock === 'latest' ? head : q.fromBlock
    const to = q.toBlock === 'latest' ? head : q.toBlock
    if (to > head) throw new InvalidParamsError(`toBlock 0x${to.toString(16)} is past the head block 0x${head.toString(16)}`)
    if (from > to) throw new InvalidParamsError(`fromBlock 0x${from.toString(16)} is after toBlock 0x${to.toString(16)}`)
    // One budget for the request's traces (`internal`): the time and bytes of debug_traceBlock's.
    const traceBudget = budgetFor(undefined, execution)
    const page: RawTransfer[] = []
    let skipped = 0
    let more = false
    scan: for (const record of blocksIn(chain, from, to, q.descending)) {
      for (const t of await blockTransfers(chain, record, q, traceBudget)) {
        if (!wanted(t, q)) continue
        if (skipped < q.offset) {
          skipped++
          continue
        }
        if (page.length === q.maxCount) {
          more = true
          break scan
        }
        page.push(t)
      }
    }
    const facts = new Map<string, TokenFacts>()
    const budget = executionBudget(execution)
    for (const t of page) {
      if (t.contract !== null && !facts.has(t.contract)) facts.set(t.contract, await tokenFacts(chain, chain.head, t.contract, budget))
    }
    const transfers = page.map((t) => transferJson(t, t.contract === null ? undefined : facts.get(t.contract), q.withMetadata))
    return more ? { transfers, pageKey: pageKeyOf(q.offset + page.length) } : { transfers }
  },
})
