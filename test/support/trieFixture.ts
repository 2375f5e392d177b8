/**
 * A trie with the shapes a path walk must get right, for the tests that compare our trie walks
 * (src/chain/vm/trieRead.ts, triePath.ts) with EthereumJS's own: 300 keys of 1 to 40 bytes, short
 * values (nodes under 32 bytes, embedded in their parents) among long ones, and keys that are
 * prefixes of others (a branch's own value, a path that stops in an extension or a leaf); 400
 * writes made the same to two tries, their roots compared after each (triePath.test.ts,
 * trieNode.test.ts); and a seeded generator for the one-pass commit's fuzz tests
 * (trieCommit.test.ts, stateCommit.test.ts).
 */
import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { expect } from 'vitest'

/** Deterministic bytes. */
export function bytes(seed: number, length: number): Uint8Array {
  const out = new Uint8Array(length)
  let x = seed * 2654435761
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    out[i] = x >>> 24
  }
  return out
}

/** Puts the keys described above into `trie`; the 300 generated keys, in order. */
export async function fillTrie(trie: MerklePatriciaTrie): Promise<Uint8Array[]> {
  const keys: Uint8Array[] = []
  for (let i = 0; i < 300; i++) {
    const key = bytes(i, 1 + (i % 40))
    keys.push(key)
    await trie.put(key, bytes(i + 1000, 1 + (i % 3 === 0 ? 1 : 40)))
  }
  await trie.put(hexToBytes('0xabcd'), hexToBytes('0x01'))
  await trie.put(hexToBytes('0xabcdef'), hexToBytes('0x02'))
  await trie.put(hexToBytes('0xabcdef01'), hexToBytes('0x03'))
  return keys
}

/**
 * 400 puts to `mine` and `theirs` (every fourth a delete: an empty value, some of keys never
 * written), expecting the same root after each.
 */
export async function writeBothAlike(mine: MerklePatriciaTrie, theirs: MerklePatriciaTrie): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const key = bytes(i % 150, 1 + (i % 7) * 5)
    const value = i % 4 === 3 ? new Uint8Array() : bytes(i + 77, 1 + (i % 5) * 9)
    await mine.put(key, value)
    await theirs.put(key, value)
    expect(bytesToHex(mine.root()), `write ${i}`).toBe(bytesToHex(theirs.root()))
  }
}

/** A small deterministic generator: numbers in [0, 1) from `seed` (the faults' mulberry32). */
export { createPrng as random } from '../../src/gateway/faults.ts'
