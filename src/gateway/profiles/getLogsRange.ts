/**
 * A profile's eth_getLogs block range limit: a query wider than `maxBlockRange` is refused with
 * the provider's wording, naming the widest range from the query's first block that it allows
 * (Alchemy's `this block range should work: [0x.., 0x..]`), as clients that chunk by the error
 * (ponder's getLogsRetryHelper) read it. Judged from the query's bounds before it runs: tags are
 * read at the head (`earliest` 0), a query by `blockHash` is one block. eth_newFilter is judged
 * alike where the provider says so (QuickNode: "eth_getLogs and eth_newFilter are limited...").
 */
import type { JsonRpcId } from '../../rpc/types.ts'
import type { Network } from '../request.ts'
import { ProfileRefusal } from './refusal.ts'
import type { ProfileSpec, RefusalSpec } from './profile.ts'

/** A call's refusal for its range, or undefined when the range is allowed. */
export type RangeCheck = (network: Network, call: { readonly method: string; readonly params: readonly unknown[] }, id?: JsonRpcId) => ProfileRefusal | undefined

const HEX_QUANTITY = /^0x[0-9a-fA-F]{1,64}$/

/** A bound's block number; undefined when it is not one this rule reads (the call's own checks answer it). */
function blockOf(bound: unknown, head: bigint): bigint | undefined {
  if (bound === undefined || bound === null || bound === 'latest' || bound === 'safe' || bound === 'finalized' || bound === 'pending') return head
  if (bound === 'earliest') return 0n
  if (typeof bound === 'string' && HEX_QUANTITY.test(bound)) return BigInt(bound)
  return undefined
}

const hex = (n: bigint): string => `0x${n.toString(16)}`

export function createRangeCheck(limits: NonNullable<ProfileSpec['getLogs']>, refusal: RefusalSpec, methods: ReadonlySet<string>): RangeCheck {
  const max = BigInt(limits.maxBlockRange)
  // The widest query's `to - from`.
  const widest = limits.measure === 'blocks' ? max - 1n : max
  const values = { limit: String(limits.maxBlockRange), limitGrouped: limits.maxBlockRange.toLocaleString('en-US') }
  return (network, call, id) => {
    if (!methods.has(call.method)) return undefined
    const criteria = call.params[0]
    if (typeof criteria !== 'object' || criteria === null || 'blockHash' in criteria) return undefined
    const head = network.chain.head.number
    const { fromBlock, toBlock } = criteria as { fromBlock?: unknown; toBlock?: unknown }
    const from = blockOf(fromBlock, head)
    const to = blockOf(toBlock, head)
    if (from === undefined || to === undefined || to - from <= widest) return undefined
    return new ProfileRefusal(refusal, { ...values, from: hex(from), to: hex(from + widest) }, id)
  }
}
