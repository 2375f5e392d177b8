/**
 * Reorgs and the test endpoint's chain features together, from the library side: the state edits
 * of replaced blocks go with them while the ancestor's stay (the branch executes on them), the
 * branch's headers follow the mining settings (offset, interval, fee recipient, gas limit) but
 * leave the one-shot ones (next timestamp, next base fee) to the block after it, snapshots bring
 * back the edits of blocks a reorg or a restore removed in between, and a chain exported after a
 * reorg loads as the same chain.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bytesToHex, bytesToUtf8, createAddressFromString } from '@ethereumjs/util'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Chain, ChainSnapshot } from '../../src/chain/chain.ts'
import { exportChain, writeFixtureFolder } from '../../src/chain/loading/exportChain.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'

const FIXTURE = new URL('../../fixtures/ethereum', import.meta.url).pathname
const whale = '0x00000000000000000000000000000000000b1e55'
const other = '0x0000000000000000000000000000000000000ddd'
const target = '0x00000000000000000000000000000000000b0b0b'
const ETHER = 10n ** 18n
/** The frozen clock, in seconds. */
const NOW = 1_900_000_000n

let chain: Chain
let start: ChainSnapshot

async function balanceAt(c: Chain, address: string, n = c.head.number): Promise<bigint> {
  return (await (await c.stateAt(c.byNumber(n)!)).getAccount(createAddressFromString(address)))?.balance ?? 0n
}

/** An impersonated send of `value` wei from the whale (funded only by a state edit). */
function sendFromWhale(c: Chain, nonce: bigint, value = 7n): Promise<string> {
  const fees = { maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n }
  return c.sendImpersonated({ type: 2, chainId: 1n, nonce, gasLimit: 60000n, to: target, value, data: new Uint8Array(), ...fees }, whale)
}

beforeAll(async () => {
  chain = await loadFixture(FIXTURE, { name: 'ethereum', cache: false, clock: { now: () => Number(NOW) * 1000 }, miningMode: 'manual' })
  start = chain.snapshot()
})
beforeEach(() => chain.restore(start))

describe('a reorg and state edits', () => {
  it('drops the edits of the blocks it replaces, keeps the ancestor’s, and mines the branch on them', async () => {
    await chain.editState([{ address: whale, balance: `0x${ETHER.toString(16)}` }])
    const ancestor = chain.head
    const edited = chain.stateRootOf(ancestor)
    const hash = await sendFromWhale(chain, 0n)
    const replaced = await chain.mine()
    await chain.editState([{ address: other, balance: '0x7' }])
    expect(await balanceAt(chain, other)).toBe(7n)

    const result = await chain.reorg({ depth: 1 })
    const head = chain.head
    expect(result.removed).toEqual([replaced])
    // The whale's send ran again: only the ancestor's edit funds it.
    expect(head.transactions.map((t) => t.hash)).toEqual([hash])
    expect(result.pooled).toEqual([])
    expect(await balanceAt(chain, target)).toBe(7n)
    expect(chain.stateRootOf(ancestor)).toEqual(edited)
    expect(chain.editsOf(ancestor)?.edits).toEqual([{ address: whale, balance: `0x${ETHER.toString(16)}` }])
    // The replaced block's edit is gone with it: the new head reads as it was mined.
    expect(chain.editsOf(head)).toBeUndefined()
    expect(chain.editsOf(replaced)).toBeUndefined()
    expect(chain.stateRootOf(head)).toEqual(head.block.header.stateRoot)
    expect(await balanceAt(chain, other)).toBe(0n)
    // The next block executes on the new head's state, not on the dropped edit.
    await chain.mine()
    expect(await balanceAt(chain, other)).toBe(0n)
  })

  it('a restore brings back the edits of blocks removed in between, by a reorg or by an earlier restore', async () => {
    await chain.editState([{ address: other, balance: '0x5' }])
    const edited = chain.head
    await chain.mine()
    await chain.editState([{ address: other, balance: '0x9' }])
    const grown = chain.snapshot()
    const grownHead = chain.head

    await chain.reorg({ depth: 1, transactions: 'empty' })
    expect(await balanceAt(chain, other)).toBe(5n)
    await chain.restore(grown)
    expect(chain.head).toBe(grownHead)
    expect(await balanceAt(chain, other)).toBe(9n)

    // Back to before any edit (the edited block's edits leave), then forward again.
    await chain.restore(start)
    expect(await balanceAt(chain, other, edited.number)).toBe(0n)
    await chain.restore(grown)
    expect(await balanceAt(chain, other, edited.number)).toBe(5n)
    expect(chain.stateRootOf(edited)).not.toEqual(edited.block.header.stateRoot)
    expect(await balanceAt(chain, other)).toBe(9n)
  })
})

