/**
 * A forked network's history (chain/vm/forkState.ts `ForkOrigin`): what happened at or before the
 * fork block is the upstream's, asked there (each answer kept) with the block named by number, so
 * that the upstream's later blocks never show. The fork block itself is the chain's first block
 * and head, but its transactions, receipts and logs are the upstream's: reads of its contents go
 * there too, reads of its state stay here (the state falls through by itself). Blocks and
 * transactions the upstream has after the fork block are none of the fork's: they answer null.
 * Everything else runs on the chain as on any network. Only `execute` (./dispatch.ts) calls this,
 * and only for a forked chain.
 */
import type { Chain } from '../chain/chain.ts'
import type { BlockSelector } from '../chain/blocks/types.ts'
import type { ForkOrigin } from '../chain/vm/forkState.ts'
import type { JsonRpcRequest } from './types.ts'
import { blockNumberOrHash } from './validators.ts'

/** State reads: the position of their block parameter. */
const STATE_BLOCK_PARAM: Readonly<Record<string, number>> = {
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getTransactionCount: 1,
  eth_getStorageAt: 2,
  eth_call: 1,
  eth_estimateGas: 1,
  eth_createAccessList: 1,
  eth_getProof: 2,
}

/** Reads of a block's contents by number or tag (or hash), its selector first. */
const BLOCK_CONTENTS = new Set([
  'eth_getBlockByNumber',
  'eth_getBlockTransactionCountByNumber',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getUncleCountByBlockNumber',
  'eth_getUncleByBlockNumberAndIndex',
  'eth_getBlockReceipts',
  'debug_getRawBlock',
  'debug_getRawHeader',
  'debug_getRawReceipts',
  'eth_getBlockByHash',
  'eth_getBlockTransactionCountByHash',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getUncleCountByBlockHash',
  'eth_getUncleByBlockHashAndIndex',
])

/** Reads by transaction hash: the upstream's when the chain does not know the transaction. */
const BY_TRANSACTION = new Set(['eth_getTransactionByHash', 'eth_getTransactionReceipt', 'debug_getRawTransaction'])

/** An answer of the history: `{ result }`, or undefined when the chain answers after all. */
export type HistoryAnswer = Promise<{ result: unknown } | undefined>

/**
 * The upstream's answer to `request`, when it is about the fork's history; undefined: the chain
 * answers. `local` runs a request on the chain (eth_getLogs over a range that spans the fork block
 * joins both).
 */
export function historyAnswer(chain: Chain, upstream: ForkOrigin, request: JsonRpcRequest, local: (params: unknown[]) => Promise<unknown>): HistoryAnswer | undefined {
  const { method, params } = request
  const at = STATE_BLOCK_PARAM[method]
  if (at !== undefined) {
    const selector = selectorOf(params[at] ?? 'latest')
    const before = selector && earlierState(chain, upstream, selector)
    if (before === undefined) return undefined
    return before.then(async (tag) => (tag === undefined ? undefined : { result: await upstream.history(method, withParam(params, at, tag)) }))
  }
  if (BLOCK_CONTENTS.has(method)) {
    const selector = selectorOf(params[0])
    if (selector === undefined) return undefined
    const number = forkBlockOf(chain, upstream, selector)
    if (number === undefined) return undefined
    const param = selector.kind === 'hash' ? params[0] : `0x${number.toString(16)}`
    return upstream.history(method, withParam(params, 0, param)).then((result) => ({ result: notAfter(upstream, result) }))
  }
  if (BY_TRANSACTION.has(method)) {
    const hash = typeof params[0] === 'string' ? params[0].toLowerCase() : undefined
    if (hash === undefined || chain.transactionByHash(hash) !== undefined || chain.pendingByHash(hash) !== undefined) return undefined
    return upstream.history(method, params).then((result) => ({ result: notAfter(upstream, result) }))
  }
  if (method === 'eth_getLogs') return logsAnswer(chain, upstream, params, local)
  return undefined
}

/**
 * eth_getLogs: by the hash of a block at or before the fork block (or unknown here), the
 * upstream's; over a range, the upstream's part up to the fork block and the chain's after it.
 */
