/**
 * src/chain/vm/trieRead.ts answers a trie read as EthereumJS's `MerklePatriciaTrie.get` does: on
 * tries with hashed and plain keys, small nodes embedded in their parents, keys that run into a
 * leaf, an extension or a branch and stop, a branch's own value, an empty trie, and a node
 * missing from the database; and with decoded nodes kept across reads (`DecodedNodes`), under
 * the root they were read at and under others, within their bound.
 */
import { createMPT } from '@ethereumjs/mpt'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { trieGet } from '../../src/chain/vm/trieRead.ts'
import type { DecodedNodes } from '../../src/chain/vm/trieRead.ts'
import { bytes, fillTrie } from '../support/trieFixture.ts'

async function compare(trie: MerklePatriciaTrie, keys: Uint8Array[], nodes?: DecodedNodes): Promise<number> {
  let found = 0
  for (const key of keys) {
    const expected = await trie.get(key)
    const got = await trieGet(trie, key, nodes)
    expect(got === null ? null : bytesToHex(got), bytesToHex(key)).toBe(expected === null ? null : bytesToHex(expected))
    if (expected !== null) found++
  }
  return found
}

describe('trieGet', () => {
  for (const useKeyHashing of [true, false]) {
    it(`answers as get does, ${useKeyHashing ? 'hashed' : 'plain'} keys`, async () => {
      const trie = await createMPT({ useKeyHashing })
      const keys = await fillTrie(trie)
      // Prefixes of stored keys (a branch's value, or a path that stops in an extension or a leaf) and strangers.
      const probes = [...keys, ...keys.map((k) => k.subarray(0, Math.max(1, k.length - 1))), ...Array.from({ length: 100 }, (_, i) => bytes(i + 5000, 20))]
      probes.push(hexToBytes('0xab'), hexToBytes('0xabcd'), hexToBytes('0xabcdef'), hexToBytes('0xabcdef01'), hexToBytes('0xabcdef0102'), hexToBytes('0xabce'))
      expect(await compare(trie, probes)).toBeGreaterThanOrEqual(303)
    })
  }

  it('answers null on an empty trie, and as get does where a node is missing', async () => {
    const empty = await createMPT({ useKeyHashing: true })
    expect(await trieGet(empty, bytes(1, 20))).toBeNull()
    const trie = await createMPT({ useKeyHashing: true })
    const keys = Array.from({ length: 50 }, (_, i) => bytes(i, 20))
    for (const key of keys) await trie.put(key, bytes(7, 40))
    // Delete every node but the root from the database: each read below the root misses.
    const db = (trie as unknown as { _db: { db: { _database: Map<string, unknown> } } })._db.db._database
    const root = bytesToHex(trie.root()).slice(2)
    for (const k of [...db.keys()]) if (k !== root) db.delete(k)
    expect(await compare(trie, keys)).toBe(0)
  })

  it('answers as get does with decoded nodes kept across reads and roots, decoding each node once, at most 1,024 kept', async () => {
    const trie = await createMPT({ useKeyHashing: true })
    const keys = await fillTrie(trie)
    const probes = [...keys, ...Array.from({ length: 100 }, (_, i) => bytes(i + 5000, 20))]
    const nodes: DecodedNodes = new Map()
    expect(await compare(trie, probes, nodes)).toBeGreaterThanOrEqual(300)
    // Again: every node by hash comes from the kept ones.
    let lookups = 0
    const lookupNode = trie.lookupNode.bind(trie)
    trie.lookupNode = (ref) => {
      if (ref instanceof Uint8Array) lookups++
      return lookupNode(ref)
    }
    for (const key of probes) await trieGet(trie, key, nodes)
    expect(lookups).toBe(0)
    trie.lookupNode = lookupNode
    // Another root (more keys, some changed), then the first again: the kept nodes serve both.
    const first = trie.root()
    const more = Array.from({ length: 200 }, (_, i) => bytes(i + 9000, 20))
    for (const key of [...more, ...keys.slice(0, 50)]) await trie.put(key, bytes(key[0]! + 1, 33))
    expect(await compare(trie, [...probes, ...more], nodes)).toBeGreaterThanOrEqual(500)
    trie.root(first)
    expect(await compare(trie, [...probes, ...more], nodes)).toBeGreaterThanOrEqual(300)
    // A trie of more nodes than kept: the same answers, and no more than 1,024 kept.
    const big = await createMPT({ useKeyHashing: true })
    const many = Array.from({ length: 2500 }, (_, i) => bytes(i, 20))
    for (const key of many) await big.put(key, bytes(key[1]!, 40))
    const bounded: DecodedNodes = new Map()
    expect(await compare(big, many, bounded)).toBe(2500)
    expect(bounded.size).toBeGreaterThan(0)
    expect(bounded.size).toBeLessThanOrEqual(1024)
  })
})
