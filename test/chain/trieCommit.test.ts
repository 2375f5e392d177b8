/**
 * src/chain/vm/trieCommit.ts writes a set of changes to a trie in one pass: the roots, the nodes
 * the new trie holds (byte for byte, and nothing else written) and the proofs are those of
 * EthereumJS's put and del one key after the other. A fuzz with a fixed seed: rounds of random
 * inserts, updates and deletes (of held and absent keys, down to the empty trie and back) on tries
 * with hashed 32-byte keys, and with plain 3-byte keys from a small alphabet (long shared paths;
 * with short values, nodes embedded in their parents). Keys of one length, as the state's tries
 * have: where one key is a prefix of another, EthereumJS 10.1.3's `del` can leave a trie that is
 * not the one its keys make (its root differs from the same keys put into an empty trie), and the
 * one-pass commit makes the latter.
 */
import { createMerkleProof, decodeMPTNode, decodeRawMPTNode, BranchMPTNode, ExtensionMPTNode, MerklePatriciaTrie } from '@ethereumjs/mpt'
import type { MPTNode } from '@ethereumjs/mpt'
import type { BatchDBOp, DB } from '@ethereumjs/util'
import { bytesToHex, ValueEncoding } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { commitWrites } from '../../src/chain/vm/trieCommit.ts'
import type { TrieWrite } from '../../src/chain/vm/trieCommit.ts'
import { random } from '../support/trieFixture.ts'

/** A database that shows what was written to it. */
class SeenDB implements DB<string, Uint8Array> {
  readonly entries = new Map<string, Uint8Array>()
  async get(key: string) {
    return this.entries.get(key)
  }
  async put(key: string, value: Uint8Array) {
    this.entries.set(key, value)
  }
  async del(key: string) {
    this.entries.delete(key)
  }
  async batch(ops: BatchDBOp<string, Uint8Array>[]) {
    for (const op of ops) await (op.type === 'put' ? this.put(op.key, op.value!) : this.del(op.key))
  }
  shallowCopy() {
    return this
  }
  async open() {}
}

const trieOver = (db: SeenDB, useKeyHashing: boolean) => new MerklePatriciaTrie({ db: db as never, valueEncoding: ValueEncoding.Bytes, useKeyHashing })
const applied = (trie: MerklePatriciaTrie, key: Uint8Array) => (trie as unknown as { appliedKey(k: Uint8Array): Uint8Array }).appliedKey(key)

/** The stored nodes the trie at `root` reaches, by hash. */
async function reachable(db: SeenDB, root: Uint8Array, empty: Uint8Array): Promise<Map<string, string>> {
  const seen = new Map<string, string>()
  if (bytesToHex(root) === bytesToHex(empty)) return seen
  const visit = (node: MPTNode) => {
    const refs = node instanceof BranchMPTNode ? node.getChildren().map(([, r]) => r) : node instanceof ExtensionMPTNode ? [node.value()] : []
    for (const ref of refs) {
      if (Array.isArray(ref)) visit(decodeRawMPTNode(ref as Uint8Array[]))
      else follow(ref as Uint8Array)
    }
  }
  const follow = (hash: Uint8Array) => {
    const key = bytesToHex(hash).slice(2)
    const value = db.entries.get(key)
    expect(value, `node ${key}`).toBeDefined()
    seen.set(key, bytesToHex(value!))
    visit(decodeMPTNode(value!))
  }
  follow(root)
  return seen
}

function keyMaker(rand: () => number, hashed: boolean): () => Uint8Array {
  if (hashed) return () => Uint8Array.from({ length: 20 }, () => Math.floor(rand() * 256))
  // Plain 3-byte keys from a few byte values: many shared prefixes, short paths (small, embedded nodes).
  return () => Uint8Array.from({ length: 3 }, () => [0x00, 0x01, 0x10, 0x11, 0xab, 0xff][Math.floor(rand() * 6)]!)
}

async function fuzz(seed: number, hashed: boolean): Promise<void> {
  const rand = random(seed)
  const newKey = keyMaker(rand, hashed)
  const value = () => Uint8Array.from({ length: rand() < 0.5 ? 1 + Math.floor(rand() * 3) : 33 + Math.floor(rand() * 40) }, () => 1 + Math.floor(rand() * 255))
  const oneDb = new SeenDB()
  const passDb = new SeenDB()
  const one = trieOver(oneDb, hashed)
  const pass = trieOver(passDb, hashed)
  const held: Uint8Array[] = []
  for (let round = 0; round < 65; round++) {
    const writes: { key: Uint8Array; value: Uint8Array | null }[] = []
    const size = round % 10 === 9 ? held.length + 2 : 1 + Math.floor(rand() * 25)
    for (let i = 0; i < size; i++) {
      const r = rand()
      // Every 10th round deletes everything held: the trie goes empty and fills again.
      if (round % 10 === 9) writes.push({ key: held[i] ?? newKey(), value: null })
      else if (r < 0.4 || held.length === 0) writes.push({ key: newKey(), value: value() })
      else if (r < 0.7) writes.push({ key: held[Math.floor(rand() * held.length)]!, value: value() })
      else if (r < 0.95) writes.push({ key: held[Math.floor(rand() * held.length)]!, value: null })
      else writes.push({ key: newKey(), value: null })
    }
    for (const w of writes) await (w.value === null ? one.del(w.key) : one.put(w.key, w.value))
    const before = new Set(passDb.entries.keys())
    await commitWrites(pass, writes.map((w): TrieWrite => ({ key: applied(pass, w.key), value: w.value })))
    for (const w of writes) {
      const at = held.findIndex((k) => bytesToHex(k) === bytesToHex(w.key))
      if (w.value === null && at >= 0) held.splice(at, 1)
      if (w.value !== null && at < 0) held.push(w.key)
    }
    const where = `seed ${seed}, round ${round}`
    expect(bytesToHex(pass.root()), where).toBe(bytesToHex(one.root()))
    const nodes = await reachable(passDb, pass.root(), pass.EMPTY_TRIE_ROOT)
    expect(nodes, where).toEqual(await reachable(oneDb, one.root(), one.EMPTY_TRIE_ROOT))
    // Written this round: only nodes of the new trie.
    for (const key of passDb.entries.keys()) if (!before.has(key)) expect(nodes.has(key), `${where}: ${key} written, not reached`).toBe(true)
    for (const key of [...held.slice(0, 5), newKey()]) {
      expect(bytesToHex((await pass.get(key)) ?? new Uint8Array()), where).toBe(bytesToHex((await one.get(key)) ?? new Uint8Array()))
      if (held.length > 0) expect((await createMerkleProof(pass, key)).map(bytesToHex), where).toEqual((await createMerkleProof(one, key)).map(bytesToHex))
    }
  }
  expect(held.length).toBeGreaterThan(0)
}

describe('commitWrites', () => {
  for (const seed of [1, 2, 3]) {
    it(`makes EthereumJS's trie with hashed keys (seed ${seed})`, async () => {
      await fuzz(seed, true)
    })
    it(`makes EthereumJS's trie with plain short keys (seed ${seed})`, async () => {
      await fuzz(seed, false)
    })
  }

  it('leaves the trie as it was for no change, and for deletes of keys it does not hold', async () => {
    const trie = trieOver(new SeenDB(), true)
    await trie.put(Uint8Array.of(1), Uint8Array.of(2))
    const root = bytesToHex(trie.root())
    await commitWrites(trie, [])
    await commitWrites(trie, [{ key: applied(trie, Uint8Array.of(9)), value: null }])
    expect(bytesToHex(trie.root())).toBe(root)
  })
})
