/**
 * The references pruning reads from a node's RLP (src/chain/vm/stateReach.ts `edgesOf`, which scans
 * the bytes without decoding them into arrays) against EthereumJS's RLP decoder, for every node of
 * a storage-like trie with embedded nodes and prefix keys, and of an account trie whose leaves name
 * storage roots and code.
 */
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, MapDB, ValueEncoding } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { edgesOf } from '../../src/chain/vm/stateReach.ts'
import { bytes, fillTrie } from '../support/trieFixture.ts'

type Ref = `${'node' | 'storage' | 'code'} ${string}`

/** The references as the decoder finds them. */
function decoded(node: unknown, accounts: boolean, refs: Ref[]): Ref[] {
  if (!Array.isArray(node)) return refs
  const child = (ref: unknown) => {
    if (ref instanceof Uint8Array) {
      if (ref.length === 32) refs.push(`node ${bytesToHex(ref).slice(2)}`)
    } else decoded(ref, accounts, refs)
  }
  if (node.length === 17) for (let i = 0; i < 16; i++) child(node[i])
  else if (node.length === 2) {
    const path = node[0] as Uint8Array
    if (path.length === 0 || path[0]! >> 4 < 2) child(node[1])
    else if (accounts && node[1] instanceof Uint8Array) {
      const [, , storageRoot, codeHash] = RLP.decode(node[1]) as Uint8Array[]
      if (storageRoot!.length === 32) refs.push(`storage ${bytesToHex(storageRoot!).slice(2)}`)
      if (codeHash!.length === 32) refs.push(`code ${bytesToHex(codeHash!).slice(2)}`)
    }
  }
  return refs
}

/** `edgesOf`'s Latin-1 string, read back: a kind byte and a 32-byte key each. */
function scanned(edges: string): Ref[] {
  const kinds = ['node', 'storage', 'code'] as const
  const bytes = Buffer.from(edges, 'latin1')
  expect(bytes.length % 33).toBe(0)
  const refs: Ref[] = []
  for (let at = 0; at < bytes.length; at += 33) refs.push(`${kinds[bytes[at]!]!} ${bytes.toString('hex', at + 1, at + 33)}`)
  return refs
}

async function nodesOf(fill: (trie: MerklePatriciaTrie) => Promise<unknown>): Promise<Uint8Array[]> {
  const db = new MapDB<string, Uint8Array>()
  const trie = new MerklePatriciaTrie({ db, valueEncoding: ValueEncoding.Bytes })
  await fill(trie)
  return [...db._database.values()]
}

describe('edgesOf', () => {
  it('reads the references of every node of a trie with embedded nodes as the decoder does', async () => {
    const nodes = await nodesOf(fillTrie)
    expect(nodes.length).toBeGreaterThan(100)
    let embedded = 0
    for (const node of nodes) {
      const want = decoded(RLP.decode(node), false, [])
      expect(scanned(edgesOf(node, false))).toEqual(want)
      // As an account trie's node: its leaves' values are not accounts, so the same references.
      if ((RLP.decode(node) as unknown[]).some((item) => Array.isArray(item))) embedded++
    }
    expect(embedded).toBeGreaterThan(0)
  })

  it("reads an account leaf's storage root and code hash, and nothing from a storage leaf", async () => {
    const nodes = await nodesOf(async (trie) => {
      for (let i = 0; i < 200; i++) {
        const account = RLP.encode([i, bytes(i, 1 + (i % 9)), bytes(i + 500, 32), bytes(i + 900, 32)])
        await trie.put(bytes(i, 32), account)
      }
    })
    let leaves = 0
    for (const node of nodes) {
      const want = decoded(RLP.decode(node), true, [])
      expect(scanned(edgesOf(node, true))).toEqual(want)
      if (want.some((ref) => ref.startsWith('code'))) {
        leaves++
        expect(edgesOf(node, false)).toBe('')
      }
    }
    expect(leaves).toBeGreaterThanOrEqual(200)
  })
})
