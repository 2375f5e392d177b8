/**
 * Alchemy's enhanced methods on the `alchemy` profile (src/rpc/methods/alchemy_*.ts), through the
 * wire on the default ethereum fixture (fixtures/README.md's blocks) plus an ether forwarder for
 * internal transfers: balances equal `balanceOf`, transfers are the fixture's own (hashes, values,
 * symbols and decimals read back with viem), pages join up to the whole answer, and the
 * gateway's own profile does not serve them.
 */
import { createPublicClient, createWalletClient, formatEther, http, parseEther } from 'viem'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ethereumAccounts, ethereumContracts } from '../../src/fixtures/accounts.ts'
import { tokenAbi } from '../../src/fixtures/abis.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'

const { alice, bob, carol } = ethereumAccounts
const token = ethereumContracts.token.address.toLowerCase()
const counter = ethereumContracts.counter.address
/** Runtime code that forwards every call's value to `target`: CALL(gas, target, callvalue, 0, 0, 0, 0). */
const FORWARDER = '0x00000000000000000000000000000000f0f0f0f0'
const TARGET = '0x00000000000000000000000000000000000ca5e1'
const forwarderCode = `0x600060006000600034${'73'}${TARGET.slice(2)}5af100` as Hex

let server: RunningServer
let alchemy: string
let forwardHash: Hex
beforeAll(async () => {
  server = await startServer({ port: 0, control: true, profiles: [{ profile: 'alchemy' }] })
  alchemy = server.profiles.alchemy!.url!
  const dev = `${server.controlUrl}/rpc/ethereum`
  await fetch(dev, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setCode', params: [FORWARDER, forwarderCode] }) })
  const wallet = createWalletClient({ account: privateKeyToAccount(alice.privateKey as Hex), transport: http(server.url) })
  forwardHash = await wallet.sendTransaction({ chain: null, to: FORWARDER, value: parseEther('0.25'), gas: 100_000n })
  await createPublicClient({ transport: http(server.url) }).waitForTransactionReceipt({ hash: forwardHash })
}, 60_000)
afterAll(async () => {
  await server?.close()
})

async function call(url: string, method: string, params: unknown[]): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  return res.json()
}

describe('alchemy_getTokenBalances', () => {
  it('the balances of the tokens named, as balanceOf answers them; a contract that is no token has an error', async () => {
    const client = createPublicClient({ transport: http(server.url) })
    const balance = await client.readContract({ address: token as Hex, abi: tokenAbi, functionName: 'balanceOf', args: [bob.address as Hex] })
    const answer = await call(alchemy, 'alchemy_getTokenBalances', [bob.address, [token, counter]])
    expect(answer.result).toEqual({
      address: bob.address,
      tokenBalances: [
        { contractAddress: token, tokenBalance: `0x${balance.toString(16).padStart(64, '0')}`, error: null },
        { contractAddress: counter, tokenBalance: null, error: 'execution reverted' },
      ],
    })
    expect(balance).toBe(parseEther('900'))
  })

  it('"erc20" (the default): every token the address sent or received, from the Transfer logs', async () => {
    expect((await call(alchemy, 'alchemy_getTokenBalances', [carol.address, 'erc20'])).result.tokenBalances.map((b: any) => b.contractAddress)).toEqual([token])
    expect((await call(alchemy, 'alchemy_getTokenBalances', [carol.address])).result.tokenBalances).toHaveLength(1)
    expect((await call(alchemy, 'alchemy_getTokenBalances', [TARGET, 'erc20'])).result).toEqual({ address: TARGET, tokenBalances: [] })
  })

  it('refuses what it cannot answer with -32602; the gateway\'s own profile does not serve it (-32601)', async () => {
    const native = await call(alchemy, 'alchemy_getTokenBalances', [bob.address, 'NATIVE_TOKEN'])
    expect(native.error.code).toBe(-32602)
    expect(native.error.message).toContain('NATIVE_TOKEN is not served by the double')
    expect((await call(alchemy, 'alchemy_getTokenBalances', ['0x1234', 'erc20'])).error.code).toBe(-32602)
    const infura = await call(server.url!, 'alchemy_getTokenBalances', [bob.address])
    expect(infura.error).toEqual({ code: -32601, message: 'The method alchemy_getTokenBalances does not exist/is not available' })
  })
})

