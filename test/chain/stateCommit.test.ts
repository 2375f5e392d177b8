/**
 * The chain's state manager flushes its caches with each trie written in one pass
 * (src/chain/vm/stateCommit.ts): over blocks of random writes (accounts made, changed and deleted,
 * slots set, changed and cleared to zero, storage cleared, code put, contracts destroyed with their
 * storage, calls rolled back; the root asked inside the block's checkpoint, as runBlock does, and
 * the block then committed or reverted), its state roots and EIP-1186 proofs are those of the same state
 * manager with EthereumJS's own flush, put by put. A fixed seed.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { Caches, CacheType, getMerkleStateProof, MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, bytesToHex, createAddressFromString, intToBytes, setLengthLeft, ValueEncoding } from '@ethereumjs/util'
import type { Address } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { KeyBook } from '../../src/chain/vm/keyBook.ts'
import { RecordingStateManager } from '../../src/chain/vm/recordingState.ts'
import { flushInOnePass } from '../../src/chain/vm/stateCommit.ts'
import { TrieDatabase } from '../../src/chain/vm/trieDatabase.ts'
import { random } from '../support/trieFixture.ts'

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
const trie = () => new MerklePatriciaTrie({ db: TrieDatabase.over(new Map()), valueEncoding: ValueEncoding.Bytes, useKeyHashing: true })
const caches = () => new Caches({ account: { type: CacheType.LRU, size: 1000 }, storage: { type: CacheType.LRU, size: 1000 }, code: { type: CacheType.LRU, size: 100 } })
const address = (n: number) => createAddressFromString(`0x${(n + 1).toString(16).padStart(40, '0')}`)
const slot = (n: number) => setLengthLeft(intToBytes(n), 32)

/** One block's random writes, the same on every state given the same generator. */
async function block(state: MerkleStateManager, rand: () => number): Promise<void> {
  const pick = (n: number) => Math.floor(rand() * n)
  await state.checkpoint()
  for (let step = 0, steps = 1 + pick(30); step < steps; step++) {
    const who = address(pick(40))
    const r = rand()
    const account = await state.getAccount(who)
    if (account === undefined || r < 0.15) await state.putAccount(who, new Account(BigInt(pick(5)), BigInt(pick(1e6))))
    else if (r < 0.6) await state.putStorage(who, slot(pick(12)), rand() < 0.3 ? new Uint8Array() : intToBytes(1 + pick(1e9)))
    else if (r < 0.7) await state.modifyAccountFields(who, { balance: BigInt(pick(1e9)) })
    else if (r < 0.78) await state.putCode(who, Uint8Array.from({ length: 1 + pick(40) }, () => pick(256)))
    else if (r < 0.86) await state.clearStorage(who)
    else if (r < 0.94) await state.deleteAccount(who)
    else {
      // A call that is rolled back.
      await state.checkpoint()
      await state.putStorage(who, slot(pick(12)), intToBytes(7))
      await state.revert()
    }
  }
  // runBlock asks for the state root inside its checkpoint (a flush into the trie's checkpoint), then commits or reverts.
  if (rand() < 0.5) {
    await state.getStateRoot()
    if (rand() < 0.2) {
      await state.revert()
      return
    }
  }
  await state.commit()
}

async function proofs(state: MerkleStateManager, who: Address[]): Promise<unknown[]> {
  return Promise.all(who.map((a) => getMerkleStateProof(state, a, [slot(0), slot(3), slot(11)])))
}

/** The chain's state manager with EthereumJS's own flush, put by put. */
class OwnFlush extends RecordingStateManager {
  override async flush(): Promise<void> {
    await MerkleStateManager.prototype.flush.call(this)
  }
}

describe('flushInOnePass', () => {
  it("gives EthereumJS's roots and proofs over blocks of random writes", async () => {
    const own = new OwnFlush({ common, trie: trie(), caches: caches() }, new KeyBook())
    const onePass = new RecordingStateManager({ common, trie: trie(), caches: caches() }, new KeyBook())
    const ownRand = random(19)
    const passRand = random(19)
    const roots = new Set<string>()
    for (let n = 0; n < 40; n++) {
      await block(own, ownRand)
      await block(onePass, passRand)
      const root = bytesToHex(await own.getStateRoot())
      expect(bytesToHex(await onePass.getStateRoot()), `block ${n}`).toBe(root)
      roots.add(root)
      if (n % 8 === 7) {
        const who = Array.from({ length: 40 }, (_, i) => address(i))
        expect(await proofs(onePass, who), `block ${n}`).toEqual(await proofs(own, who))
      }
    }
    expect(roots.size).toBeGreaterThan(30)
  })

  it('drops a deleted account\'s storage trie: made again, the account has none of its old slots', async () => {
    // EthereumJS's deleteAccount kept the trie at its old root (EIP-161 deletion, then an EIP-7702 authority: no clearStorage).
    const state = new RecordingStateManager({ common, trie: trie(), caches: caches() }, new KeyBook())
    const who = address(7)
    await state.putAccount(who, new Account(0n, 0n))
    await state.putStorage(who, slot(9), intToBytes(0x99))
    await state.getStateRoot()
    await state.checkpoint()
    await state.deleteAccount(who)
    await state.putAccount(who, new Account(1n, 0n))
    expect(await state.getStorage(who, slot(9))).toEqual(new Uint8Array())
    await state.putStorage(who, slot(6), intToBytes(0x66))
    const root = await state.getStateRoot()
    await state.commit()
    const fresh = new MerkleStateManager({ common, trie: trie(), caches: caches() })
    await fresh.putAccount(who, new Account(1n, 0n))
    await fresh.putStorage(who, slot(6), intToBytes(0x66))
    expect(bytesToHex(root)).toBe(bytesToHex(await fresh.getStateRoot()))
  })

  it('leaves a state it cannot write (a trie that prunes nodes) to EthereumJS', async () => {
    const t = new MerklePatriciaTrie({ db: TrieDatabase.over(new Map()), valueEncoding: ValueEncoding.Bytes, useKeyHashing: true, useNodePruning: true })
    const state = new RecordingStateManager({ common, trie: t, caches: caches() }, new KeyBook())
    expect(await flushInOnePass(state)).toBe(false)
    const plain = new RecordingStateManager({ common, trie: trie(), caches: caches() }, new KeyBook())
    expect(await flushInOnePass(plain)).toBe(true)
  })
})
