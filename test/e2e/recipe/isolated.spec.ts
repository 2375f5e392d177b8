// This worker's network, from the setupFile: its own fork when the control API is there.
import { readFileSync } from 'node:fs'
import { createPublicClient, createWalletClient, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { mainnet } from 'viem/chains'
import { describe, expect, it } from 'vitest'
import { GatewayDoubleSetupError, gatewayDouble, localhostFetch, useIsolatedNetwork } from './imports.ts'

describe('recipe: a network per worker', () => {
  const { isolationUnavailable, isolated } = gatewayDouble()
  const rpcUrl = process.env.RPC_URL!

  it('RPC_URL answers as ethereum, at the fixture head', async () => {
    const client = createPublicClient({ transport: http(rpcUrl, { fetchFn: localhostFetch }) })
    expect(await client.getChainId()).toBe(1)
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBeGreaterThanOrEqual(6n)
  })

  it.runIf(isolationUnavailable !== undefined)('without the control API: says so, shares only when asked', () => {
    expect(() => useIsolatedNetwork('ethereum')).toThrow(GatewayDoubleSetupError)
    expect(() => useIsolatedNetwork('ethereum')).toThrow(/no control API \(control.fork\)|control.fork refused/)
    expect(process.env.RPC_ISOLATED).toBe('false')
    expect(rpcUrl).toBe(gatewayDouble().urls.ethereum)
  })

  it.runIf(isolationUnavailable === undefined)('with the control API: this worker’s fork, one per pool id', () => {
    const poolId = process.env.VITEST_POOL_ID!
    const mine = useIsolatedNetwork('ethereum')
    expect(mine).toMatchObject({ name: `ethereum-w${poolId}`, isolated: true })
    expect(rpcUrl).toBe(mine.url)
    expect(Object.keys(isolated.ethereum!).sort()).toEqual(['1', '2'])
    expect(new URL(mine.url).hostname).toBe(`ethereum-w${poolId}-mainnet.localhost`)
  })

  it.runIf(isolationUnavailable === undefined)('a transaction on this worker’s fork leaves the shared ethereum as it was', async () => {
    const accounts = JSON.parse(readFileSync(new URL('../../../fixtures/ethereum/accounts.json', import.meta.url), 'utf8')) as {
      accounts: { name: string; address: `0x${string}`; privateKey?: `0x${string}` }[]
    }
    const dave = accounts.accounts.find((a) => a.name === 'dave')!
    const erin = accounts.accounts.find((a) => a.name === 'erin')!
    const transport = http(rpcUrl, { fetchFn: localhostFetch })
    const fork = createPublicClient({ chain: mainnet, transport })
    const shared = createPublicClient({ chain: mainnet, transport: http(gatewayDouble().urls.ethereum, { fetchFn: localhostFetch }) })
    const wallet = createWalletClient({ account: privateKeyToAccount(dave.privateKey!), chain: mainnet, transport })
    const before = await shared.getBalance({ address: erin.address })
    const hash = await wallet.sendTransaction({ to: erin.address, value: 1234n })
    const receipt = await fork.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    expect(receipt.status).toBe('success')
    expect(await fork.getBalance({ address: erin.address })).toBe(before + 1234n)
    expect(await shared.getBalance({ address: erin.address })).toBe(before)
    expect(await shared.getBlockNumber({ cacheTime: 0 })).toBe(6n)
    expect(await fork.getBlockNumber({ cacheTime: 0 })).toBe(receipt.blockNumber)
  })
})
