/**
 * eth_baseFee, eth_blobBaseFee, eth_config and eth_capabilities on the default ethereum fixture:
 * the base fee is the one the next mined block gets, the blob base fee the head's, the fork id
 * EIP-2124's (as EthereumJS computes it independently), the history complete from genesis.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { Chain } from '../../src/chain/chain.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { clientFor } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const FIXTURE = new URL('../../fixtures/ethereum', import.meta.url).pathname

describe('chain information methods', () => {
  let chain: Chain
  let rpc: RpcClient
  beforeAll(async () => {
    chain = await loadFixture(FIXTURE, { name: 'ethereum', clock: { now: () => 0 } })
    rpc = clientFor(chain)
  })
  const result = (method: string, params: unknown[] = []) => rpc.result(method, params)

  it('eth_baseFee is the base fee of the next block mined', async () => {
    const fork = await chain.fork('next')
    const forkRpc = clientFor(fork)
    const predicted = (await forkRpc.call('eth_baseFee')).result
    await fork.mine()
    expect((await forkRpc.call('eth_getBlockByNumber', ['latest', false])).result).toMatchObject({ baseFeePerGas: predicted })
  })

  it('eth_blobBaseFee is the head block’s, as eth_feeHistory reports it', async () => {
    const history = (await result('eth_feeHistory', ['0x1', 'latest', []])) as { baseFeePerBlobGas: string[] }
    expect(await result('eth_blobBaseFee')).toBe(history.baseFeePerBlobGas[0])
  })

  it('eth_config: Osaka from genesis, nothing scheduled, the fork id of the genesis hash', async () => {
    const config = (await result('eth_config')) as { current: Record<string, unknown>; next: null; last: null }
    expect(config.next).toBeNull()
    expect(config.last).toBeNull()
    expect(config.current).toMatchObject({
      activationTime: 0,
      chainId: '0x1',
      forkId: chain.common.forkHash('osaka', chain.genesis.block.hash()),
      blobSchedule: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      systemContracts: {
        BEACON_ROOTS_ADDRESS: '0x000f3df6d732807ef1319fb7b8bb8522d0beac02',
        HISTORY_STORAGE_ADDRESS: '0x0000f90827f1c53a10cb7a02335b175320002935',
      },
    })
    const precompiles = config.current.precompiles as Record<string, string>
    expect(Object.keys(precompiles)).toHaveLength(18)
    expect(precompiles.ECREC).toBe('0x0000000000000000000000000000000000000001')
    expect(precompiles.P256VERIFY).toBe('0x0000000000000000000000000000000000000100')
  })

  it('eth_capabilities: the head, and every kind of history from genesis', async () => {
    const caps = (await result('eth_capabilities')) as Record<string, { disabled?: boolean; oldestBlock?: string; number?: string; hash?: string }>
    expect(caps.head).toEqual({ number: `0x${chain.head.number.toString(16)}`, hash: chain.head.hash })
    for (const kind of ['state', 'tx', 'logs', 'receipts', 'blocks', 'stateproofs']) expect(caps[kind]).toMatchObject({ disabled: false, oldestBlock: '0x0' })
  })
})
