/**
 * viem 2's `webSocket()` transport against a real server, used as its docs show. The one addition:
 * viem opens its sockets with `new WebSocket(url)` (the `isows` package: in Node 20 the `ws`
 * package's, unless `globalThis.WebSocket` is set) and takes no WebSocket factory, so this file sets
 * `globalThis.WebSocket` to gateway-double's `LocalhostWebSocket` before viem opens one, which
 * resolves `*.localhost` without /etc/hosts (docs/websocket.md).
 *
 * What it pins: watchBlockNumber and watchBlocks on `newHeads`, watchContractEvent on `logs`
 * (removed logs passed on when a restore takes their block away), what a socket severed at the
 * daily limit looks like to viem, and viem's reconnect and resubscribe after a scripted drop, each
 * with the calls viem made, read in the request log.
 */
import { createPublicClient, createWalletClient, getAddress, http, parseEther, webSocket } from 'viem'
import type { Log, PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { mainnet } from 'viem/chains'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { localhostFetch } from '../../src/http/client.ts'
import { LocalhostWebSocket } from '../../src/http/localhostWebSocket.ts'
import type { RequestLogEntry } from '../../src/gateway/requestLog.ts'
import { until } from '../support/socket.ts'
import { tokenAbi } from './support/abis.ts'
import { logPosition, startControlServer } from './support/control.ts'
import type { ControlServer } from './support/control.ts'
import { bob, carol, token } from './support/fixture.ts'

globalThis.WebSocket = LocalhostWebSocket as unknown as typeof globalThis.WebSocket

let server: ControlServer
let snapshot: string
let since: number

beforeAll(async () => {
  server = await startControlServer()
  snapshot = (await server.control.snapshot()).id
})
afterAll(async () => {
  await server.close()
})
beforeEach(async () => {
  server.control.clearFaults()
  await server.control.restore(snapshot)
  since = logPosition(server)
})

const clients: PublicClient[] = []
afterEach(async () => {
  // viem keeps one socket per URL and options, across clients: each test closes what it opened.
  for (const client of clients.splice(0)) (await (client.transport as unknown as { getRpcClient(): Promise<{ close(): void }> }).getRpcClient()).close()
  vi.restoreAllMocks()
})

function wsClient(reconnect: { delay: number; attempts?: number } | false = false): PublicClient {
  const client = createPublicClient({ chain: mainnet, transport: webSocket(server.wsUrls.ethereum!, { reconnect, keepAlive: false }) })
  clients.push(client)
  return client
}

/** The socket entries of the connections this test opened (a socket closing after a test may still log its last call). */
function socketLog(): RequestLogEntry[] {
  const entries = server.control.requestLog({ since }).filter((e) => e.transport === 'ws')
  const opened = new Set(entries.filter((e) => e.socket!.stage === 'upgrade').map((e) => e.socket!.connection))
  return entries.filter((e) => opened.has(e.socket!.connection))
}
const calls = (entries: RequestLogEntry[]) => entries.flatMap((e) => (e.socket!.stage === 'upgrade' ? ['upgrade'] : e.calls.map((c) => c.method)))

async function transfer(amount = 1n): Promise<`0x${string}`> {
  const wallet = createWalletClient({ account: privateKeyToAccount(bob.privateKey), chain: mainnet, transport: http(server.url, { fetchFn: localhostFetch }) })
  return wallet.writeContract({ address: token, abi: tokenAbi, functionName: 'transfer', args: [carol.address, parseEther(String(amount))] })
}

describe('viem webSocket(): watching', () => {
  it('watchBlockNumber: eth_subscribe newHeads, one number per mined block, no polling', async () => {
    const client = wsClient()
    const numbers: bigint[] = []
    const unwatch = client.watchBlockNumber({ onBlockNumber: (n) => void numbers.push(n) })
    await until(() => calls(socketLog()).includes('eth_subscribe'))
    await server.control.mine('ethereum')
    await server.control.mine('ethereum')
    await until(() => numbers.length === 2)
    expect(numbers).toEqual([7n, 8n])
    unwatch()
    await until(() => calls(socketLog()).includes('eth_unsubscribe'))
    expect(calls(socketLog())).toEqual(['upgrade', 'eth_subscribe', 'eth_subscription', 'eth_subscription', 'eth_unsubscribe'])
    expect(socketLog().filter((e) => e.socket!.stage === 'event').map((e) => e.credits)).toEqual([50, 50])
  })

  it('watchBlocks: newHeads, then eth_getBlockByNumber for each head, over the same socket', async () => {
    const client = wsClient()
    const blocks: { number: bigint | null; hash: string | null }[] = []
    const unwatch = client.watchBlocks({ onBlock: (b) => void blocks.push({ number: b.number, hash: b.hash }) })
    await until(() => calls(socketLog()).includes('eth_subscribe'))
    const mined = await server.control.mine('ethereum')
    await until(() => blocks.length === 1)
    expect(blocks).toEqual([{ number: 7n, hash: mined.hash }])
    unwatch()
    expect(calls(socketLog()).slice(0, 4)).toEqual(['upgrade', 'eth_subscribe', 'eth_subscription', 'eth_getBlockByNumber'])
  })

  it('watchContractEvent: eth_subscribe logs with the event\'s topic; a restore sends the log again with removed: true', async () => {
    const client = wsClient()
    const logs: Log[] = []
    const unwatch = client.watchContractEvent({ address: token, abi: tokenAbi, eventName: 'Transfer', onLogs: (l) => void logs.push(...l) })
    await until(() => calls(socketLog()).includes('eth_subscribe'))
    const before = (await server.control.snapshot()).id
    const hash = await transfer(3n)
    await until(() => logs.length === 1)
    expect(logs[0]).toMatchObject({ transactionHash: hash, removed: false, eventName: 'Transfer', args: { from: getAddress(bob.address), to: getAddress(carol.address), value: parseEther('3') } })
    await server.control.restore(before)
    await until(() => logs.length === 2)
    expect(logs[1]).toMatchObject({ transactionHash: hash, removed: true, eventName: 'Transfer' })
    unwatch()
    await until(() => calls(socketLog()).includes('eth_unsubscribe'))
    const subscribe = socketLog().find((e) => e.calls[0]?.method === 'eth_subscribe')
    expect(subscribe?.credits).toBe(5)
    // No eth_getLogs or filter polling: the subscription is all viem uses.
    expect(calls(socketLog()).filter((m) => m !== 'eth_subscription')).toEqual(['upgrade', 'eth_subscribe', 'eth_unsubscribe'])
  })
})

describe('viem webSocket(): the socket going away', () => {
  it('a scripted drop: SocketClosedError to onError, then viem reconnects, subscribes again and goes on (the dropped head is not sent again)', async () => {
    const client = wsClient({ delay: 100 })
    const numbers: bigint[] = []
    const errors: string[] = []
    const unwatch = client.watchBlockNumber({ onBlockNumber: (n) => void numbers.push(n), onError: (e) => void errors.push(e.name) })
    await until(() => calls(socketLog()).includes('eth_subscribe'))
    server.control.addFault({ kind: 'drop', transport: 'ws', method: 'eth_subscription', times: 1 })
    await server.control.mine('ethereum')
    await until(() => calls(socketLog()).filter((m) => m === 'eth_subscribe').length === 2)
    await server.control.mine('ethereum')
    await until(() => numbers.length === 1)
    expect(numbers).toEqual([8n])
    expect(errors.length).toBeGreaterThan(0)
    expect(new Set(errors)).toEqual(new Set(['SocketClosedError']))
    unwatch()
    const log = socketLog()
    expect(log.map((e) => [e.socket!.connection, e.socket!.stage, e.fault])).toEqual([
      [log[0]!.socket!.connection, 'upgrade', null],
      [log[0]!.socket!.connection, 'message', null],
      [log[0]!.socket!.connection, 'event', 'drop'],
      [log[3]!.socket!.connection, 'upgrade', null],
      [log[3]!.socket!.connection, 'message', null],
      [log[3]!.socket!.connection, 'event', null],
      ...log.slice(6).map((e) => [log[3]!.socket!.connection, e.socket!.stage, null]),
    ])
    expect(log[3]!.socket!.connection).not.toBe(log[0]!.socket!.connection)
  })

  it('severed at the daily limit: SocketClosedError (viem drops the final 402 frame, id null); its reconnect is refused 402 and reaches onError as an ErrorEvent', async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {})
    const client = wsClient({ delay: 100, attempts: 3 })
    const numbers: bigint[] = []
    const errors: string[] = []
    const unwatch = client.watchBlockNumber({ onBlockNumber: (n) => void numbers.push(n), onError: (e) => void errors.push(`${e.constructor.name}: ${e.message.split('\n')[0]}`) })
    await until(() => calls(socketLog()).includes('eth_subscribe'))
    server.control.setCredits(server.devKey, 60)
    await server.control.mine('ethereum')
    await until(() => numbers.length === 1)
    await server.control.mine('ethereum')
    await until(() => socketLog().some((e) => e.socket!.stage === 'upgrade' && e.status === 402), 10_000)
    await until(() => errors.some((e) => e.includes('402')))
    unwatch()
    expect(numbers).toEqual([7n])
    expect(errors).toContain('SocketClosedError: The socket has been closed.')
    expect(errors).toContain('ErrorEvent: Unexpected server response: 402')
    // viem also prints the refused reconnect (its reconnect's own catch).
    expect(printed.mock.calls.some(([e]) => String((e as { message?: string }).message).includes('402'))).toBe(true)
    expect(socketLog().filter((e) => e.socket!.stage === 'event').map((e) => [e.status, e.credits])).toEqual([[200, 50], [402, 0]])
    expect(server.control.key(server.devKey).remaining).toBe(10)
  })
})
