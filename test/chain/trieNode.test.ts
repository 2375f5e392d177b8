/**
 * src/chain/vm/trieNode.ts reads a stored trie node as EthereumJS's own `lookupNode` does: every
 * node of a trie with hashed and plain keys, small nodes embedded in their parents, a branch's own
 * value and long values, decoded to the same class with the same bytes; RLP that is not canonical
 * is refused by its reader (EthereumJS's then decides), and a missing node is EthereumJS's error.
 * Tries written and read through it have the roots and values of EthereumJS's own.
 */
import { createMPT, decodeMPTNode, MerklePatriciaTrie } from '@ethereumjs/mpt'
import type { MPTNode } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { decodeNodeItems, ownLookupNode, patchLookupNode } from '../../src/chain/vm/trieNode.ts'
import { bytes, fillTrie, writeBothAlike } from '../support/trieFixture.ts'

/** A node as its class and every field's bytes, nested lists included. */
function shown(node: MPTNode): unknown {
  const show = (v: unknown): unknown => (v instanceof Uint8Array ? bytesToHex(v) : Array.isArray(v) ? v.map(show) : v)
  return { kind: node.constructor.name, raw: show(node.raw()), serialized: bytesToHex(node.serialize()) }
}

/** Every node stored in the trie's database (keys as the database holds them). */
async function storedNodes(trie: MerklePatriciaTrie): Promise<Uint8Array[]> {
  const db = trie.database().db as unknown as { _database: Map<string, Uint8Array | string> }
  return [...db._database.keys()].map((k) => hexToBytes(`0x${k}`))
}

describe('lookupNode, one copy and views', () => {
  it('is applied to @ethereumjs/mpt 10.1.3, the version installed', () => {
    expect(patchLookupNode()).toBe(true)
    expect(MerklePatriciaTrie.prototype.lookupNode).not.toBe(ownLookupNode)
  })

  for (const useKeyHashing of [true, false]) {
    it(`decodes every stored node as EthereumJS's own, ${useKeyHashing ? 'hashed' : 'plain'} keys`, async () => {
      patchLookupNode()
      const trie = await createMPT({ useKeyHashing })
      await fillTrie(trie)
      // A long value (a string over 55 bytes, its length in the long form) and a branch's own value.
      await trie.put(bytes(9001, 12), bytes(9002, 300))
      const hashes = await storedNodes(trie)
      expect(hashes.length).toBeGreaterThan(100)
      const kinds = new Set<string>()
      let embedded = 0
      for (const hash of hashes) {
        const mine = await trie.lookupNode(hash)
        const theirs = await ownLookupNode.call(trie, hash)
        expect(shown(mine), bytesToHex(hash)).toEqual(shown(theirs))
        kinds.add(mine.constructor.name)
        if (mine.raw().some((item) => Array.isArray(item))) embedded++
      }
      expect([...kinds].sort()).toEqual(['BranchMPTNode', 'ExtensionMPTNode', 'LeafMPTNode'])
      // Short plain keys make nodes under 32 bytes, embedded in their parents (hashed keys never do).
      if (!useKeyHashing) expect(embedded).toBeGreaterThan(0)
    })
  }

  it('reads what RLP.decode reads, and refuses what it throws on or reads otherwise', () => {
    const branch = RLP.encode([...Array.from({ length: 16 }, (_, i) => (i % 3 === 0 ? new Uint8Array() : bytes(i, 32))), bytes(99, 70)])
    expect(decodeNodeItems(branch)).toEqual(RLP.decode(branch))
    const withList = RLP.encode([bytes(1, 3), [bytes(2, 2), hexToBytes('0x05')]])
    expect(decodeNodeItems(withList)).toEqual(RLP.decode(withList))
    const refused = [
      '0x', // nothing
      '0x8105', // a single byte under 0x80 with a prefix
      '0xc4820102', // a list longer than the bytes there
      '0xc20102ff', // bytes after the node
      '0xb801aa', // a long-form string of 1 byte
      '0xf900030102', // a long-form length with a leading zero
      '0x82', // a string past the end
      '0x05', // not a list
    ]
    for (const hex of refused) {
      const input = hexToBytes(hex as `0x${string}`)
      expect(decodeNodeItems(input), hex).toBeUndefined()
      let decoded: unknown
      try {
        decoded = RLP.decode(input)
      } catch {
        decoded = 'throws'
      }
      // RLP.decode throws on each, or reads something that is not a list (no node).
      expect(decoded === 'throws' || !Array.isArray(decoded), hex).toBe(true)
    }
  })

  it("gives each node bytes of its own, not the database's", async () => {
    patchLookupNode()
    const trie = await createMPT({ useKeyHashing: true })
    await fillTrie(trie)
    const node = await trie.lookupNode(trie.root())
    const before = shown(node)
    expect(before).toEqual(shown(decodeMPTNode((await trie.database().get(trie.root()))!)))
    // A child's hash written over in the node read: the database's node stays as it was.
    const child = (node.raw() as Uint8Array[]).find((item) => item instanceof Uint8Array && item.length === 32)!
    child.fill(0)
    expect(shown(await trie.lookupNode(trie.root()))).toEqual(before)
  })

  it("a missing node and an embedded node are EthereumJS's own", async () => {
    patchLookupNode()
    const trie = await createMPT({ useKeyHashing: true })
    await expect(trie.lookupNode(bytes(5, 32))).rejects.toThrow('Missing node in DB')
    const raw = [hexToBytes('0x3a'), hexToBytes('0x01')]
    expect(shown(await trie.lookupNode(raw))).toEqual(shown(await ownLookupNode.call(trie, raw)))
  })

  it("tries written and read through it have the roots and values of EthereumJS's own", async () => {
    patchLookupNode()
    const mine = await createMPT({ useKeyHashing: true })
    const theirs = await createMPT({ useKeyHashing: true })
    ;(theirs as { lookupNode: MerklePatriciaTrie['lookupNode'] }).lookupNode = ownLookupNode
    await writeBothAlike(mine, theirs)
    for (let i = 0; i < 150; i++) {
      const key = bytes(i, 1 + (i % 7) * 5)
      const [a, b] = [await mine.get(key), await theirs.get(key)]
      expect(a === null ? null : bytesToHex(a)).toBe(b === null ? null : bytesToHex(b))
    }
  })
})
