/**
 * ethers v6 listening to the double over HTTP, as its docs show (`contract.on(event, listener)`
 * on a `JsonRpcProvider`; `pollingInterval` 50 ms so the file runs in seconds), with the RPC calls
 * it makes read back from the request log. The listener's provider has a key of its own, so its
 * calls are told apart from the sends that make the events.
 *
 * What ethers 6.17 does (providers/subscriber-filterid.ts): `contract.on` makes a filter
 * (`eth_newFilter`) once, then at each new block (found by polling `eth_blockNumber`) calls
 * `eth_getFilterChanges`, never `eth_getLogs`; `contract.off` (or `removeAllListeners`) calls
 * `eth_uninstallFilter`. When the filter is gone (`filter not found`), ethers prints the error
 * (`console.log("@TODO", error)`) and goes on polling the same id: later events are lost. A
 * removed log (a reorg) is not passed to `contract.on`: ethers emits it as an orphan event under a
 * tag made from the whole log's JSON, which `log.removedEvent()` (its documented filter) never
 * matches.
 */
import { Contract, FetchRequest, JsonRpcProvider, Wallet, getAddress } from 'ethers'
import type { ContractEventPayload, Log } from 'ethers'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { localhostAgent } from '../../src/http/client.ts'
import { counterAbi } from './support/abis.ts'
import { logPosition, startControlServer } from './support/control.ts'
import type { ControlServer } from './support/control.ts'
import { bob, carol, counter } from './support/fixture.ts'

const LISTENER_KEY = '0000000000000000000000000000cafe'
const POLL = 50

let server: ControlServer
let provider: JsonRpcProvider

function providerFor(url: string, pollingInterval?: number): JsonRpcProvider {
  const req = new FetchRequest(url)
  req.getUrlFunc = FetchRequest.createGetUrlFunc({ agent: localhostAgent })
  return new JsonRpcProvider(req, undefined, { staticNetwork: true, ...(pollingInterval ? { pollingInterval } : {}) })
}

beforeAll(async () => {
  server = await startControlServer()
  server.control.addKeys([{ key: LISTENER_KEY, networks: ['ethereum'] }])
  provider = providerFor(server.urlFor('ethereum', LISTENER_KEY), POLL)
})
afterAll(async () => {
  provider.destroy()
  await server.close()
})

