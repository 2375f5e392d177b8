/**
 * RLP of byte strings and lists of them, written into one buffer: the bytes `@ethereumjs/rlp`'s
 * `encode` writes for the same input. Its `encode` makes a length prefix array (`Uint8Array.from`)
 * and a concatenated copy for every item and every list, so a trie branch node (17 items) made 35
 * arrays and copied its bytes twice; here the sizes are measured first and every byte is written
 * once. Input of any other kind (strings, numbers) goes to `@ethereumjs/rlp`'s `encode`.
 */
import { RLP } from '@ethereumjs/rlp'

/** A byte string (null: the empty string, as `@ethereumjs/rlp` takes it) or a list of such. */
export type RlpItem = Uint8Array | null | readonly RlpItem[]

/** `RLP.encode(input)`, in one buffer. */
export function rlpEncode(input: RlpItem): Uint8Array {
  const sizes: number[] = []
  const size = measure(input, sizes)
  if (size < 0) return RLP.encode(input as Parameters<typeof RLP.encode>[0])
  const out = new Uint8Array(size)
  write(input, out, 0, sizes, { next: 0 })
  return out
}

/** The bytes of a length prefix for a payload of `length`. */
function prefixSize(length: number): number {
  if (length < 56) return 1
  let n = 1
  for (let l = length; l > 255; l = Math.floor(l / 256)) n++
  return 1 + n
}

/** The item's encoded size; its lists' payload sizes pushed in the order `write` reads them. -1: not bytes, null or a list. */
function measure(item: RlpItem, sizes: number[]): number {
  if (item === null) return 1
  if (item instanceof Uint8Array) return item.length === 1 && item[0]! < 0x80 ? 1 : prefixSize(item.length) + item.length
  if (!Array.isArray(item)) return -1
  const at = sizes.length
  sizes.push(0)
  let payload = 0
  for (const child of item) {
    const n = measure(child, sizes)
    if (n < 0) return -1
    payload += n
  }
  sizes[at] = payload
  return prefixSize(payload) + payload
}

/** Writes a length prefix at `at` (`offset` 0x80 for a string, 0xc0 for a list); returns where the payload starts. */
function writePrefix(out: Uint8Array, at: number, length: number, offset: number): number {
  if (length < 56) {
    out[at] = offset + length
    return at + 1
  }
  const n = prefixSize(length) - 1
  out[at] = offset + 55 + n
  for (let i = n, l = length; i >= 1; i--, l = Math.floor(l / 256)) out[at + i] = l % 256
  return at + 1 + n
}

function write(item: RlpItem, out: Uint8Array, at: number, sizes: number[], list: { next: number }): number {
  if (item === null) {
    out[at] = 0x80
    return at + 1
  }
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0]! < 0x80) {
      out[at] = item[0]!
      return at + 1
    }
    const start = writePrefix(out, at, item.length, 0x80)
    out.set(item, start)
    return start + item.length
  }
  let cursor = writePrefix(out, at, sizes[list.next++]!, 0xc0)
  for (const child of item as readonly RlpItem[]) cursor = write(child, out, cursor, sizes, list)
  return cursor
}
