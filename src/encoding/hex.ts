/**
 * Wire encodings of JSON-RPC values, as geth writes them: quantities are `0x` + lowercase hex
 * without leading zeros (`0x0` for zero), data is `0x` + two hex digits per byte.
 */
import { hexToBytes } from '@ethereumjs/util'

/** A QUANTITY: `0x0`, `0x1a`, never `0x01`. */
export const QUANTITY_RE = /^0x(?:0|[1-9a-fA-F][0-9a-fA-F]*)$/
/** DATA: an even number of hex digits. */
export const DATA_RE = /^0x(?:[0-9a-fA-F]{2})*$/
export const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/
export const HASH_RE = /^0x[0-9a-fA-F]{64}$/

/** @example toQuantity(26n) === '0x1a' */
export function toQuantity(n: bigint | number): string {
  return `0x${n.toString(16)}`
}

/**
 * Bytes as DATA (`0x` for empty), as one flat string: EthereumJS's `bytesToHex` appends two digits
 * at a time, which V8 keeps as a rope of one-byte pieces (~1 KiB for a 32-byte hash, ~8 KiB for a
 * logs bloom) for as long as the string is kept.
 */
export function toData(bytes: Uint8Array): string {
  return `0x${hexDigitsOf(bytes)}`
}

/** Bytes as flat hex digits without the `0x` (a trie database's keys), made natively as `toData`'s. */
export function hexDigitsOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}

/** A value of at most 32 bytes as a 32-byte word's `0x` hex (left-padded with zeros, as a storage slot's value is answered). */
export function toWord(bytes: Uint8Array): string {
  if (bytes.length > 32) throw new RangeError(`a word holds 32 bytes, not ${bytes.length}`)
  return `0x${hexDigitsOf(bytes).padStart(64, '0')}`
}

/** A Latin-1 string (hex digits) copied as one flat string (see `toData`), for a string that is kept. */
export function flatString(s: string): string {
  return Buffer.from(s, 'latin1').toString('latin1')
}

/** Bytes as a flat Latin-1 string, one character per byte (a map key made natively, not 2 hex digits a byte). */
export function latin1Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
}

/** Checked hex digits (no 0x, even length) decoded straight into an array of their own (not a pooled Buffer and a copy). */
export function bytesOfHexDigits(digits: string): Uint8Array {
  const out = new Uint8Array(digits.length >> 1)
  Buffer.from(out.buffer, 0, out.length).write(digits, 'hex')
  return out
}

export function fromData(hex: string): Uint8Array {
  return hexToBytes(hex as `0x${string}`)
}

/** Replaces bigints by quantities and byte arrays by DATA, for `JSON.stringify`. */
export function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return toQuantity(value)
  if (value instanceof Uint8Array) return toData(value)
  return value
}
