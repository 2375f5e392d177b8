/**
 * Admission reads the sender's account at the head from the head state's caches when they hold it
 * at rest at the head's root (src/chain/store/headAccount.ts, src/chain/vm/cacheJournal.ts
 * `restingAccount`), and from a read state of the head otherwise. Its answers are geth's wherever
 * the head came from (a block mined, a restore, a state edit), and after a block it makes no read
 * state of the new head.
 */
import { describe, expect, it, vi } from 'vitest'
import type { Chain } from '../../src/chain/chain.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { keccak256 } from '../../src/encoding/keccak.ts'
import { account, nextCommon, signed1559 } from './txSigning.ts'

const FIXTURE = new URL('../../fixtures/ethereum', import.meta.url).pathname
const bob = account('bob').address
const hexBytes = (hex: string) => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'))
const load = () => loadFixture(FIXTURE, { name: 'ethereum', clock: { now: () => 0 } })
const pay = (c: Chain, from: string, nonce: bigint, value = 1n) => c.sendRawTransaction(hexBytes(signed1559(c, from, { nonce, to: bob, value })))
const rejection = (p: Promise<unknown>) => p.then(() => 'accepted', (err: Error) => err.message)
const storeOf = (c: Chain) => (c as unknown as { store: { stateAt(...a: unknown[]): unknown } }).store

describe('the head’s accounts as admission reads them', () => {
  it('after a block: the nonce and balance the block left, read without a read state of the new head', async () => {
    const chain = await load()
    const first = (await chain.pendingNonce(account('alice').address))
    await pay(chain, 'alice', first)
    const stateAt = vi.spyOn(storeOf(chain), 'stateAt')
    await pay(chain, 'alice', first + 1n)
    expect(stateAt).not.toHaveBeenCalled()
    stateAt.mockRestore()
    expect(await rejection(pay(chain, 'alice', first + 1n))).toBe(`nonce too low: next nonce ${first + 2n}, tx nonce ${first + 1n}`)
  })

  it('after a restore, a state edit and a restore past it: the state each left', async () => {
    const chain = await load()
    const alice = account('alice').address.toLowerCase()
    const first = (await chain.pendingNonce(alice))
    const start = chain.snapshot()
    await pay(chain, 'alice', first)
    await pay(chain, 'alice', first + 1n)
    await chain.restore(start)
    // The restored head's nonce: the same transaction is new again.
    expect(await rejection(pay(chain, 'alice', first))).toBe('accepted')
    const edited = chain.snapshot()
    await chain.editState([{ address: alice, nonce: '0x64', balance: '0x0' }])
    expect(await rejection(pay(chain, 'alice', first + 1n))).toBe(`nonce too low: next nonce 100, tx nonce ${first + 1n}`)
    expect(await rejection(pay(chain, 'alice', 100n))).toMatch(/^insufficient funds for gas \* price \+ value: balance 0, /)
    await chain.restore(edited)
    expect(await rejection(pay(chain, 'alice', first + 1n))).toBe('accepted')
  })

  it('an account no block touched and one that does not exist: read from the head’s state', async () => {
    const chain = await load()
    const carol = account('carol').address.toLowerCase()
    expect(await rejection(pay(chain, 'carol', (await chain.pendingNonce(carol))))).toBe('accepted')
    const nobody = createFeeMarket1559Tx({ chainId: chain.chainId, nonce: 0n, to: bob, value: 1n, gasLimit: 21000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n }, { common: nextCommon(chain) })
    const raw = nobody.sign(keccak256(Uint8Array.of(1, 2, 3))).serialize()
    expect(await rejection(chain.sendRawTransaction(raw))).toMatch(/^insufficient funds for gas \* price \+ value: balance 0, /)
  })
})
