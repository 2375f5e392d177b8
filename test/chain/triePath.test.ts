/**
 * src/chain/vm/triePath.ts finds a key's path as EthereumJS's `MerklePatriciaTrie.findPath` does
 * (the node, the nibbles left, the nodes on the way): on tries with hashed and plain keys, small
 * nodes embedded in their parents, keys that run into a leaf, an extension or a branch and stop, a
 * branch's own value; and tries written through it (puts and deletes) have the roots EthereumJS's
 * own walk gives. An empty trie and a missing node go to EthereumJS's own.
 */
import { createMPT } from '@ethereumjs/mpt'
import type { MerklePatriciaTrie, MPTNode, Path } from '@ethereumjs/mpt'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { followPath, ownFindPath, patchFindPath } from '../../src/chain/vm/triePath.ts'
import { bytes, fillTrie, writeBothAlike } from '../support/trieFixture.ts'

const shown = (node: MPTNode | null) => (node === null ? null : bytesToHex(node.serialize()))
const pathShown = (path: Path) => ({ node: shown(path.node), remaining: path.remaining, stack: path.stack.map(shown) })

/** A trie whose own findPath is EthereumJS's, whatever the prototype holds. */
function unpatched(trie: MerklePatriciaTrie): MerklePatriciaTrie {
  ;(trie as { findPath: MerklePatriciaTrie['findPath'] }).findPath = ownFindPath
  return trie
}

async function filled(useKeyHashing: boolean): Promise<{ trie: MerklePatriciaTrie; keys: Uint8Array[] }> {
  const trie = unpatched(await createMPT({ useKeyHashing }))
  return { trie, keys: await fillTrie(trie) }
}

describe('followPath', () => {
  for (const useKeyHashing of [true, false]) {
    it(`finds what findPath finds, ${useKeyHashing ? 'hashed' : 'plain'} keys`, async () => {
      const { trie, keys } = await filled(useKeyHashing)
      const probes = [...keys, ...keys.map((k) => k.subarray(0, Math.max(1, k.length - 1))), ...Array.from({ length: 100 }, (_, i) => bytes(i + 5000, 20))]
      probes.push(hexToBytes('0xab'), hexToBytes('0xabcd'), hexToBytes('0xabcdef'), hexToBytes('0xabcdef01'), hexToBytes('0xabcdef0102'), hexToBytes('0xabce'))
      let found = 0
      for (const probe of probes) {
        const key = (trie as unknown as { appliedKey(k: Uint8Array): Uint8Array }).appliedKey(probe)
        const expected = await ownFindPath.call(trie, key)
        expect(pathShown(await followPath(trie, key)), bytesToHex(probe)).toEqual(pathShown(expected))
        if (expected.node !== null) found++
      }
      expect(found).toBeGreaterThanOrEqual(303)
    })
  }

  it('writes through it give the roots of EthereumJS walk, puts and deletes', async () => {
    expect(patchFindPath()).toBe(true)
    for (const useKeyHashing of [true, false]) {
      const mine = await createMPT({ useKeyHashing })
      const theirs = unpatched(await createMPT({ useKeyHashing }))
      await writeBothAlike(mine, theirs)
      await mine.del(bytes(1, 20))
      await theirs.del(bytes(1, 20))
      expect(bytesToHex(mine.root())).toBe(bytesToHex(theirs.root()))
    }
  })

  it('an empty trie and a missing node answer what findPath answers', async () => {
    patchFindPath()
    const empty = await createMPT({ useKeyHashing: true })
    expect(pathShown(await empty.findPath(bytes(1, 32)))).toEqual(pathShown(await ownFindPath.call(empty, bytes(1, 32))))
    const { trie } = await filled(true)
    const root = trie.root()
    const broken = await createMPT({ useKeyHashing: true })
    broken.root(root)
    const key = bytes(3, 32)
    expect(pathShown(await broken.findPath(key))).toEqual(pathShown(await ownFindPath.call(broken, key)))
    await expect(broken.findPath(key, true)).rejects.toThrow()
  })
})