describe('a reorg’s branch and the mining settings', () => {
  it('takes the time offset, the fee recipient and the gas limit set', async () => {
    const coinbase = '0x000000000000000000000000000000000000c0b1'
    chain.setMiningSettings({ offset: 1000n, coinbase, gasLimit: 40_000_000n })
    const old = await chain.mine()
    expect(old.timestamp).toBe(NOW + 1000n)
    await chain.reorg({ depth: 1 })
    const header = chain.head.block.header
    expect(header.timestamp).toBe(NOW + 1000n)
    expect(header.coinbase.toString()).toBe(coinbase)
    expect(header.gasLimit).toBe(40_000_000n)
    expect(chain.head.hash).not.toBe(old.hash)
  })

  it('takes the timestamp interval from each parent', async () => {
    chain.setMiningSettings({ interval: 100n })
    const parent = chain.head
    await chain.mine()
    await chain.reorg({ depth: 1, length: 1 })
    expect(chain.head.timestamp).toBe(parent.timestamp + 100n)
  })

  it('leaves the one-shot next timestamp and base fee to the first block after it', async () => {
    await chain.mine()
    const ancestor = chain.byNumber(chain.head.number - 1n)!
    chain.setMiningSettings({ nextTimestamp: NOW + 5000n, nextBaseFee: 12_345n })
    await chain.reorg({ depth: 1 })
    const branch = chain.head.block.header
    expect(branch.timestamp).toBe(NOW)
    expect(branch.baseFeePerGas).toBe(ancestor.block.header.calcNextBaseFee())
    expect(bytesToUtf8(branch.extraData)).toMatch(/^gateway-double reorg \d+$/)
    const next = (await chain.mine()).block.header
    expect(next.timestamp).toBe(NOW + 5000n)
    expect(next.baseFeePerGas).toBe(12_345n)
  })
})

describe('an export after a reorg', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gd-reorg-export-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('holds the branch and the ancestor’s edits, not the replaced block’s, and loads as the same chain', async () => {
    await chain.editState([{ address: whale, balance: `0x${ETHER.toString(16)}` }])
    await sendFromWhale(chain, 0n)
    await chain.mine()
    await chain.editState([{ address: other, balance: '0x7' }])
    await chain.reorg({ depth: 1 })
    await sendFromWhale(chain, 1n, 3n)
    await chain.mine()
    await chain.editState([{ address: other, balance: '0x11' }])

    const files = exportChain(chain)
    const edits = JSON.parse(Buffer.from(files.get('edits.json')!).toString())
    const ancestor = Number(chain.head.number) - 2
    expect(edits.state.map((s: { after: number }) => s.after)).toEqual([ancestor, ancestor + 2])
    writeFixtureFolder(dir, files)
    const again = await loadFixture(dir, { name: 'ethereum', cache: false })
    expect(again.blockchain.records.map((r) => r.hash)).toEqual(chain.blockchain.records.map((r) => r.hash))
    expect(bytesToUtf8(again.byNumber(chain.head.number - 1n)!.block.header.extraData)).toMatch(/^gateway-double reorg/)
    expect(bytesToHex(again.stateRootOf(again.head))).toBe(bytesToHex(chain.stateRootOf(chain.head)))
    for (const a of [whale, other, target]) expect(await balanceAt(again, a)).toBe(await balanceAt(chain, a))
    expect(await balanceAt(again, target)).toBe(10n)
  })
})
