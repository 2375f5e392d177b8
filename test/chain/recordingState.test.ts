/**
 * The chain's state manager keeps storage writes in its cache until the flush
 * (src/chain/vm/recordingState.ts): the roots are EthereumJS's own (a state manager without
 * caches writes every slot to the trie at once), with checkpoints committed and reverted, and
 * when a block touches more addresses than the storage cache holds, no written slot is lost.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { Caches, CacheType, MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, bytesToHex, createAddressFromString, setLengthLeft, intToBytes, ValueEncoding } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { KeyBook } from '../../src/chain/vm/keyBook.ts'
import { RecordingStateManager } from '../../src/chain/vm/recordingState.ts'
import { MAX_SLOTS } from '../../src/chain/vm/slotCacheBound.ts'
import { TrieDatabase } from '../../src/chain/vm/trieDatabase.ts'

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
const trie = () => new MerklePatriciaTrie({ db: TrieDatabase.over(new Map()), valueEncoding: ValueEncoding.Bytes, useKeyHashing: true })
const address = (n: number) => createAddressFromString(`0x${(n + 1).toString(16).padStart(40, '0')}`)
const slot = (n: number) => setLengthLeft(intToBytes(n), 32)

/** The same writes on a state manager: accounts 0..n-1 with slots, checkpoints reverted and committed, a rewrite of a held value. */
async function block(state: MerkleStateManager, accounts: number): Promise<string> {
  for (let a = 0; a < accounts; a++) await state.putAccount(address(a), new Account(1n, 10n))
  await state.checkpoint()
  for (let a = 0; a < accounts; a++) {
    await state.putStorage(address(a), slot(1), intToBytes(a + 1))
    await state.checkpoint()
    await state.putStorage(address(a), slot(2), intToBytes(7))
    await state.putStorage(address(a), slot(1), intToBytes(99))
    if (a % 2 === 0) await state.revert()
    else await state.commit()
    await state.putStorage(address(a), slot(3), intToBytes(a % 3))
    await state.putStorage(address(a), slot(3), intToBytes(a % 3))
  }
  await state.commit()
  return bytesToHex(await state.getStateRoot())
}

describe('RecordingStateManager storage writes', () => {
  it('gives the root of a state manager that writes each slot to the trie', async () => {
    const plain = await block(new MerkleStateManager({ common, trie: trie() }), 12)
    const caches = new Caches({ account: { type: CacheType.LRU, size: 100 }, storage: { type: CacheType.LRU, size: 100 } })
    const recording = new RecordingStateManager({ common, trie: trie(), caches }, new KeyBook())
    expect(await block(recording, 12)).toBe(plain)
    // Read back after the flush, from the cache and from the trie.
    expect(bytesToHex(await recording.getStorage(address(1), slot(1)))).toBe('0x63')
    expect(bytesToHex(await recording.getStorage(address(2), slot(1)))).toBe('0x03')
  })

  it('loses no written slot when a block touches more addresses than the storage cache holds', async () => {
    const plain = new MerkleStateManager({ common, trie: trie() })
    const caches = new Caches({ account: { type: CacheType.LRU, size: 100 }, storage: { type: CacheType.LRU, size: 8 } })
    const recording = new RecordingStateManager({ common, trie: trie(), caches }, new KeyBook())
    expect(await block(recording, 40)).toBe(await block(plain, 40))
    // Back to its own size once nothing written waits in it; the next block as well.
    expect(caches.storage!['_lruCache']!.max).toBe(8)
    expect(await block(recording, 30)).toBe(await block(plain, 30))
  })

  it('keeps at most MAX_SLOTS slots of an address in its cache after a flush, and reads the dropped ones from the trie', async () => {
    const caches = new Caches({ account: { type: CacheType.LRU, size: 100 }, storage: { type: CacheType.LRU, size: 100 } })
    const state = new RecordingStateManager({ common, trie: trie(), caches }, new KeyBook())
    const plain = new MerkleStateManager({ common, trie: trie() })
    const count = MAX_SLOTS + 100
    for (const s of [state, plain]) {
      await s.putAccount(address(0), new Account(1n, 10n))
      await s.checkpoint()
      for (let i = 0; i < count; i++) await s.putStorage(address(0), slot(i), intToBytes(i + 1))
      await s.commit()
    }
    expect(bytesToHex(await state.getStateRoot())).toBe(bytesToHex(await plain.getStateRoot()))
    const cached = (caches.storage as unknown as { _lruCache: { peek(a: string): Map<string, unknown> } })._lruCache.peek(address(0).toString().slice(2))!
    expect(cached.size).toBe(MAX_SLOTS / 2)
    for (let i = 0; i < count; i++) expect(await state.getStorage(address(0), slot(i))).toEqual(intToBytes(i + 1))
  })

  it("refuses a slot of an account that is not there as EthereumJS's own does (deleted, cached as absent, never read), writes one of a cached account, and books the slot", async () => {
    const caches = () => new Caches({ account: { type: CacheType.LRU, size: 100 }, storage: { type: CacheType.LRU, size: 100 } })
    const plain = new MerkleStateManager({ common, trie: trie(), caches: caches() })
    const book = new KeyBook()
    const recording = new RecordingStateManager({ common, trie: trie(), caches: caches() }, book)
    const outcomes = async (state: MerkleStateManager) => {
      await state.putAccount(address(0), new Account(1n, 10n))
      await state.putAccount(address(1), new Account(1n, 10n))
      await state.deleteAccount(address(1))
      await state.getAccount(address(2))
      const tried = []
      for (const a of [0, 1, 2, 3]) tried.push(await state.putStorage(address(a), slot(5), intToBytes(9)).then(() => 'written', (e: Error) => e.message))
      return [...tried, bytesToHex(await state.getStorage(address(0), slot(5))), bytesToHex(await state.getStateRoot())]
    }
    const want = await outcomes(plain)
    expect(want.slice(0, 4)).toEqual(['written', ...Array(3).fill('putStorage() called on non-existing account')])
    expect(await outcomes(recording)).toEqual(want)
    expect([...book.entries()].map(([a, slots]) => [a, [...slots]])).toContainEqual([address(0).toString(), [bytesToHex(slot(5))]])
  })
})
