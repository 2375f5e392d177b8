import { describe, expect, it } from 'vitest'
import type { BlockRecord } from '../../src/chain/blocks/types.ts'
import { StorageWords } from '../../src/chain/store/storageWords.ts'

const record = (n: number) => ({ number: BigInt(n) }) as unknown as BlockRecord
const key = (i: number) => StorageWords.key(`0x${'ab'.repeat(20)}`, `0x${i.toString(16)}`)
const word = (i: number) => `0x${i.toString(16).padStart(64, '0')}`

describe('StorageWords', () => {
  it('answers only for the block it holds, and nothing after a clear', () => {
    const words = new StorageWords()
    const [a, b] = [record(1), record(2)]
    words.keep(a, key(1), word(1))
    expect(words.get(a, key(1))).toBe(word(1))
    expect(words.get(b, key(1))).toBeUndefined()
    words.keep(b, key(2), word(2))
    expect(words.get(a, key(1))).toBeUndefined()
    expect(words.get(b, key(2))).toBe(word(2))
    words.clear()
    expect(words.get(b, key(2))).toBeUndefined()
    expect(words.bytes).toBe(0)
  })

  it('stays within its bytes, the oldest words going first', () => {
    const words = new StorageWords(10_000)
    const r = record(1)
    for (let i = 0; i < 1_000; i++) words.keep(r, key(i), word(i))
    expect(words.bytes).toBeLessThanOrEqual(10_000)
    expect(words.bytes).toBeGreaterThan(9_000)
    expect(words.get(r, key(0))).toBeUndefined()
    expect(words.get(r, key(999))).toBe(word(999))
  })
})
