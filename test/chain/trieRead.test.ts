/**
 * src/chain/vm/trieRead.ts answers a trie read as EthereumJS's `MerklePatriciaTrie.get` does: on
 * tries with hashed and plain keys, small nodes embedded in their parents, keys that run into a
 * leaf, an extension or a branch and stop, a branch's own value, an empty trie, and a node
 * missing from the database.
 */
import { createMPT } from '@ethereumjs/mpt'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { trieGet } from '../../src/chain/vm/trieRead.ts'
import { bytes, fillTrie } from '../support/trieFixture.ts'

async function compare(trie: MerklePatriciaTrie, keys: Uint8Array[]): Promise<number> {
  let found = 0
  for (const key of keys) {
    const expected = await trie.get(key)
    const got = await trieGet(trie, key)
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
})
