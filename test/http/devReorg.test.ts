/**
 * The test endpoint's snapshots, state edits and the reorg control on one network through a real
 * server: a WebSocket subscribed on the gateway (`/ws/v3/<key>`) and filters on the test endpoint
 * follow a send, a reorg of its block and an `evm_revert` past both (removed logs each time the
 * block they are in leaves); the edit made on the replaced block is gone after the reorg; mining
 * goes on after the revert with the subscription still live.
 */
import { encodeFunctionData, erc20Abi } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { controlRoute, startControlServer } from '../e2e/support/control.ts'
import type { ControlServer } from '../e2e/support/control.ts'
import { alice, bob, token } from '../e2e/support/fixture.ts'
import { openSocket } from '../support/socket.ts'
import type { TestSocket } from '../support/socket.ts'
import { postRpc } from '../support/wire.ts'

let server: ControlServer
let socket: TestSocket

async function dev(method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(`${server.controlUrl}/rpc/ethereum`, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const body = (await res.json()) as { result?: unknown; error?: unknown }
  expect(body.error, method).toBeUndefined()
  return body.result
}

async function gw(method: string, params: unknown[] = []): Promise<any> {
  const body = JSON.parse((await postRpc(server.origin, server.devKey, { jsonrpc: '2.0', id: 1, method, params })).text)
  expect(body.error, method).toBeUndefined()
  return body.result
}

interface Notification {
  params: { subscription: string; result: { hash?: string; number?: string; blockHash?: string; removed?: boolean } }
}

/** The next `n` notifications, by subscription id. */
async function notifications(n: number): Promise<Map<string, Notification['params']['result'][]>> {
  const by = new Map<string, Notification['params']['result'][]>()
  for (let i = 0; i < n; i++) {
    const { params } = (await socket.next(5000)) as Notification
    by.set(params.subscription, [...(by.get(params.subscription) ?? []), params.result])
  }
  return by
}

beforeAll(async () => {
  server = await startControlServer()
  socket = await openSocket(server.wsUrlFor('ethereum'))
})
afterAll(async () => {
  await socket.close()
  await server.close()
})

describe('evm_snapshot, a reorg and evm_revert, followed by subscriptions and filters', () => {
  it('tells each block and log as it comes and goes; the replaced block’s edit goes; the revert takes back the rest', async () => {
    const subscribe = async (params: unknown[]) => ((await socket.call({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params })) as { result: string }).result
    const heads = await subscribe(['newHeads'])
    const logs = await subscribe(['logs', { address: token }])
    const logFilter = await dev('eth_newFilter', [{ address: token }])
    const blockFilter = await dev('eth_newBlockFilter')
    const start = await gw('eth_blockNumber')
    const bobBefore = await gw('eth_call', [{ to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [bob.address] }) }, 'latest'])
    const snapshot = await dev('evm_snapshot')

    await dev('anvil_impersonateAccount', [alice.address])
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [bob.address, 5n] })
    const sent = await dev('eth_sendTransaction', [{ from: alice.address, to: token, data }])
    const mined = await notifications(2)
    const [block] = mined.get(heads)!
    const [log] = mined.get(logs)!
    expect(log).toMatchObject({ transactionHash: sent, blockHash: block!.hash, removed: false })
    const whale = '0x00000000000000000000000000000000000b1e55'
    await dev('anvil_setBalance', [whale, '0x5'])
    expect(await gw('eth_getBalance', [whale, 'latest'])).toBe('0x5')

    const reorg = await controlRoute<{ added: { hash: string }[] }>(server, 'POST', '/networks/ethereum/reorg', { depth: 1 })
    const moved = await notifications(3)
    const branch = reorg.added[0]!.hash
    expect(moved.get(heads)!.map((h) => h.hash)).toEqual([branch])
    expect(moved.get(logs)).toEqual([
      { ...log, removed: true },
      { ...log, blockHash: branch, removed: false },
    ])
    // The edit was made on the replaced block: it left with it.
    expect(await gw('eth_getBalance', [whale, 'latest'])).toBe('0x0')
    expect((await gw('eth_getTransactionReceipt', [sent])).blockHash).toBe(branch)

    expect(await dev('evm_revert', [snapshot])).toBe(true)
    const reverted = await notifications(1)
    expect(reverted.get(logs)).toEqual([{ ...log, blockHash: branch, removed: true }])
    expect(await gw('eth_blockNumber')).toBe(start)
    expect(await gw('eth_getTransactionReceipt', [sent])).toBeNull()
    expect(await gw('eth_call', [{ to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [bob.address] }) }, 'latest'])).toBe(bobBefore)
    expect(await dev('eth_getFilterChanges', [logFilter])).toEqual([
      log,
      { ...log, removed: true },
      { ...log, blockHash: branch, removed: false },
      { ...log, blockHash: branch, removed: true },
    ])
    // A block filter is told the head moved back by the restored head's hash.
    const startHash = (await gw('eth_getBlockByNumber', [start, false])).hash
    expect(await dev('eth_getFilterChanges', [blockFilter])).toEqual([block!.hash, branch, startHash])

    // Mining goes on from the snapshot's head, told as before.
    await dev('evm_mine')
    const next = await notifications(1)
    expect(next.get(heads)!.map((h) => h.number)).toEqual([`0x${(BigInt(start) + 1n).toString(16)}`])
    expect(socket.pending).toEqual([])
  })
})
