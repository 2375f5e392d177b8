import { describe, expect, it } from 'vitest'
import type { BlockRecord } from '../../src/chain/blocks/types.ts'
import { RenderedJson } from '../../src/chain/store/renderedJson.ts'
import { RawJson } from '../../src/encoding/rawJson.ts'

const record = (n: number) => ({ number: BigInt(n), hash: `0x${n.toString(16).padStart(64, '0')}` }) as unknown as BlockRecord
/** A renderer that counts its calls. */
const counting = (text: string) => {
  const made = { calls: 0, render: () => (made.calls++, new RawJson(text)) }
  return made
}

describe('RenderedJson', () => {
  it('renders a block’s form once and keeps it, each form apart', () => {
    const cache = new RenderedJson()
    const block = counting('{"a":1}')
    const receipts = counting('[]')
    const first = cache.of(record(1), 'block', block.render)
    expect(cache.of(record(1), 'block', block.render)).toBe(first)
    expect(block.calls).toBe(1)
    expect(cache.of(record(1), 'receipts', receipts.render).json).toBe('[]')
    expect(cache.of(record(2), 'block', block.render)).not.toBe(first)
    expect(block.calls).toBe(2)
  })

  it('answers what it answered last again without rendering (each newHeads subscriber asks in turn); the same block’s other form is its own', () => {
    const cache = new RenderedJson()
    const block = record(1)
    const header = counting('{"h":1}')
    const full = counting('{"f":1}')
    const first = cache.of(block, 'newHead', header.render)
    for (let i = 0; i < 3; i++) expect(cache.of(block, 'newHead', header.render)).toBe(first)
    expect(cache.of(block, 'block', full.render).json).toBe('{"f":1}')
    expect(cache.of(block, 'newHead', header.render)).toBe(first)
    expect(cache.of(block, 'block', full.render).json).toBe('{"f":1}')
    expect([header.calls, full.calls]).toEqual([1, 1])
  })

  it('stays within its bytes, the least recently used going first', () => {
    const cache = new RenderedJson(20_000)
    const text = 'x'.repeat(1_000)
    for (let n = 0; n < 100; n++) {
      cache.of(record(n), 'block', () => new RawJson(text))
      // Block 0 is used again each time: it stays.
      cache.of(record(0), 'block', () => new RawJson(text))
    }
    expect(cache.bytes).toBeLessThanOrEqual(20_000)
    expect(cache.bytes).toBeGreaterThan(15_000)
    const again = counting(text)
    cache.of(record(0), 'block', again.render)
    expect(again.calls).toBe(0)
    cache.of(record(1), 'block', again.render)
    expect(again.calls).toBe(1)
  })

  it('answers a rendering larger than its bound without keeping it', () => {
    const cache = new RenderedJson(1_000)
    const big = counting('y'.repeat(2_000))
    const block = record(1)
    cache.of(block, 'receipts', big.render)
    cache.of(block, 'receipts', big.render)
    expect(big.calls).toBe(2)
    expect(cache.bytes).toBe(0)
  })
})