function logsAnswer(chain: Chain, upstream: ForkOrigin, params: readonly unknown[], local: (params: unknown[]) => Promise<unknown>): HistoryAnswer | undefined {
  const filter = params[0]
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) return undefined
  const f = filter as Record<string, unknown>
  const ownLogs = (logs: unknown) => (Array.isArray(logs) ? logs.filter((log) => notAfter(upstream, log) !== null) : logs)
  if (typeof f.blockHash === 'string') {
    const record = chain.byHash(f.blockHash.toLowerCase())
    if (record !== undefined && record.number > upstream.block) return undefined
    return upstream.history('eth_getLogs', params).then((logs) => ({ result: ownLogs(logs) }))
  }
  const from = rangeEnd(chain, f.fromBlock)
  const to = rangeEnd(chain, f.toBlock)
  if (from === undefined || to === undefined || from > upstream.block || from > to) return undefined
  const upTo = to < upstream.block ? to : upstream.block
  const hex = (n: bigint) => `0x${n.toString(16)}`
  return (async () => {
    const early = (await upstream.history('eth_getLogs', [{ ...f, fromBlock: hex(from), toBlock: hex(upTo) }])) as unknown[]
    if (to <= upstream.block) return { result: ownLogs(early) }
    const later = (await local([{ ...f, fromBlock: hex(upstream.block + 1n), toBlock: hex(to) }])) as unknown[]
    return { result: [...(ownLogs(early) as unknown[]), ...later] }
  })()
}

/** A range end of eth_getLogs as a number (default latest), or undefined when it is not one. */
function rangeEnd(chain: Chain, param: unknown): bigint | undefined {
  const selector = selectorOf(param ?? 'latest')
  if (selector === undefined || selector.kind === 'hash') return undefined
  if (selector.kind === 'number') return selector.number
  return selector.tag === 'earliest' ? 0n : chain.resolve(selector)?.number
}

function selectorOf(param: unknown): BlockSelector | undefined {
  try {
    return blockNumberOrHash.parse(param)
  } catch {
    return undefined // the method's own parsing says what is wrong
  }
}

/**
 * The upstream block whose contents a selector names (at or before the fork block), or undefined
 * when the chain holds that block's contents (mined here) or does not know it.
 */
function forkBlockOf(chain: Chain, upstream: ForkOrigin, selector: BlockSelector): bigint | undefined {
  if (selector.kind === 'number') return selector.number <= upstream.block ? selector.number : undefined
  if (selector.kind === 'tag' && selector.tag === 'earliest') return 0n
  if (selector.kind === 'hash') {
    const record = chain.byHash(selector.hash.toLowerCase())
    if (record === undefined) return upstream.block // asked there: an unknown or later block answers null
    return record.number <= upstream.block ? record.number : undefined
  }
  const record = chain.resolve(selector)
  return record !== undefined && record.number <= upstream.block ? record.number : undefined
}

/**
 * For a state read: the block to ask the upstream at, when the selector names a block before the
 * fork block (resolved to a number, or the hash of such a block), else undefined (the chain's own
 * state, the fork block's included, answers).
 */
function earlierState(chain: Chain, upstream: ForkOrigin, selector: BlockSelector): Promise<string | undefined> | undefined {
  if (selector.kind === 'number') return selector.number < upstream.block ? Promise.resolve(`0x${selector.number.toString(16)}`) : undefined
  if (selector.kind === 'tag') return selector.tag === 'earliest' && upstream.block > 0n ? Promise.resolve('0x0') : undefined
  if (chain.byHash(selector.hash.toLowerCase()) !== undefined) return undefined
  // An unknown hash: an upstream block before the fork's, or the chain's own error.
  return upstream.history('eth_getBlockByHash', [selector.hash, false]).then((block) => {
    const number = block === null || typeof block !== 'object' ? undefined : BigInt(String((block as { number?: unknown }).number))
    return number !== undefined && number < upstream.block ? `0x${number.toString(16)}` : undefined
  })
}

/** A block or transaction the upstream has after the fork block is not the fork's: null. */
function notAfter(upstream: ForkOrigin, result: unknown): unknown {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return result
  const n = (result as { blockNumber?: unknown; number?: unknown }).blockNumber ?? (result as { number?: unknown }).number
  return typeof n === 'string' && BigInt(n) > upstream.block ? null : result
}

function withParam(params: readonly unknown[], at: number, value: unknown): unknown[] {
  const out = [...params]
  while (out.length < at) out.push(undefined)
  out[at] = value
  return out
}
