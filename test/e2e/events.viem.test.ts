/**
 * viem 2 watching the double over `http()`, as its docs show (`watchBlockNumber`, `watchBlocks`,
 * `watchContractEvent` on a public client; `pollingInterval` 50 ms so the file runs in seconds),
 * with the RPC calls each makes read back from the request log. The watcher has a key of its own,
 * so its calls are told apart from the sends that make the events.
 *
 * What viem 2.57 does (actions/public/watch*.ts): `watchBlockNumber` polls `eth_blockNumber`,
 * `watchBlocks` polls `eth_getBlockByNumber("latest")`; `watchContractEvent` makes a filter
 * (`eth_newFilter`) on its first poll and then calls `eth_getFilterChanges` at each poll, never
 * `eth_getLogs` while the filter works; unwatching calls `eth_uninstallFilter`. An error of code
 * -32000 from `eth_getFilterChanges` (`InvalidInputRpcError`: the filter expired) goes to
 * `onError`, and the next poll makes a new filter.
 */
import { createPublicClient, createWalletClient, getAddress, http } from 'viem'
import type { Log, PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { mainnet } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localhostFetch } from '../../src/http/client.ts'
import { counterAbi } from './support/abis.ts'
import { logPosition, startControlServer } from './support/control.ts'
import type { ControlServer } from './support/control.ts'
import { bob, carol, counter } from './support/fixture.ts'

const WATCHER_KEY = '0000000000000000000000000000beef'
const POLL = 50

let server: ControlServer
let client: PublicClient

beforeAll(async () => {
  server = await startControlServer()
  server.control.addKeys([{ key: WATCHER_KEY, networks: ['ethereum'] }])
  client = createPublicClient({ chain: mainnet, transport: http(server.urlFor('ethereum', WATCHER_KEY), { fetchFn: localhostFetch }), pollingInterval: POLL })
})
afterAll(async () => {
  await server.close()
})

