/**
 * Parameter parsers, each accepting what geth's JSON decoding accepts and failing with its words
 * (`parseParams` adds the `invalid argument N: ` prefix).
 */
import type { BlockSelector, BlockTag } from '../chain/blocks/types.ts'
import { InvalidParamsError } from './errors.ts'
import { ArgumentError } from './params.ts'
import type { Param } from './params.ts'

const MAX_INT64 = (1n << 63n) - 1n

const TAGS: readonly BlockTag[] = ['latest', 'earliest', 'pending', 'safe', 'finalized']

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array'
  if (value === null) return 'null'
  return typeof value === 'object' ? 'object' : typeof value
}

function requireString(value: unknown, goType: string): string {
  if (typeof value !== 'string') {
    throw new ArgumentError(`json: cannot unmarshal ${jsonKind(value)} into Go value of type ${goType}`)
  }
  return value
}

/** hexutil's rules for a QUANTITY, as a bigint below 2^bits. */
export function decodeQuantity(text: string, bits = 64): bigint {
  if (text === '') throw new ArgumentError('empty hex string')
  if (!/^0[xX]/.test(text)) throw new ArgumentError('hex string without 0x prefix')
  const digits = text.slice(2)
  if (digits === '') throw new ArgumentError('hex string "0x"')
  if (!/^[0-9a-fA-F]+$/.test(digits)) throw new ArgumentError('invalid hex string')
  if (digits.length > 1 && digits[0] === '0') throw new ArgumentError('hex number with leading zero digits')
  const n = BigInt(`0x${digits}`)
  if (n >> BigInt(bits) !== 0n) throw new ArgumentError(`hex number > ${bits} bits`)
  return n
}

function fixedHex(value: unknown, bytes: number, goType: string): string {
  const text = requireString(value, goType)
  if (!/^0[xX]/.test(text)) {
    throw new ArgumentError(`json: cannot unmarshal hex string without 0x prefix into Go value of type ${goType}`)
  }
  const digits = text.slice(2)
  if (digits.length !== bytes * 2) {
    throw new ArgumentError(`hex string has length ${digits.length}, want ${bytes * 2} for ${goType}`)
  }
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw new ArgumentError('invalid hex string')
  return `0x${digits.toLowerCase()}`
}

/** A 20-byte address, returned in lowercase. */
export const address: Param<string> = {
  parse: (v) => fixedHex(v, 20, 'common.Address'),
}

/** A 32-byte hash, returned in lowercase. */
export const hash: Param<string> = {
  parse: (v) => fixedHex(v, 32, 'common.Hash'),
}

/** A uint64 quantity (`hexutil.Uint64`). */
export const uint64: Param<bigint> = {
  parse: (v) => decodeQuantity(requireString(v, 'hexutil.Uint64')),
}

/** A uint quantity (`hexutil.Uint`), e.g. a transaction index. */
export const uint: Param<bigint> = {
  parse: (v) => decodeQuantity(requireString(v, 'hexutil.Uint')),
}

function blockNumberText(text: string): BlockSelector {
  if ((TAGS as readonly string[]).includes(text)) return { kind: 'tag', tag: text as BlockTag }
  const n = decodeQuantity(text)
  if (n > MAX_INT64) throw new ArgumentError('block number larger than int64')
  return { kind: 'number', number: n }
}

/** A block number or tag (geth's `rpc.BlockNumber`): no hashes. */
export const blockNumber: Param<BlockSelector> = {
  parse: (v) => blockNumberText(requireString(v, 'rpc.BlockNumber')),
}

/**
 * A block number, tag or hash (geth's `rpc.BlockNumberOrHash`): a string, or an object with
 * `blockNumber` or `blockHash`. With `decimal`, a decimal integer is a number too (the hosted
 * service documents it for eth_getBlockReceipts).
 */
function blockNumberOrHashParser(decimal: boolean): Param<BlockSelector> {
  return {
    parse(v) {
      if (decimal && typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) {
        return { kind: 'number', number: BigInt(v) }
      }
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
        const o = v as Record<string, unknown>
        if (o.blockHash !== undefined && o.blockNumber !== undefined) {
          throw new ArgumentError('cannot specify both BlockHash and BlockNumber, choose one or the other')
        }
        if (o.blockHash !== undefined) return { kind: 'hash', hash: fixedHex(o.blockHash, 32, 'common.Hash') }
        if (o.blockNumber !== undefined) return blockNumberText(requireString(o.blockNumber, 'rpc.BlockNumber'))
        throw new ArgumentError('either BlockHash or BlockNumber must be specified')
      }
      const text = requireString(v, 'rpc.BlockNumberOrHash')
      if (decimal && /^\d+$/.test(text)) return { kind: 'number', number: BigInt(text) }
      if (text.length === 66 && /^0[xX]/.test(text)) return { kind: 'hash', hash: fixedHex(text, 32, 'common.Hash') }
      return blockNumberText(text)
    },
  }
}

export const blockNumberOrHash: Param<BlockSelector> = blockNumberOrHashParser(false)
export const blockNumberOrHashOrDecimal: Param<BlockSelector> = blockNumberOrHashParser(true)

/**
 * A storage slot as geth's eth_getStorageAt decodes it: hex with or without `0x`, odd length
 * allowed, at most 32 bytes; returned as a 32-byte word. The param itself is a plain string in
 * geth, so these errors are the method's own, without the `invalid argument N: ` prefix.
 */
export function decodeStorageKey(text: string): Uint8Array {
  let digits = /^0[xX]/.test(text) ? text.slice(2) : text
  if (digits.length % 2 === 1) digits = `0${digits}`
  if (!/^[0-9a-fA-F]*$/.test(digits)) {
    throw new InvalidParamsError(`invalid hex in storage key: ${JSON.stringify(text)}`)
  }
  if (digits.length > 64) {
    throw new InvalidParamsError(`storage key too long (want at most 32 bytes): ${JSON.stringify(text)}`)
  }
  const out = new Uint8Array(32)
  out.set(Buffer.from(digits, 'hex'), 32 - digits.length / 2)
  return out
}

/** Any JSON string. */
export const string: Param<string> = {
  parse: (v) => requireString(v, 'string'),
}

/** A JSON boolean, as Go's `bool` decodes it. */
export const bool: Param<boolean> = {
  parse(v) {
    if (typeof v !== 'boolean') throw new ArgumentError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type bool`)
    return v
  },
}

/** A JSON array of strings (Go's `[]string`). */
export const stringArray: Param<string[]> = {
  parse(v) {
    if (!Array.isArray(v)) throw new ArgumentError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type []string`)
    return v.map((item) => requireString(item, 'string'))
  },
}
