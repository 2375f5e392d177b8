/**
 * The test endpoint's snapshots, state edits and the reorg control on one network through a real
 * server: a WebSocket subscribed on the gateway (`/ws/v3/<key>`) and filters on the test endpoint
 * follow a send, a reorg of its block and an `evm_revert` past both (removed logs each time the
 * block they are in leaves); the edit made on the replaced block is gone after the reorg; mining
 * goes on after the revert with the subscription still live. Anvil's `anvil_reorg` on the test
 * endpoint: both its param forms, the transactions given in the new block, the replaced ones gone.
 */
import { encodeFunctionData, erc20Abi } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { controlRoute, startControlServer } from '../e2e/support/control.ts'
import type { ControlServer } from '../e2e/support/control.ts'
import { alice, bob, carol, token } from '../e2e/support/fixture.ts'
import { openSocket } from '../support/socket.ts'
import type { TestSocket } from '../support/socket.ts'
import { postRpc } from '../support/wire.ts'

let server: ControlServer
let socket: TestSocket

async function dev(method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(`${server.controlUrl}/rpc/ethereum`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const body = (await res.json()) as { result?: unknown; error?: unknown }
  expect(body.error, method).toBeUndefined()
  return body.result
}

/** The JSON-RPC error of a call on the test endpoint. */
async function devError(method: string, params: unknown[]): Promise<{ code: number; message: string }> {
  const res = await fetch(`${server.controlUrl}/rpc/ethereum`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  return ((await res.json()) as { error: { code: number; message: string } }).error
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
    // The branch block is mined now: its time may be a second after the replaced one's.
    const branchLog = { ...log, blockHash: branch, blockTimestamp: (await gw('eth_getBlockByHash', [branch, false])).timestamp, removed: false }
    expect(moved.get(logs)).toEqual([{ ...log, removed: true }, branchLog])
    // The edit was made on the replaced block: it left with it.
    expect(await gw('eth_getBalance', [whale, 'latest'])).toBe('0x0')
    expect((await gw('eth_getTransactionReceipt', [sent])).blockHash).toBe(branch)

    expect(await dev('evm_revert', [snapshot])).toBe(true)
    const reverted = await notifications(1)
    expect(reverted.get(logs)).toEqual([{ ...branchLog, removed: true }])
    expect(await gw('eth_blockNumber')).toBe(start)
    expect(await gw('eth_getTransactionReceipt', [sent])).toBeNull()
    expect(await gw('eth_call', [{ to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [bob.address] }) }, 'latest'])).toBe(bobBefore)
    expect(await dev('eth_getFilterChanges', [logFilter])).toEqual([
      log,
      { ...log, removed: true },
      branchLog,
      { ...branchLog, removed: true },
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

describe('anvil_reorg', () => {
  it('replaces the head with a block of the transactions given; the replaced ones are gone, not pooled', async () => {
    const snapshot = await dev('evm_snapshot')
    await dev('anvil_impersonateAccount', [alice.address])
    const replaced = await dev('eth_sendTransaction', [{ from: alice.address, to: carol.address, value: '0x1' }])
    const old = await gw('eth_getBlockByNumber', ['latest', false])
    const nonce = BigInt(await gw('eth_getTransactionCount', [bob.address, 'latest']))
    const raw = await privateKeyToAccount(bob.privateKey).signTransaction({ chainId: 1, type: 'eip1559', nonce: Number(nonce), to: carol.address, value: 2n, gas: 21000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n })
    expect(await dev('anvil_reorg', [{ depth: 1, txBlockPairs: [[raw, 0]] }])).toBeNull()
    const head = await gw('eth_getBlockByNumber', ['latest', false])
    expect(head.number).toBe(old.number)
    expect(head.hash).not.toBe(old.hash)
    expect(head.transactions).toHaveLength(1)
    expect((await gw('eth_getTransactionReceipt', [head.transactions[0]])).from).toBe(bob.address.toLowerCase())
    expect(await gw('eth_getTransactionByHash', [replaced])).toBeNull()
    expect(await gw('txpool_status')).toEqual({ pending: '0x0', queued: '0x0' })
    // Its fields in order, no transactions: an empty block.
    expect(await dev('anvil_reorg', [1, []])).toBeNull()
    expect((await gw('eth_getBlockByNumber', ['latest', false])).transactions).toEqual([])
    expect(await dev('evm_revert', [snapshot])).toBe(true)
  })

  it('refuses what it cannot do, -32602 naming the argument, changing nothing', async () => {
    const head = (await gw('eth_getBlockByNumber', ['latest', false])).hash
    expect(await devError('anvil_reorg', [{ depth: 2 }])).toEqual({
      code: -32602,
      message: expect.stringMatching(/^depth: must be an integer from 1 to 1 \(head \d+, safe \d+: a reorg never replaces a safe or finalized block\), got 2$/),
    })
    expect(await devError('anvil_reorg', [{ depth: 1, txBlockPairs: [[{ from: alice.address, to: bob.address }, 0]] }])).toMatchObject({
      code: -32602,
      message: expect.stringContaining('txBlockPairs[0]: a transaction request needs a signer the double does not have'),
    })
    expect(await devError('anvil_reorg', [1, [['0x02', 1]]])).toMatchObject({ code: -32602, message: 'txBlockPairs[0]: block 1 is past the 1 new blocks' })
    expect(await devError('anvil_reorg', [1, [['0x02', 0]]])).toMatchObject({ code: -32602, message: expect.stringMatching(/^transactions\[0\]\[0\]: /) })
    expect((await gw('eth_getBlockByNumber', ['latest', false])).hash).toBe(head)
  })
})
