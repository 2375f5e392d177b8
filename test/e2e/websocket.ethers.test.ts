/**
 * ethers 6's `WebSocketProvider` against a real server, used as its docs show, built with a
 * WebSocket factory (`() => new LocalhostWebSocket(url)`, gateway-double's `ws` WebSocket that
 * resolves `*.localhost`). It pins provider.on('block') and contract.on(event) on subscriptions,
 * what ethers does with a removed log (nothing a listener sees), and what a socket severed at the daily limit looks like to
 * ethers (it never reconnects), with the calls ethers made, read in the request log.
 */
import { Contract, FetchRequest, JsonRpcProvider, WebSocketProvider, Wallet, getAddress, parseEther } from 'ethers'
import type { ContractEventPayload, EthersError } from 'ethers'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { localhostAgent } from '../../src/http/client.ts'
import { LocalhostWebSocket } from '../../src/http/localhostWebSocket.ts'
import type { RequestLogEntry } from '../../src/gateway/requestLog.ts'
import { until } from '../support/socket.ts'
import { tokenAbi } from './support/abis.ts'
import { logPosition, startControlServer } from './support/control.ts'
import type { ControlServer } from './support/control.ts'
import { bob, carol, token } from './support/fixture.ts'

let server: ControlServer
let snapshot: string
let since: number
const providers: WebSocketProvider[] = []

beforeAll(async () => {
  server = await startControlServer()
  snapshot = (await server.control.snapshot()).id
})
afterAll(async () => {
  await server.close()
})
beforeEach(async () => {
  await server.control.restore(snapshot)
  since = logPosition(server)
})
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.destroy()))
})

function wsProvider(): WebSocketProvider {
  const url = server.wsUrls.ethereum!
  const provider = new WebSocketProvider(() => new LocalhostWebSocket(url))
  providers.push(provider)
  return provider
}

/** The socket entries of the connections this test opened (a socket closing after a test may still log its last call). */
function socketLog(): RequestLogEntry[] {
  const entries = server.control.requestLog({ since }).filter((e) => e.transport === 'ws')
  const opened = new Set(entries.filter((e) => e.socket!.stage === 'upgrade').map((e) => e.socket!.connection))
  return entries.filter((e) => opened.has(e.socket!.connection))
}
const calls = (entries: RequestLogEntry[]) => entries.flatMap((e) => (e.socket!.stage === 'upgrade' ? ['upgrade'] : e.calls.map((c) => c.method)))

async function transfer(amount: bigint): Promise<string> {
  const req = new FetchRequest(server.url)
  req.getUrlFunc = FetchRequest.createGetUrlFunc({ agent: localhostAgent })
  const http = new JsonRpcProvider(req, undefined, { staticNetwork: true })
  const tx = await new Contract(token, tokenAbi, new Wallet(bob.privateKey, http)).getFunction('transfer')(carol.address, amount)
  await tx.wait()
  http.destroy()
  return tx.hash as string
}

describe('ethers WebSocketProvider', () => {
  it("provider.on('block'): eth_subscribe newHeads, a number per mined block", async () => {
    const provider = wsProvider()
    const numbers: number[] = []
    await provider.on('block', (n: number) => void numbers.push(n))
    await until(() => calls(socketLog()).includes('eth_subscribe'))
    await server.control.mine('ethereum')
    await server.control.mine('ethereum')
    await until(() => numbers.length === 2)
    expect(numbers).toEqual([7, 8])
    // ethers asks the chain id (its network detection) and subscribes, over the one socket.
    expect(new Set(calls(socketLog()).filter((m) => m !== 'eth_subscription'))).toEqual(new Set(['upgrade', 'eth_chainId', 'eth_subscribe']))
    expect(socketLog().filter((e) => e.socket!.stage === 'event').map((e) => e.credits)).toEqual([50, 50])
  })

  it('contract.on(event): eth_subscribe logs; a log a restore removes is sent again but never reaches the listener', async () => {
    const provider = wsProvider()
    const events: ContractEventPayload[] = []
    await new Contract(token, tokenAbi, provider).on('Transfer', (...args: unknown[]) => void events.push(args.at(-1) as ContractEventPayload))
    await until(() => calls(socketLog()).includes('eth_subscribe'))
    const before = (await server.control.snapshot()).id
    const hash = await transfer(parseEther('2'))
    await until(() => events.length === 1)
    expect(events[0]!.args.toArray()).toEqual([getAddress(bob.address), getAddress(carol.address), parseEther('2')])
    expect(events[0]!.log).toMatchObject({ transactionHash: hash, removed: false })
    // The restore sends the log again with removed: true (charged, logged)...
    await server.control.restore(before)
    await until(() => socketLog().some((e) => e.socket!.stage === 'event'))
    expect(socketLog().filter((e) => e.socket!.stage === 'event').map((e) => [e.socket!.subscription!.type, e.credits])).toEqual([['logs', 300]])
    // ...which ethers does not hand to contract.on: it re-emits it as an orphan event
    // ({ orphan: 'drop-log', log }), for which ethers 6 has no working subscriber.
    await new Promise((r) => setTimeout(r, 200))
    expect(events).toHaveLength(1)
  })

  it("severed at the daily limit: the final 402 frame reaches provider.on('error') as UNKNOWN_ERROR with the body in error.result; the socket is closed and later calls never settle", async () => {
    const provider = wsProvider()
    const errors: EthersError[] = []
    await provider.on('error', (e: EthersError) => void errors.push(e))
    const numbers: number[] = []
    await provider.on('block', (n: number) => void numbers.push(n))
    await until(() => calls(socketLog()).includes('eth_subscribe'))
    server.control.setCredits(server.devKey, 60)
    await server.control.mine('ethereum')
    await server.control.mine('ethereum')
    await until(() => errors.length === 1)
    expect(errors[0]).toMatchObject({ code: 'UNKNOWN_ERROR', shortMessage: 'received result for unknown id' })
    expect((errors[0] as EthersError & { result: unknown }).result).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: expect.objectContaining({ code: 402, event: -33000, message: 'Payment Required' }),
    })
    await until(() => provider.websocket.readyState === 3)
    const late = await Promise.race([provider.getBlockNumber().then(() => 'settled', () => 'settled'), new Promise((r) => setTimeout(() => r('pending'), 500))])
    expect(late).toBe('pending')
    expect(socketLog().filter((e) => e.socket!.stage === 'upgrade')).toHaveLength(1)
  })
})
