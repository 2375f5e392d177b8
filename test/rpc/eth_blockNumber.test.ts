import { describe, expect, it } from 'vitest'
import { fixtureClient } from '../support/rpcClient.ts'

describe('eth_blockNumber, eth_chainId, net_version', () => {
  for (const [network, chainId, head] of [['ethereum', 1, 6], ['polygon', 137, 4], ['base', 8453, 4]] as const) {
    it(`answer ${network}'s head, chain id and network id`, async () => {
      const rpc = await fixtureClient(network)
      expect((await rpc.call('eth_blockNumber')).result).toBe(`0x${head.toString(16)}`)
      expect((await rpc.call('eth_chainId')).result).toBe(`0x${chainId.toString(16)}`)
      expect((await rpc.call('net_version')).result).toBe(String(chainId))
      expect((await rpc.call('eth_blockNumber', ['latest'])).error?.code).toBe(-32602)
    })
  }
})