async function waitFor(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  const until = Date.now() + ms
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** The watcher's calls since `since`: method and outcome. */
function watcherCalls(since: number): { method: string; outcome: string | number | null; credits: number }[] {
  return server.control
    .requestLog({ since })
    .filter((e) => e.key === WATCHER_KEY)
    .flatMap((e) => e.calls.map((c) => ({ method: c.method!, outcome: c.outcome, credits: c.credits })))
}

const methodsOf = (calls: { method: string }[]) => [...new Set(calls.map((c) => c.method))].sort()

async function increment(from: { privateKey: `0x${string}` }): Promise<`0x${string}`> {
  const wallet = createWalletClient({ account: privateKeyToAccount(from.privateKey), chain: mainnet, transport: http(server.url, { fetchFn: localhostFetch }) })
  return wallet.writeContract({ address: counter, abi: counterAbi, functionName: 'increment' })
}

describe('viem over http(): watching blocks', () => {
  it('watchBlockNumber polls eth_blockNumber and sees a block mined by the control', async () => {
    const since = logPosition(server)
    const seen: bigint[] = []
    const unwatch = client.watchBlockNumber({ onBlockNumber: (n) => seen.push(n), emitOnBegin: true })
    try {
      await waitFor(() => seen.length > 0, 'the first block number')
      const mined = await server.control.mine('ethereum')
      await waitFor(() => seen.includes(BigInt(mined.number)), `block ${mined.number}`)
    } finally {
      unwatch()
    }
    expect(methodsOf(watcherCalls(since))).toEqual(['eth_blockNumber'])
  })

  it('watchBlocks polls eth_getBlockByNumber and hands over the mined block', async () => {
    const since = logPosition(server)
    const seen: string[] = []
    const unwatch = client.watchBlocks({ onBlock: (block) => seen.push(block.hash!), emitOnBegin: true })
    try {
      await waitFor(() => seen.length > 0, 'the first block')
      const mined = await server.control.mine('ethereum')
      await waitFor(() => seen.includes(mined.hash), `block ${mined.hash}`)
    } finally {
      unwatch()
    }
    expect(methodsOf(watcherCalls(since))).toEqual(['eth_getBlockByNumber'])
  })
})

describe('viem over http(): watchContractEvent takes the filter path', () => {
  it('eth_newFilter once, eth_getFilterChanges at each poll, eth_uninstallFilter on unwatch; never eth_getLogs', async () => {
    const since = logPosition(server)
    const logs: Log[] = []
    const unwatch = client.watchContractEvent({ address: counter, abi: counterAbi, eventName: 'Incremented', onLogs: (l) => logs.push(...l) })
    try {
      await waitFor(() => watcherCalls(since).some((c) => c.method === 'eth_getFilterChanges'), 'the first poll')
      const hash = await increment(bob)
      await waitFor(() => logs.length === 1, 'the Incremented log')
      expect(logs[0]).toMatchObject({ eventName: 'Incremented', transactionHash: hash, removed: false, args: { by: getAddress(bob.address) } })
    } finally {
      unwatch()
    }
    await waitFor(() => watcherCalls(since).some((c) => c.method === 'eth_uninstallFilter'), 'eth_uninstallFilter')
    const calls = watcherCalls(since)
    expect(methodsOf(calls)).toEqual(['eth_getFilterChanges', 'eth_newFilter', 'eth_uninstallFilter'])
    expect(calls[0]).toEqual({ method: 'eth_newFilter', outcome: 'ok', credits: 80 })
    expect(calls.filter((c) => c.method === 'eth_getFilterChanges').every((c) => c.outcome === 'ok' && c.credits === 140)).toBe(true)
    expect(calls.at(-1)).toEqual({ method: 'eth_uninstallFilter', outcome: 'ok', credits: 80 })
  })

  it('makes a new filter when its own expired (the control clock moved 15 minutes): onError sees -32000, later events come through', async () => {
    const since = logPosition(server)
    const logs: Log[] = []
    const errors: unknown[] = []
    const unwatch = client.watchContractEvent({
      address: counter,
      abi: counterAbi,
      eventName: 'Incremented',
      onLogs: (l) => logs.push(...l),
      onError: (e) => errors.push(e),
    })
    try {
      await waitFor(() => watcherCalls(since).some((c) => c.method === 'eth_getFilterChanges'), 'the first poll')
      server.control.setClock({ advanceSeconds: 15 * 60 })
      await waitFor(() => watcherCalls(since).filter((c) => c.method === 'eth_newFilter').length === 2, 'a second eth_newFilter')
      expect(errors).toHaveLength(1)
      expect(errors[0]).toMatchObject({ name: 'InvalidInputRpcError', code: -32000, details: 'filter not found' })
      const hash = await increment(carol)
      await waitFor(() => logs.length === 1, 'the log after the new filter')
      expect(logs[0]).toMatchObject({ transactionHash: hash, args: { by: getAddress(carol.address) } })
    } finally {
      unwatch()
      server.control.resetClock()
    }
    const calls = watcherCalls(since)
    const expired = calls.findIndex((c) => c.outcome === -32000)
    expect(calls[expired]).toEqual({ method: 'eth_getFilterChanges', outcome: -32000, credits: 140 })
    expect(calls[expired + 1]).toMatchObject({ method: 'eth_newFilter', outcome: 'ok' })
    expect(methodsOf(calls)).not.toContain('eth_getLogs')
  })
})

describe('viem over http(): a reorg', () => {
  it('watchContractEvent hands over the replaced block’s log again with removed: true', async () => {
    const logs: Log[] = []
    const since = logPosition(server)
    const unwatch = client.watchContractEvent({ address: counter, abi: counterAbi, eventName: 'Incremented', onLogs: (l) => logs.push(...l) })
    try {
      await waitFor(() => watcherCalls(since).some((c) => c.method === 'eth_getFilterChanges'), 'the first poll')
      const hash = await increment(bob)
      await waitFor(() => logs.length === 1, 'the log')
      const reorg = await server.control.reorg('ethereum', { depth: 1, transactions: 'empty' })
      expect(reorg.pooled).toEqual([hash])
      await waitFor(() => logs.length === 2, 'the removed log')
      expect(logs[1]).toEqual({ ...logs[0], removed: true })
    } finally {
      unwatch()
    }
  })
})