describe('alchemy_getAssetTransfers', () => {
  it('external: the fixture\'s ether transfers from alice, zero-value transactions left out', async () => {
    const { result } = await call(alchemy, 'alchemy_getAssetTransfers', [{ fromAddress: alice.address, category: ['external'], withMetadata: true }])
    const client = createPublicClient({ transport: http(server.url) })
    expect(result.transfers.length).toBeGreaterThanOrEqual(2)
    for (const t of result.transfers) {
      const tx = await client.getTransaction({ hash: t.hash })
      const block = await client.getBlock({ blockNumber: tx.blockNumber! })
      expect(t).toEqual({
        blockNum: `0x${tx.blockNumber!.toString(16)}`,
        uniqueId: `${tx.hash}:external`,
        hash: tx.hash,
        from: alice.address,
        to: tx.to,
        value: Number(formatEther(tx.value)),
        erc721TokenId: null,
        erc1155Metadata: null,
        tokenId: null,
        asset: 'ETH',
        category: 'external',
        rawContract: { value: `0x${tx.value.toString(16)}`, address: null, decimal: '0x12' },
        metadata: { blockTimestamp: new Date(Number(block.timestamp) * 1000).toISOString() },
      })
    }
    expect(result.transfers.map((t: any) => t.value)).toEqual([1, 0.25])
    const all = await call(alchemy, 'alchemy_getAssetTransfers', [{ fromAddress: alice.address, category: ['external'], excludeZeroValue: false }])
    expect(all.result.transfers.length).toBeGreaterThan(result.transfers.length)
  })

  it('erc20: the Transfer logs, with the token\'s symbol and decimals; pages of maxCount join up to the whole answer', async () => {
    const whole = (await call(alchemy, 'alchemy_getAssetTransfers', [{ contractAddresses: [token], category: ['erc20'] }])).result
    expect(whole.pageKey).toBeUndefined()
    // The token's mint (from the zero address) comes first, then alice's transfers of block 2.
    expect(whole.transfers[0]).toMatchObject({ from: '0x0000000000000000000000000000000000000000', to: alice.address, value: 1_000_000, asset: 'GDT', blockNum: '0x1' })
    expect(whole.transfers[1]).toMatchObject({ from: alice.address, to: bob.address, value: 1000, asset: 'GDT', category: 'erc20', rawContract: { value: `0x${parseEther('1000').toString(16).padStart(64, '0')}`, address: token, decimal: '0x12' } })
    expect(whole.transfers[1].uniqueId).toMatch(/^0x[0-9a-f]{64}:log:0$/)
    const pages: any[] = []
    let pageKey: string | undefined
    do {
      const page = (await call(alchemy, 'alchemy_getAssetTransfers', [{ contractAddresses: [token], category: ['erc20'], maxCount: '0x2', ...(pageKey ? { pageKey } : {}) }])).result
      expect(page.transfers.length).toBeLessThanOrEqual(2)
      pages.push(...page.transfers)
      pageKey = page.pageKey
    } while (pageKey !== undefined)
    expect(pages).toEqual(whole.transfers)
    const desc = (await call(alchemy, 'alchemy_getAssetTransfers', [{ contractAddresses: [token], category: ['erc20'], order: 'desc' }])).result
    expect(desc.transfers).toEqual([...whole.transfers].reverse())
    const toBob = (await call(alchemy, 'alchemy_getAssetTransfers', [{ toAddress: bob.address, category: ['erc20'], fromBlock: '0x2', toBlock: '0x2' }])).result
    expect(toBob.transfers.map((t: any) => t.value)).toEqual([1000])
  })

  it('internal: the value a contract moved (callTracer\'s CALL frames)', async () => {
    const { result } = await call(alchemy, 'alchemy_getAssetTransfers', [{ category: ['internal'] }])
    expect(result.transfers).toEqual([
      expect.objectContaining({ uniqueId: `${forwardHash}:internal:0`, hash: forwardHash, from: FORWARDER, to: TARGET, value: 0.25, asset: 'ETH', category: 'internal', rawContract: { value: `0x${parseEther('0.25').toString(16)}`, address: null, decimal: '0x12' } }),
    ])
  })

  it('refuses a query without category, with an unknown field, or past the head (-32602)', async () => {
    const none = await call(alchemy, 'alchemy_getAssetTransfers', [{ fromBlock: '0x0' }])
    expect(none.error.code).toBe(-32602)
    expect(none.error.message).toContain('category: required, a list of external, internal, erc20, erc721, erc1155, specialnft')
    expect((await call(alchemy, 'alchemy_getAssetTransfers', [{ category: ['erc20'], page: 1 }])).error.code).toBe(-32602)
    expect((await call(alchemy, 'alchemy_getAssetTransfers', [{ category: ['erc20'], toBlock: '0xffff' }])).error.message).toMatch(/^toBlock 0xffff is past the head block 0x[0-9a-f]+$/)
    expect((await call(alchemy, 'alchemy_getAssetTransfers', [{ category: ['erc20'], pageKey: 'nope' }])).error.code).toBe(-32602)
  })
})

