// This worker's network, from the setupFile: its own fork when the control API is there.
import { createPublicClient, http } from 'viem'
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
})
