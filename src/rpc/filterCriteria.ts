/**
 * The filter object of eth_getLogs and eth_newFilter, parsed as geth's `FilterCriteria.UnmarshalJSON`
 * does, with its limits (`eth/filters`: 4 topic positions, 1000 alternatives per position, 1000
 * addresses) and its words.
 */
import { jsonText } from '../encoding/jsonText.ts'
import type { FilterBlock, FilterCriteria } from '../chain/blocks/logs.ts'
import type { BlockTag } from '../chain/blocks/types.ts'
import { InvalidParamsError, ServerError } from './errors.ts'
import { ArgumentError } from './params.ts'
import type { Param } from './params.ts'
import { decodeQuantity } from './validators.ts'

/** geth's limits on a filter (`eth/filters`). */
const MAX_TOPICS = 4
const MAX_SUB_TOPICS = 1000
const MAX_ADDRESSES = 1000

const TAGS: readonly string[] = ['latest', 'earliest', 'pending', 'safe', 'finalized']

function kindOf(v: unknown): string {
  if (Array.isArray(v)) return 'array'
  if (v === null) return 'null'
  return typeof v === 'object' ? 'object' : typeof v
}

/** `hexutil.Decode`'s rules for DATA, as bytes' hex digits (lowercase). */
function decodeHex(text: string): string {
  if (text === '') throw new ArgumentError('empty hex string')
  if (!/^0[xX]/.test(text)) throw new ArgumentError('hex string without 0x prefix')
  const digits = text.slice(2)
  if (digits.length % 2 === 1) throw new ArgumentError('hex string of odd length')
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw new ArgumentError('invalid hex string')
  return digits.toLowerCase()
}

function decodeFixed(text: string, bytes: number, what: string): string {
  const digits = decodeHex(text)
  if (digits.length !== bytes * 2) {
    throw new ArgumentError(`hex has invalid length ${digits.length / 2} after decoding; expected ${bytes} for ${what}`)
  }
  return `0x${digits}`
}

/** `rpc.BlockNumber`, which also takes an unquoted JSON value as its text. */
function filterBlock(v: unknown): FilterBlock {
  // geth reads the param's JSON text; `jsonText` writes it without recursion (a client may nest 10,000 deep).
  const text = typeof v === 'string' ? v : jsonText(v)
  if (TAGS.includes(text)) return { kind: 'tag', tag: text as BlockTag }
  const n = decodeQuantity(text)
  if (n >= 1n << 63n) throw new ArgumentError('block number larger than int64')
  return { kind: 'number', number: n }
}

function blockHashField(v: unknown): string {
  if (typeof v !== 'string') {
    throw new ArgumentError(`json: cannot unmarshal non-string into Go struct field input.blockHash of type common.Hash`)
  }
  if (!/^0[xX]/.test(v)) {
    throw new ArgumentError('json: cannot unmarshal hex string without 0x prefix into Go struct field input.blockHash of type common.Hash')
  }
  if (v.length - 2 !== 64) throw new ArgumentError(`hex string has length ${v.length - 2}, want 64 for common.Hash`)
  if (!/^0[xX][0-9a-fA-F]{64}$/.test(v)) {
    throw new ArgumentError('json: cannot unmarshal invalid hex string into Go struct field input.blockHash of type common.Hash')
  }
  return v.toLowerCase()
}

function addresses(v: unknown): string[] {
  if (typeof v === 'string') {
    try {
      return [decodeFixed(v, 20, 'address')]
    } catch (err) {
      throw new ArgumentError(`invalid address: ${(err as Error).message}`)
    }
  }
  if (!Array.isArray(v)) throw new ArgumentError('invalid addresses in query')
  if (v.length > MAX_ADDRESSES) throw new ArgumentError('exceed max addresses')
  return v.map((item, i) => {
    if (typeof item !== 'string') throw new ArgumentError(`non-string address at index ${i}`)
    try {
      return decodeFixed(item, 20, 'address')
    } catch (err) {
      throw new ArgumentError(`invalid address at index ${i}: ${(err as Error).message}`)
    }
  })
}

function topics(v: unknown): (string[] | null)[] {
  if (!Array.isArray(v)) {
    throw new ArgumentError(`json: cannot unmarshal ${kindOf(v)} into Go struct field input.topics of type []interface {}`)
  }
  if (v.length > MAX_TOPICS) throw new ArgumentError('exceed max topics')
  return v.map((position) => {
    if (position === null) return null
    if (typeof position === 'string') return [decodeFixed(position, 32, 'topic')]
    if (!Array.isArray(position)) throw new ArgumentError('invalid topic(s)')
    if (position.length > MAX_SUB_TOPICS) throw new ArgumentError('exceed max topics')
    const set: string[] = []
    for (const t of position) {
      // A null among alternatives makes the position a wildcard, as in geth.
      if (t === null) return null
      if (typeof t !== 'string') throw new ArgumentError('invalid topic(s)')
      set.push(decodeFixed(t, 32, 'topic'))
    }
    return set
  })
}

/** eth_getLogs' and eth_newFilter's filter object. */
export const filterCriteria: Param<FilterCriteria> = {
  parse(v) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      throw new ArgumentError(`json: cannot unmarshal ${kindOf(v)} into Go value of type filters.input`)
    }
    const o = v as Record<string, unknown>
    const present = (k: string): boolean => o[k] !== undefined && o[k] !== null
    const criteria: FilterCriteria = { addresses: [], topics: [] }
    const blockHash = present('blockHash') ? blockHashField(o.blockHash) : undefined
    const fromBlock = present('fromBlock') ? filterBlock(o.fromBlock) : undefined
    const toBlock = present('toBlock') ? filterBlock(o.toBlock) : undefined
    if (blockHash !== undefined) {
      if (fromBlock || toBlock) {
        throw new ArgumentError('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other')
      }
      criteria.blockHash = blockHash
    } else {
      if (fromBlock) criteria.fromBlock = fromBlock
      if (toBlock) criteria.toBlock = toBlock
    }
    if (present('address')) criteria.addresses = addresses(o.address)
    if (present('topics')) criteria.topics = topics(o.topics)
    return criteria
  },
}

/** geth's `rpc.BlockNumber` of a bound: numbers as they are, `earliest` 0, other tags negative. */
function position(bound: FilterBlock | undefined): bigint | 'latest' | 'other' {
  if (bound === undefined) return 'latest'
  if (bound.kind === 'number') return bound.number
  if (bound.tag === 'earliest') return 0n
  return bound.tag === 'latest' ? 'latest' : 'other'
}

/**
 * geth's `SubscribeLogs` rule for a range that follows the chain (eth_newFilter, eth_subscribe
 * `logs`): latest to latest, a number to latest, or number to number in order; `pending` refused.
 */
export function checkSubscribableRange(criteria: FilterCriteria): void {
  if (criteria.fromBlock?.kind === 'tag' && criteria.fromBlock.tag === 'pending') throw new ServerError('pending logs are not supported')
  if (criteria.toBlock?.kind === 'tag' && criteria.toBlock.tag === 'pending') throw new ServerError('pending logs are not supported')
  const from = position(criteria.fromBlock)
  const to = position(criteria.toBlock)
  const ok = (from === 'latest' && to === 'latest') || (typeof from === 'bigint' && (to === 'latest' || (typeof to === 'bigint' && to >= from)))
  if (!ok) throw new InvalidParamsError('invalid block range params')
}
