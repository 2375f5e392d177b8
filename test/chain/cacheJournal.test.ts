/**
 * A restore of the head keeps the state's caches, put back as they were at the snapshot, with what
 * the first block after it read (src/chain/vm/cacheJournal.ts): the blocks mined after a restore are the ones a chain that never
 * took the detour mines, root for root, whether the journal put the caches back (one snapshot, the
 * same one twice, the storage tries kept) or the restore emptied them (a restore past a later
 * snapshot, a state edit).
 */
import { describe, expect, it } from 'vitest'
import type { Chain } from '../../src/chain/chain.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { clientFor } from '../support/rpcClient.ts'
import { account, signed1559 } from './txSigning.ts'

const FIXTURE = new URL('../../fixtures/ethereum', import.meta.url).pathname
const alice = account('alice').address
const bob = account('bob').address
/** A counter: slot 0 += 1 per call (PUSH1 0 SLOAD PUSH1 1 ADD PUSH1 0 SSTORE STOP), and its init code. */
const COUNTER_INIT = '0x600a600c600039600a6000f3' + '600054600101600055' + '00'

/** Two chains from the same fixture and clock (every block one second after its parent), each deploying the counter. */
async function twins(): Promise<{ chain: Chain; twin: Chain; counter: string }> {
  const load = () => loadFixture(FIXTURE, { name: 'ethereum', clock: { now: () => 0 } })
  const [chain, twin] = [await load(), await load()]
  let counter = ''
  for (const c of [chain, twin]) {
    const hash = await c.sendRawTransaction(hexBytes(signed1559(c, 'alice', { nonce: await nonce(c), data: COUNTER_INIT as `0x${string}`, gasLimit: 100_000n })))
    counter = ((await clientFor(c).call('eth_getTransactionReceipt', [hash])).result as { contractAddress: string }).contractAddress
  }
  return { chain, twin, counter }
}

const hexBytes = (hex: string) => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'))
const nonce = async (c: Chain, of = alice) => BigInt((await clientFor(c).call('eth_getTransactionCount', [of, 'latest'])).result as string)
const bump = async (c: Chain, counter: string) => c.sendRawTransaction(hexBytes(signed1559(c, 'alice', { nonce: await nonce(c), to: counter as `0x${string}`, gasLimit: 100_000n })))
const pay = async (c: Chain, from: string, value: bigint) => c.sendRawTransaction(hexBytes(signed1559(c, from, { nonce: await nonce(c, account(from).address), to: bob, value })))
const count = async (c: Chain, counter: string) => BigInt((await clientFor(c).call('eth_getStorageAt', [counter, '0x0', 'latest'])).result as string)
const edit = [{ address: bob.toLowerCase(), balance: '0xde0b6b3a7640000' }]

describe('the head state’s caches across a restore', () => {
  it('a send after a restore mines the block a chain without the detour mines, and the caches hold the snapshot’s entries', async () => {
    const { chain, twin, counter } = await twins()
    const start = chain.snapshot()
    await bump(chain, counter)
    await bump(chain, counter)
    await pay(chain, 'alice', 5n)
    expect(await count(chain, counter)).toBe(2n)
    await chain.restore(start)
    const caches = (await (chain as unknown as { store: { getState(): Promise<{ _caches: unknown }> } }).store.getState())._caches as unknown as {
      account: { _lruCache: { peek(k: string): unknown } }
      storage: { _lruCache: { peek(k: string): Map<string, Uint8Array> | undefined } }
    }
    expect(caches.account._lruCache.peek(alice.slice(2).toLowerCase())).toBeDefined()
    // The counter's slot, first read in the block after the snapshot, is kept as it was then (empty: RLP 0x80).
    expect(caches.storage._lruCache.peek(counter.slice(2).toLowerCase())?.get('0'.repeat(64))).toEqual(Uint8Array.of(0x80))
    expect(await count(chain, counter)).toBe(0n)
    for (const c of [chain, twin]) {
      await bump(c, counter)
      await pay(c, 'alice', 7n)
    }
    expect(chain.head.hash).toBe(twin.head.hash)
    expect(await count(chain, counter)).toBe(1n)
  })

  it('the same snapshot restored again, and again after blocks mined on the restored head', async () => {
    const { chain, twin, counter } = await twins()
    const start = chain.snapshot()
    for (let round = 0; round < 3; round++) {
      await bump(chain, counter)
      await pay(chain, 'alice', BigInt(round + 1))
      await chain.restore(start)
    }
    await bump(chain, counter)
    await bump(twin, counter)
    expect(chain.head.hash).toBe(twin.head.hash)
  })

  it('the storage tries held at the snapshot come back at their roots then, and the blocks after are the twin’s', async () => {
    const { chain, twin, counter } = await twins()
    for (const c of [chain, twin]) await bump(c, counter)
    const state = await (chain as unknown as { store: { getState(): Promise<{ _storageTries: Record<string, { root(): Uint8Array }> }> } }).store.getState()
    const before = Object.entries(state._storageTries).map(([key, trie]) => [key, trie, trie.root()] as const)
    expect(before.length).toBeGreaterThan(0)
    const start = chain.snapshot()
    await bump(chain, counter)
    await pay(chain, 'alice', 9n)
    await chain.restore(start)
    for (const [key, trie, root] of before) {
      expect(state._storageTries[key]).toBe(trie)
      expect(trie.root()).toEqual(root)
    }
    expect(await count(chain, counter)).toBe(1n)
    for (const c of [chain, twin]) {
      await bump(c, counter)
      await pay(c, 'alice', 4n)
    }
    expect(chain.head.hash).toBe(twin.head.hash)
    expect(await count(chain, counter)).toBe(2n)
  })

  it('a restore past a later snapshot, and one after a state edit, empty the caches and still mine the same blocks', async () => {
    const { chain, twin, counter } = await twins()
    const outer = chain.snapshot()
    await bump(chain, counter)
    const inner = chain.snapshot()
    await bump(chain, counter)
    await chain.restore(outer)
    expect(await count(chain, counter)).toBe(0n)
    await chain.restore(inner)
    expect(await count(chain, counter)).toBe(1n)
    await chain.restore(outer)
    await chain.editState(edit)
    const edited = chain.snapshot()
    await bump(chain, counter)
    await chain.restore(edited)
    await twin.editState(edit)
    for (const c of [chain, twin]) {
      await bump(c, counter)
      await pay(c, 'bob', 3n)
    }
    expect(chain.head.hash).toBe(twin.head.hash)
    expect(await count(chain, counter)).toBe(1n)
  })
})
