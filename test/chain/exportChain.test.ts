/**
 * A chain the double grew, exported and loaded again, from the library side: state edits between
 * blocks and on the head, an impersonated send, a signed send, mining settings. The export loads
 * (replayed, then from the verified cache) with the same blocks, receipts, state roots and state;
 * a tampered `edits.json` is refused naming the block and the root. An Anvil-format dump of the
 * head loads as a one-block chain with the same accounts. (Through the wire, with viem and cast:
 * test/e2e/exportRoundTrip.test.ts.)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Chain } from '../../src/chain/chain.ts'
import { dumpChainState, loadAnvilState } from '../../src/chain/loading/anvilState.ts'
import { exportChain, writeFixtureFolder } from '../../src/chain/loading/exportChain.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { account, signed1559 } from './txSigning.ts'

const FIXTURE = new URL('../../fixtures/ethereum', import.meta.url).pathname
const whale = '0x28c6c06298d514db089934071355e5743bf21d60'
const target = '0x00000000000000000000000000000000000b0b0b'
const slot = `0x${'00'.repeat(31)}07`
const word = `0x${'00'.repeat(31)}2a`
/** Runtime code returning SLOAD(7): PUSH1 7 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN. */
const code = '0x60075460005260206000f3'

let dir: string
let chain: Chain

async function read(c: Chain, address: string) {
  const state = await c.stateAt(c.head)
  const at = createAddressFromString(address)
  const acc = await state.getAccount(at)
  return { balance: acc?.balance, nonce: acc?.nonce, code: await state.getCode(at), slot: await state.getStorage(at, hexToBytes(slot as `0x${string}`)) }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gd-export-'))
  let now = 1_900_000_000_000
  chain = await loadFixture(FIXTURE, { name: 'ethereum', cache: false, clock: { now: () => (now += 1000) } })
  await chain.editState([{ address: whale, balance: '0xde0b6b3a7640000' }, { address: target, code, storage: { [slot]: word }, nonce: '0x1' }])
  await chain.sendImpersonated(
    { type: 2, chainId: 1n, nonce: 0n, gasLimit: 60000n, to: target, value: 7n, data: new Uint8Array(), maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n },
    whale,
  )
  chain.setMiningSettings({ coinbase: '0x000000000000000000000000000000000000c0b1', gasLimit: 40_000_000n })
  await chain.sendRawTransaction(hexToBytes(signed1559(chain, 'alice', { nonce: 9n, to: target, value: 3n, gasLimit: 60000n }) as `0x${string}`))
  await chain.mine({ timestamp: chain.head.timestamp + 1000n })
  await chain.editState([{ address: whale, nonce: '0x9' }, { address: target, storage: { [slot]: `0x${'00'.repeat(32)}` } }])
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('exporting a grown chain', () => {
  it('writes genesis.json as loaded, every block, forkchoice, edits.json and the index', () => {
    const files = exportChain(chain)
    expect([...files.keys()].sort()).toEqual(['accounts.json', 'chain.rlp', 'edits.json', 'forkchoice.json', 'genesis.json'])
    expect(Buffer.from(files.get('genesis.json')!).equals(readFileSync(join(FIXTURE, 'genesis.json')))).toBe(true)
    const edits = JSON.parse(Buffer.from(files.get('edits.json')!).toString())
    expect(edits.state.map((s: { after: number }) => s.after)).toEqual([6, 9])
    expect(edits.senders).toEqual([{ block: 7, index: 0, hash: chain.byNumber(7n)!.transactions[0]!.hash, from: whale }])
    const index = JSON.parse(Buffer.from(files.get('accounts.json')!).toString())
    expect(index.contracts).toContainEqual({ name: `code-${target}`, address: target, deployedIn: { stateEditAfterBlock: 6 } })
    expect(index.transactions.filter((t: { block: number }) => t.block >= 7).map((t: { from: string }) => t.from)).toEqual([whale, account('alice').address])
    writeFixtureFolder(dir, files)
  })

  it('loads replayed, and from the verified cache, as the same chain', async () => {
    const cache = join(dir, '.cache')
    for (const [how, opts] of [['replay', { cache: false as const }], ['replay', { cache }], ['cache', { cache }]] as const) {
      const again = await loadFixture(dir, { name: 'ethereum', ...opts })
      expect(again.verifiedBy).toBe(how)
      expect(again.blockchain.records.map((r) => r.hash)).toEqual(chain.blockchain.records.map((r) => r.hash))
      expect(again.blockchain.records.map((r) => r.receipts)).toEqual(chain.blockchain.records.map((r) => r.receipts))
      expect(again.blockchain.records.map((r) => r.transactions)).toEqual(chain.blockchain.records.map((r) => r.transactions))
      expect(again.stateRootOf(again.head)).toEqual(chain.stateRootOf(chain.head))
      for (const a of [whale, target, account('alice').address]) expect(await read(again, a)).toEqual(await read(chain, a))
      expect(again.safeNumber).toBe(chain.safeNumber)
      // It goes on growing: an impersonated send from the loaded chain mines on the edited head.
      await again.sendImpersonated(
        { type: 2, chainId: 1n, nonce: 9n, gasLimit: 60000n, to: target, value: 1n, data: new Uint8Array(), maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n },
        whale,
      )
      expect((await read(again, target)).balance).toBe(11n)
    }
  })

  it('refuses an edits.json whose edits do not give the state root written, or a sender that is not the signature’s', async () => {
    const bad = mkdtempSync(join(tmpdir(), 'gd-export-bad-'))
    try {
      writeFixtureFolder(bad, exportChain(chain))
      const edits = JSON.parse(readFileSync(join(bad, 'edits.json'), 'utf8'))
      edits.state[0].edits[0].balance = '0x1'
      writeFileSync(join(bad, 'edits.json'), JSON.stringify(edits))
      await expect(loadFixture(bad, { name: 'bad', cache: false })).rejects.toThrow(
        /^fixture bad: edits\.json: the state edits after block 6 give state root 0x[0-9a-f]{64}, the file says 0x/,
      )
      edits.state[0].edits[0].balance = '0xde0b6b3a7640000'
      edits.senders[0].from = account('bob').address
      writeFileSync(join(bad, 'edits.json'), JSON.stringify(edits))
      await expect(loadFixture(bad, { name: 'bad', cache: false })).rejects.toThrow(
        /^fixture bad: edits\.json: block 7 transaction 0 does not carry the impersonation placeholder signature of 0x724f/,
      )
    } finally {
      rmSync(bad, { recursive: true, force: true })
    }
  })

  it('dumps the head state in Anvil’s format, which loads as a one-block chain with the same accounts', async () => {
    const dump = await dumpChainState(chain)
    expect(dump.block?.number).toBe(`0x${chain.head.number.toString(16)}`)
    expect(dump.accounts[whale]).toEqual({ nonce: 9, balance: expect.any(String), code: '0x', storage: {} })
    expect(dump.accounts[target]).toEqual({ nonce: 1, balance: '0xa', code, storage: {} })
    const loaded = await loadAnvilState(JSON.parse(JSON.stringify(dump)), { name: 'dumped', chainId: 1, cache: false })
    expect(loaded.head.number).toBe(chain.head.number)
    expect(loaded.head.timestamp).toBe(chain.head.timestamp)
    expect(loaded.blockchain.records).toHaveLength(1)
    for (const a of Object.keys(dump.accounts)) expect(await read(loaded, a)).toEqual(await read(chain, a))
  })
})