describe('bad input', () => {
  it('is answered -32602, never -32603, for both methods', async () => {
    const cases: [string, unknown[]][] = [
      ['alchemy_getTokenBalances', []],
      ['alchemy_getTokenBalances', [null]],
      ['alchemy_getTokenBalances', [bob.address, 5]],
      ['alchemy_getTokenBalances', [bob.address, ['0x12']]],
      ['alchemy_getTokenBalances', [bob.address, Array(101).fill(token)]],
      ['alchemy_getTokenBalances', [bob.address, 'erc20', { maxCount: 0 }]],
      ['alchemy_getTokenBalances', [bob.address, 'erc20', { pageKey: 'x' }]],
      ['alchemy_getTokenBalances', [bob.address, [token], { maxCount: 1 }]],
      ['alchemy_getTokenBalances', [bob.address, 'erc20', {}, 1]],
      ['alchemy_getAssetTransfers', []],
      ['alchemy_getAssetTransfers', ['erc20']],
      ['alchemy_getAssetTransfers', [{ category: 'erc20' }]],
      ['alchemy_getAssetTransfers', [{ category: ['nft'] }]],
      ['alchemy_getAssetTransfers', [{ category: ['erc20'], maxCount: -1 }]],
      ['alchemy_getAssetTransfers', [{ category: ['erc20'], maxCount: '0x3e9' }]],
      ['alchemy_getAssetTransfers', [{ category: ['erc20'], contractAddresses: 'x' }]],
      ['alchemy_getAssetTransfers', [{ category: ['erc20'], fromAddress: 7 }]],
      ['alchemy_getAssetTransfers', [{ category: ['erc20'], fromBlock: '0x5', toBlock: '0x1' }]],
      ['alchemy_getAssetTransfers', [{ category: ['erc20'], fromBlock: 'earliest' }]],
      ['alchemy_getAssetTransfers', [{ category: ['erc20'], order: 'up' }]],
      ['alchemy_getAssetTransfers', [{ category: ['erc20'], withMetadata: 'yes' }]],
    ]
    for (const [method, params] of cases) {
      const answer = await call(alchemy, method, params)
      expect(answer.error?.code, `${method} ${JSON.stringify(params).slice(0, 80)}`).toBe(-32602)
    }
  })
})
