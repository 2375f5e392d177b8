// The shared networks the globalSetup provides, read with viem.
import { createPublicClient, hexToBigInt, http } from 'viem'
import { describe, expect, it } from 'vitest'
import { gatewayDouble, localhostFetch } from './imports.ts'

describe('recipe: the shared server', () => {
  it('serves the three default networks at their heads', async () => {
    const { urls, networks } = gatewayDouble()
    expect(networks.map((n) => [n.name, n.chainId, n.headNumber])).toEqual([
      ['ethereum', '1', '6'],
      ['polygon', '137', '4'],
      ['base', '8453', '4'],
    ])
    const polygon = createPublicClient({ transport: http(urls.polygon, { fetchFn: localhostFetch }) })
    expect(await polygon.getChainId()).toBe(137)
    const eth = createPublicClient({ transport: http(urls.ethereum, { fetchFn: localhostFetch }) })
    const count = await eth.getStorageAt({ address: '0x00000000000000000000000000000000c0c0c0c0', slot: '0x0', blockNumber: 6n })
    expect(hexToBigInt(count!)).toBe(9n)
  })
})
