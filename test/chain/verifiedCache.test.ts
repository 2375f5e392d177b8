/**
 * A verified chain is kept and read back: the second load of the same fixture comes from the
 * cache and answers exactly as the replayed one; other bytes are a different key, so a changed or
 * tampered chain is replayed (and refused) whatever is cached.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAddressFromString } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import type { Chain } from '../../src/chain/chain.ts'
import { fixtureBook } from '../support/fixtureBook.ts'

const ETHEREUM = new URL('../../fixtures/ethereum', import.meta.url).pathname
const book = fixtureBook('ethereum')

async function snapshot(chain: Chain) {
  const blocks = []
  for (let n = 0n; n <= chain.head.number; n++) {
    const r = chain.byNumber(n)!
    const state = await chain.stateAt(r)
    const account = await state.getAccount(createAddressFromString(book.address('alice')))
    const slot0 = await state.getStorage(createAddressFromString(book.address('token')), new Uint8Array(32))
    blocks.push({ hash: r.hash, transactions: r.transactions, receipts: r.receipts, balance: account?.balance, slot0 })
  }
  return { head: chain.head.hash, safe: chain.safeNumber, finalized: chain.finalizedNumber, blocks }
}

describe('verified chain cache', () => {
  it('replays the first load, reads the second back, and both answer the same', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'gd-cache-'))
    const first = await loadFixture(ETHEREUM, { name: 'ethereum', cache })
    const second = await loadFixture(ETHEREUM, { name: 'ethereum', cache })
    expect(first.verifiedBy).toBe('replay')
    expect(second.verifiedBy).toBe('cache')
    expect(await snapshot(second)).toStrictEqual(await snapshot(first))
  })

  it('replays a fixture whose bytes changed, and refuses it when it no longer verifies', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'gd-cache-'))
    const dir = mkdtempSync(join(tmpdir(), 'gd-fixture-'))
    cpSync(ETHEREUM, dir, { recursive: true })
    expect((await loadFixture(dir, { name: 'copy', cache })).verifiedBy).toBe('replay')
    expect((await loadFixture(dir, { name: 'copy', cache })).verifiedBy).toBe('cache')
    // Another genesis (its extraData changed): another key, a replay, and block 1's parent hash
    // no longer matches, so the load is refused although the original is cached.
    const genesis = JSON.parse(readFileSync(join(dir, 'genesis.json'), 'utf8'))
    genesis.extraData = '0x01'
    writeFileSync(join(dir, 'genesis.json'), JSON.stringify(genesis))
    await expect(loadFixture(dir, { name: 'copy', cache })).rejects.toThrow(/block 1: parentHash/)
  })

  it('verifies every time with cache: false', async () => {
    expect((await loadFixture(ETHEREUM, { name: 'ethereum', cache: false })).verifiedBy).toBe('replay')
  })
})
