/**
 * src/encoding/rlp.ts writes the bytes `@ethereumjs/rlp`'s `encode` writes: byte strings of every
 * length around the prefix bounds (single bytes under and over 0x80, 55/56 bytes, 255/256 and
 * 65,535/65,536), nulls, empty and nested lists, lists whose payload crosses 55 bytes, trie nodes;
 * and input of another kind goes to `@ethereumjs/rlp`.
 */
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { rlpEncode } from '../../src/encoding/rlp.ts'
import type { RlpItem } from '../../src/encoding/rlp.ts'
import { bytes, random } from '../support/trieFixture.ts'

const same = (input: RlpItem) => expect(bytesToHex(rlpEncode(input))).toBe(bytesToHex(RLP.encode(input as Parameters<typeof RLP.encode>[0])))

describe('rlpEncode', () => {
  it('writes byte strings as @ethereumjs/rlp does, at every prefix bound', () => {
    for (const length of [0, 1, 2, 31, 32, 33, 54, 55, 56, 57, 255, 256, 257, 65_535, 65_536]) same(bytes(length + 1, length))
    for (let b = 0; b < 256; b++) same(Uint8Array.of(b))
    same(null)
  })

  it('writes lists, nested and long, as @ethereumjs/rlp does', () => {
    same([])
    same([[], [[]], null, Uint8Array.of(0x7f), Uint8Array.of(0x80)])
    // A branch node: 16 children (hashes, empties, an embedded node) and a value.
    same([...Array.from({ length: 16 }, (_, i) => (i % 4 === 0 ? new Uint8Array() : i === 5 ? [Uint8Array.of(0x35), bytes(9, 20)] : bytes(i, 32))), bytes(99, 70)])
    for (const payload of [53, 54, 55, 56, 57, 300, 70_000]) same([bytes(payload, payload - 2)])
    const next = random(7)
    const draw = (depth: number): RlpItem => {
      const r = next()
      if (depth < 4 && r < 0.3) return Array.from({ length: Math.floor(next() * 6) }, () => draw(depth + 1))
      if (r < 0.35) return null
      return bytes(Math.floor(next() * 1e6), Math.floor(next() * (next() < 0.2 ? 300 : 40)))
    }
    for (let i = 0; i < 300; i++) same([draw(0), draw(0), draw(1)])
  })

  it('leaves input of another kind to @ethereumjs/rlp', () => {
    const input = [Uint8Array.of(1), 'abc', 7n] as unknown as RlpItem
    expect(bytesToHex(rlpEncode(input))).toBe(bytesToHex(RLP.encode([Uint8Array.of(1), 'abc', 7n])))
  })
})
