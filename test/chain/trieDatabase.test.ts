/**
 * The chain's layered trie database (src/chain/vm/trieDatabase.ts): a restore drops what was
 * written after its mark and keeps what was there, a fork writes apart, and past its depth the
 * lowest layer joins the base without changing any read. Through real tries: the roots read back.
 */
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { utf8ToBytes, ValueEncoding } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { keccak256 } from '../../src/encoding/keccak.ts'
import { TrieDatabase } from '../../src/chain/vm/trieDatabase.ts'

const trieOver = (db: TrieDatabase, root?: Uint8Array) =>
  new MerklePatriciaTrie({ db, valueEncoding: ValueEncoding.Bytes, useKeyHashing: true, ...(root ? { root } : {}) })

async function write(trie: MerklePatriciaTrie, key: string, value: string): Promise<Uint8Array> {
  await trie.put(utf8ToBytes(key), utf8ToBytes(value))
  return trie.root()
}

const read = async (db: TrieDatabase, root: Uint8Array, key: string) => {
  const value = await trieOver(db.shallowCopy(), root).get(utf8ToBytes(key))
  return value && new TextDecoder().decode(value)
}

describe('TrieDatabase', () => {
  it('a rewind drops the nodes written after the mark and keeps every state before it', async () => {
    const db = TrieDatabase.over(new Map())
    const trie = trieOver(db)
    const first = await write(trie, 'a', 'one')
    const mark = db.mark()
    const second = await write(trie, 'b', 'two')
    expect(await read(db, second, 'b')).toBe('two')
    expect(await trie.checkRoot(second)).toBe(true)

    db.rewind(mark)
    expect(await trie.checkRoot(second)).toBe(false)
    expect(await read(db, first, 'a')).toBe('one')
    // Written again after the rewind, the same state has the same root and reads back.
    trie.root(first)
    expect(await write(trie, 'b', 'two')).toEqual(second)
    expect(await read(db, second, 'b')).toBe('two')
  })

  it('a mark with nothing written since is the previous one; a kept mark can be restored after another restore', async () => {
    const db = TrieDatabase.over(new Map())
    const trie = trieOver(db)
    await write(trie, 'a', 'one')
    const m1 = db.mark()
    expect(db.mark()).toBe(m1)
    const second = await write(trie, 'b', 'two')
    const m2 = db.mark()
    db.rewind(m1)
    expect(await trie.checkRoot(second)).toBe(false)
    db.rewind(m2)
    expect(await read(db, second, 'b')).toBe('two')
  })

  it('a fork writes to a top of its own over the same layers', async () => {
    const db = TrieDatabase.over(new Map())
    const trie = trieOver(db)
    const shared = await write(trie, 'a', 'one')
    const forkTrie = trie.shallowCopy(false)
    const holder = { _trie: forkTrie } as unknown as Parameters<TrieDatabase['forkUnder']>[0]
    db.forkUnder(holder)
    const forked = forkTrie.database().db as TrieDatabase
    expect(forked).not.toBe(db)
    const onFork = await write(forkTrie, 'f', 'fork')
    const onMain = await write(trie, 'm', 'main')
    expect(await read(forked, onFork, 'f')).toBe('fork')
    expect(await read(forked, shared, 'a')).toBe('one')
    expect(await trieOver(db.shallowCopy()).checkRoot(onFork)).toBe(false)
    expect(await trieOver(forked.shallowCopy()).checkRoot(onMain)).toBe(false)
  })

  it('past its depth the lowest layers join the base: every state still reads back', async () => {
    const db = TrieDatabase.over(new Map())
    const trie = trieOver(db)
    const roots: Uint8Array[] = []
    for (let i = 0; i < 40; i++) {
      roots.push(await write(trie, `k${i}`, `v${i}`))
      db.mark()
    }
    expect(db.depth).toBeLessThanOrEqual(16)
    for (let i = 0; i < 40; i++) expect(await read(db, roots[i]!, `k${i}`)).toBe(`v${i}`)
  })

  it('a pruning keeps what the given states reach and drops the rest; one after another drops what one pruning at the end would', async () => {
    // Two databases take the same writes; `a` is pruned along the way (its later prunings reuse
    // what the first walked), `b` once at the end.
    const run = async (prunings: number[]) => {
      const db = TrieDatabase.over(new Map())
      db.mark()
      const trie = trieOver(db)
      const roots: Uint8Array[] = []
      let dropped = 0
      for (let i = 0; i < 60; i++) {
        roots.push(await write(trie, `k${i % 20}`, `v${i}`))
        if (prunings.includes(i)) dropped += db.prune(roots.slice(-10))
      }
      // A state pruned away, written again: its nodes are back, and the next pruning walks them.
      trie.root(trie.EMPTY_TRIE_ROOT)
      for (let i = 0; i < 6; i++) await write(trie, `k${i}`, `v${i}`)
      expect(trie.root()).toEqual(roots[5])
      dropped += db.prune([...roots.slice(-10), roots[5]!])
      return { db, roots, dropped }
    }
    const a = await run([19, 29, 39, 49])
    const b = await run([])
    expect(a.dropped).toBeGreaterThan(b.dropped / 2)
    for (const [i, root] of a.roots.entries()) expect(a.db.has(root), `root ${i}`).toBe(b.db.has(root))
    expect(a.db.has(a.roots[30]!)).toBe(false)
    // Every kept state reads whole: no node they reach went.
    for (let i = 50; i < 60; i++) {
      // The last write of key k up to write i.
      for (let k = 0; k < 20; k++) expect(await read(a.db, a.roots[i]!, `k${k}`)).toBe(`v${i - ((i - k) % 20)}`)
    }
    for (let k = 0; k < 6; k++) expect(await read(a.db, a.roots[5]!, `k${k}`)).toBe(`v${k}`)
    expect(a.db.prune([...a.roots.slice(-10), a.roots[5]!])).toBe(0)
  })

  it("a pruning keeps the storage trie and the code an account leaf names, and drops what no kept state names", async () => {
    const db = TrieDatabase.over(new Map())
    db.mark()
    const storage = trieOver(db)
    const replaced = await write(storage, 'slot', 'old')
    const storageRoot = await write(storage, 'slot', 'new')
    const code = utf8ToBytes('the account code')
    const orphan = utf8ToBytes('code no account names')
    await db.put(keccak256(code), code)
    await db.put(keccak256(orphan), orphan)
    const accounts = trieOver(db)
    await accounts.put(utf8ToBytes('account'), RLP.encode([1, 2, storageRoot, keccak256(code)]))
    expect(db.prune([accounts.root()])).toBe(2)
    expect(await read(db, storageRoot, 'slot')).toBe('new')
    expect(await db.get(keccak256(code))).toEqual(code)
    expect(db.has(replaced)).toBe(false)
    expect(await db.get(keccak256(orphan))).toBeUndefined()
  })
})