async function waitFor(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  const until = Date.now() + ms
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** The listener's calls since `since` (ethers batches them: each call of each request). */
function listenerCalls(since: number): { method: string; outcome: string | number | null }[] {
  return server.control
    .requestLog({ since })
    .filter((e) => e.key === LISTENER_KEY)
    .flatMap((e) => e.calls.map((c) => ({ method: c.method!, outcome: c.outcome })))
}

const count = (calls: { method: string }[], method: string) => calls.filter((c) => c.method === method).length

async function increment(from: { privateKey: string }): Promise<string> {
  const sender = providerFor(server.url)
  try {
    const contract = new Contract(counter, counterAbi, new Wallet(from.privateKey, sender))
    const tx = await contract.getFunction('increment')()
    await tx.wait()
    return tx.hash as string
  } finally {
    sender.destroy()
  }
}

describe('ethers JsonRpcProvider: contract.on takes the filter path', () => {
  it('eth_newFilter once, eth_getFilterChanges at each new block, eth_uninstallFilter on off; never eth_getLogs', async () => {
    const since = logPosition(server)
    const contract = new Contract(counter, counterAbi, provider)
    const seen: ContractEventPayload[] = []
    await contract.on('Incremented', (_by, _count, payload: ContractEventPayload) => {
      seen.push(payload)
    })
    try {
      await waitFor(() => count(listenerCalls(since), 'eth_newFilter') === 1, 'eth_newFilter')
      const hash = await increment(bob)
      await waitFor(() => seen.length === 1, 'the Incremented event')
      expect(seen[0]!.args.toArray()).toEqual([getAddress(bob.address), expect.any(BigInt)])
      expect(seen[0]!.log).toMatchObject({ transactionHash: hash, removed: false })
    } finally {
      await contract.off('Incremented')
    }
    await waitFor(() => count(listenerCalls(since), 'eth_uninstallFilter') === 1, 'eth_uninstallFilter')
    const calls = listenerCalls(since)
    expect([...new Set(calls.map((c) => c.method))].sort()).toEqual(['eth_blockNumber', 'eth_chainId', 'eth_getFilterChanges', 'eth_newFilter', 'eth_uninstallFilter'])
    expect(count(calls, 'eth_newFilter')).toBe(1)
    expect(calls.every((c) => c.outcome === 'ok')).toBe(true)
  })

  it('keeps polling an expired filter: filter not found at each block, printed by ethers, and the events after it are lost', async () => {
    const printed = vi.spyOn(console, 'log').mockImplementation(() => {})
    const since = logPosition(server)
    const contract = new Contract(counter, counterAbi, provider)
    const seen: unknown[] = []
    await contract.on('Incremented', (...args: unknown[]) => {
      seen.push(args)
    })
    try {
      await waitFor(() => count(listenerCalls(since), 'eth_getFilterChanges') >= 1, 'the first eth_getFilterChanges')
      server.control.setClock({ advanceSeconds: 15 * 60 })
      const deadPolls = () => listenerCalls(since).filter((c) => c.outcome === -32000).length
      await increment(carol)
      await waitFor(() => deadPolls() === 1, 'a poll of the dead filter')
      await server.control.mine('ethereum')
      await waitFor(() => deadPolls() === 2, 'another poll of the dead filter')
      expect(seen).toEqual([])
      expect(printed).toHaveBeenCalledWith('@TODO', expect.objectContaining({ error: { code: -32000, message: 'filter not found' } }))
    } finally {
      await contract.off('Incremented')
      server.control.resetClock()
      printed.mockRestore()
    }
    // ethers uninstalls without awaiting: wait for it, so it is not cut by the provider's end.
    await waitFor(() => count(listenerCalls(since), 'eth_uninstallFilter') === 1, 'eth_uninstallFilter')
    expect(count(listenerCalls(since), 'eth_newFilter')).toBe(1)
  })
})

describe('ethers JsonRpcProvider: a reorg', () => {
  it('contract.on does not pass a removed log on: ethers gives it to an orphan listener whose log is the JSON of the removed one (not to log.removedEvent()); the event comes again once mined again', async () => {
    const since = logPosition(server)
    const contract = new Contract(counter, counterAbi, provider)
    const seen: ContractEventPayload[] = []
    const orphans: [string, Log][] = []
    await contract.on('Incremented', (_by, _count, payload: ContractEventPayload) => {
      seen.push(payload)
    })
    try {
      await waitFor(() => count(listenerCalls(since), 'eth_newFilter') === 1, 'eth_newFilter')
      const hash = await increment(bob)
      await waitFor(() => seen.length === 1, 'the event')
      // ethers documents log.removedEvent() for this; it never matches the tag ethers emits under.
      await provider.on(seen[0]!.log.removedEvent(), (log: Log) => orphans.push(['removedEvent()', log]))
      await provider.on({ orphan: 'drop-log', log: { ...seen[0]!.log.toJSON(), removed: true } }, (log: Log) => orphans.push(['the removed log as JSON', log]))
      const changes = () => listenerCalls(since).filter((c) => c.method === 'eth_getFilterChanges').length
      const before = changes()
      await server.control.reorg('ethereum', { depth: 1, transactions: 'empty' })
      // ethers asks for changes only when eth_blockNumber grows: a reorg at the same height is
      // seen at the next block.
      const blockPolls = count(listenerCalls(since), 'eth_blockNumber')
      await waitFor(() => count(listenerCalls(since), 'eth_blockNumber') >= blockPolls + 3, 'three block-number polls')
      expect(changes()).toBe(before)
      expect(seen).toHaveLength(1)
      await server.control.mine('ethereum')
      await waitFor(() => seen.length === 2, 'the event mined again')
      expect(seen[1]!.log).toMatchObject({ transactionHash: hash, removed: false })
      expect(seen[1]!.log.blockHash).not.toBe(seen[0]!.log.blockHash)
      expect(orphans.map(([how]) => how)).toEqual(['the removed log as JSON'])
      expect(orphans[0]![1]).toMatchObject({ transactionHash: hash, blockHash: seen[0]!.log.blockHash, removed: true })
    } finally {
      await contract.off('Incremented')
    }
    await waitFor(() => count(listenerCalls(since), 'eth_uninstallFilter') === 1, 'eth_uninstallFilter')
  })
})
