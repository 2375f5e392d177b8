/**
 * eth_subscribe over a real socket on the ethereum fixture (manual mining): newHeads in geth's
 * header shape, logs (address, topics; removed logs when a restore takes their block away),
 * newPendingTransactions (hashes or full transactions), eth_unsubscribe, geth's errors, the
 * service's per-event prices and the request log's entries for them, the daily limit met by a
 * notification, faults on notifications (drop, close, stall), and filters shared with HTTP.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Chain } from '../../src/chain/chain.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer, StartServerOptions } from '../../src/http/server.ts'
import { account, signed1559 } from '../chain/txSigning.ts'
import { manualClock } from '../gateway/helpers.ts'
import { openSocket, until } from '../support/socket.ts'
import type { TestSocket } from '../support/socket.ts'
import { postRpc } from '../support/wire.ts'

const FIXTURE = new URL('../../fixtures/ethereum', import.meta.url).pathname
const KEY = '0123456789abcdef0123456789abcdef'
const COUNTER = '0x00000000000000000000000000000000c0c0c0c0'
const INCREMENT = '0xd09de08a'
/** keccak256("Incremented(address,uint256)") */
const INCREMENTED = '0x38ac789ed44572701765277c4d0970f2db1c1a571ed39e84358095ae4eaa5420'
const TOKEN = '0x7d4c351edf255f0d4532fe1eb8f7b7c5eefcb105'

let base: Chain
beforeAll(async () => {
  base = await loadFixture(FIXTURE, { name: 'ethereum', miningMode: 'manual' })
})

const servers: RunningServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

interface Setup {
  server: RunningServer
  chain: Chain
  clock: ReturnType<typeof manualClock>
  socket(): Promise<TestSocket>
  http(method: string, params?: unknown[]): Promise<any>
  increment(from?: string): Promise<string>
  mine(): Promise<void>
  /** Frames until `n` have come. */
  frames(socket: TestSocket, n: number): Promise<any[]>
}

async function setup(opts: Partial<StartServerOptions> = {}): Promise<Setup> {
  const chain = await base.fork('ethereum')
  const clock = manualClock('2030-01-01T00:00:00Z')
  const server = await startServer({ port: 0, chains: { ethereum: chain }, keys: [{ key: KEY, networks: ['ethereum'] }], clock, control: true, ...opts })
  servers.push(server)
  const http = async (method: string, params: unknown[] = []) => {
    const res = await postRpc(server.origin, KEY, { jsonrpc: '2.0', id: 1, method, params })
    return JSON.parse(res.text)
  }
  return {
    server,
    chain,
    clock,
    socket: () => openSocket(server.wsUrls.ethereum!),
    http,
    async increment(from = 'bob') {
      const nonce = BigInt((await http('eth_getTransactionCount', [account(from).address, 'pending'])).result)
      const sent = await http('eth_sendRawTransaction', [signed1559(chain, from, { nonce, to: COUNTER, data: INCREMENT, gasLimit: 100_000n })])
      expect(sent.error).toBeUndefined()
      return sent.result as string
    },
    async mine() {
      await server.control.mine('ethereum')
    },
    async frames(socket, n) {
      const out = []
      for (let i = 0; i < n; i++) out.push(await socket.next())
      return out
    },
  }
}

const subscribe = async (socket: TestSocket, params: unknown[]) => {
  const answer = (await socket.call({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params })) as { result: string }
  expect(answer.result).toMatch(/^0x[1-9a-f][0-9a-f]*$/)
  return answer.result
}

const events = (server: RunningServer) => server.control.requestLog().filter((e) => e.socket?.stage === 'event')

describe('newHeads', () => {
  it('a notification is a text frame of compact JSON, the same bytes for every subscriber but its id', async () => {
    const s = await setup()
    const sockets = [await s.socket(), await s.socket()]
    const ids = [await subscribe(sockets[0]!, ['newHeads']), await subscribe(sockets[1]!, ['newHeads'])]
    const binary: boolean[] = []
    for (const socket of sockets) socket.ws.on('message', (_data, isBinary) => binary.push(isBinary))
    await s.mine()
    const texts = [await sockets[0]!.nextText(), await sockets[1]!.nextText()]
    expect(binary).toEqual([false, false])
    for (const [i, text] of texts.entries()) {
      expect(text).toBe(JSON.stringify(JSON.parse(text)))
      expect(text.startsWith(`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${ids[i]}","result":{"parentHash":"0x`)).toBe(true)
    }
    expect(texts[1]!.replace(ids[1]!, ids[0]!)).toBe(texts[0])
  })

  it('a notification per block with geth\'s header: its fields in geth\'s order, null where the fork has none, the hash last; 50 credits each', async () => {
    const s = await setup()
    const socket = await s.socket()
    const id = await subscribe(socket, ['newHeads'])
    await s.mine()
    await s.mine()
    const [first, second] = await s.frames(socket, 2)
    expect(Object.keys(first)).toEqual(['jsonrpc', 'method', 'params'])
    expect(first).toMatchObject({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id } })
    const header = first.params.result
    const block = (await s.http('eth_getBlockByNumber', ['0x7', false])).result
    expect(Object.keys(header)).toEqual([
      'parentHash', 'sha3Uncles', 'miner', 'stateRoot', 'transactionsRoot', 'receiptsRoot', 'logsBloom', 'difficulty', 'number', 'gasLimit',
      'gasUsed', 'timestamp', 'extraData', 'mixHash', 'nonce', 'baseFeePerGas', 'withdrawalsRoot', 'blobGasUsed', 'excessBlobGas',
      'parentBeaconBlockRoot', 'requestsHash', 'blockAccessListHash', 'slotNumber', 'hash',
    ])
    for (const [name, value] of Object.entries(header)) {
      if (name === 'blockAccessListHash' || name === 'slotNumber') expect(value, name).toBeNull()
      else expect(value, name).toBe(block[name])
    }
    expect(second.params.result.number).toBe('0x8')
    expect(second.params.result.parentHash).toBe(header.hash)
    expect(s.server.gateway.balance(KEY)).toBe(3_000_000 - 5 - 2 * 50 - 80)
    expect(events(s.server).map((e) => [e.socket!.subscription, e.credits, e.status, e.calls])).toEqual([
      [{ id, type: 'newHeads' }, 50, 200, [{ method: 'eth_subscription', credits: 50, outcome: 'ok' }]],
      [{ id, type: 'newHeads' }, 50, 200, [{ method: 'eth_subscription', credits: 50, outcome: 'ok' }]],
    ])
  })

  it('every subscription of every socket is notified and charged, in the order subscribed', async () => {
    const s = await setup()
    const a = await s.socket()
    const b = await s.socket()
    const a1 = await subscribe(a, ['newHeads'])
    const a2 = await subscribe(a, ['newHeads'])
    const b1 = await subscribe(b, ['newHeads'])
    await s.mine()
    expect((await s.frames(a, 2)).map((f) => f.params.subscription)).toEqual([a1, a2])
    expect((await b.next() as any).params.subscription).toBe(b1)
    expect(s.server.gateway.balance(KEY)).toBe(3_000_000 - 3 * 5 - 3 * 50)
  })
})

describe('logs', () => {
  it('each matching log as a notification, 300 credits per block with a match, none for a block without', async () => {
    const s = await setup()
    const socket = await s.socket()
    const id = await subscribe(socket, ['logs', { address: COUNTER, topics: [INCREMENTED] }])
    const other = await subscribe(socket, ['logs', { address: TOKEN }])
    await s.increment('bob')
    await s.increment('carol')
    await s.mine()
    const notified = await s.frames(socket, 2)
    const logs = (await s.http('eth_getLogs', [{ address: COUNTER, fromBlock: '0x7', toBlock: '0x7' }])).result
    expect(logs).toHaveLength(2)
    expect(notified).toEqual(logs.map((log: unknown) => ({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, result: log } })))
    await s.mine()
    expect(events(s.server).map((e) => [e.socket!.subscription!.id, e.credits, e.calls.length])).toEqual([[id, 300, 2]])
    // Two subscriptions, one charged block, two sends with their nonce reads, one eth_getLogs.
    expect(s.server.gateway.balance(KEY)).toBe(3_000_000 - 2 * 5 - 300 - 2 * 80 - 2 * 80 - 255)
    expect(socket.pending).toEqual([])
    expect(other).not.toBe(id)
  })

  it('a restore that takes a block away sends its logs again with removed: true, charged as a block', async () => {
    const s = await setup()
    const socket = await s.socket()
    const snapshot = await s.server.control.snapshot()
    const id = await subscribe(socket, ['logs', { address: COUNTER }])
    await s.increment()
    await s.mine()
    const [added] = await s.frames(socket, 1)
    expect(added.params.result.removed).toBe(false)
    await s.server.control.restore(snapshot.id)
    const [removed] = await s.frames(socket, 1)
    expect(removed).toEqual({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, result: { ...added.params.result, removed: true } } })
    expect(Object.keys(removed.params.result)).toEqual(Object.keys(added.params.result))
    // The restore put back the snapshot's credits and log; its own notification is charged after it.
    expect(events(s.server).map((e) => [e.credits, e.socket!.subscription!.id])).toEqual([[300, id]])
    expect(s.server.gateway.balance(KEY)).toBe(3_000_000 - 300)
  })

  it('a reorg: the replaced block\'s logs again with removed: true, then the new branch\'s; newHeads for the new block; each charged', async () => {
    const s = await setup()
    const socket = await s.socket()
    const heads = await subscribe(socket, ['newHeads'])
    const logs = await subscribe(socket, ['logs', { address: COUNTER }])
    const hash = await s.increment()
    await s.mine()
    const of = (frames: any[], id: string) => frames.filter((f) => f.params.subscription === id).map((f) => f.params.result)
    const first = await s.frames(socket, 2)
    const [old] = of(first, logs)
    expect(old).toMatchObject({ transactionHash: hash, blockNumber: '0x7', removed: false })
    const reorg = await s.server.control.reorg('ethereum', { depth: 1 })
    const replacement = reorg.added[0]!.hash
    expect(replacement).not.toBe(old.blockHash)
    const second = await s.frames(socket, 3)
    expect(of(second, logs)).toEqual([{ ...old, removed: true }, { ...old, blockHash: replacement }])
    expect(of(second, heads).map((h) => [h.number, h.hash])).toEqual([['0x7', replacement]])
    expect(socket.pending).toEqual([])
    expect(events(s.server).map((e) => [e.socket!.subscription!.type, e.credits])).toEqual([
      ['newHeads', 50],
      ['logs', 300],
      ['logs', 300],
      ['newHeads', 50],
      ['logs', 300],
    ])
  })

  it('a numeric range bounds the blocks whose logs are sent', async () => {
    const s = await setup()
    const socket = await s.socket()
    await subscribe(socket, ['logs', { address: COUNTER, fromBlock: '0x8' }])
    await s.increment()
    await s.mine()
    await s.increment()
    await s.mine()
    const [log] = await s.frames(socket, 1)
    expect(log.params.result.blockNumber).toBe('0x8')
  })
})

describe('newPendingTransactions', () => {
  it('each pooled transaction\'s hash (or with true the transaction); 200 credits per window of 800 ms', async () => {
    const s = await setup()
    const socket = await s.socket()
    const hashes = await subscribe(socket, ['newPendingTransactions'])
    const full = await subscribe(socket, ['newPendingTransactions', true])
    const first = await s.increment('bob')
    const [h1, f1] = await s.frames(socket, 2)
    expect(h1).toEqual({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: hashes, result: first } })
    expect(f1.params).toEqual({ subscription: full, result: (await s.http('eth_getTransactionByHash', [first])).result })
    const second = await s.increment('carol')
    expect((await s.frames(socket, 2)).map((f) => f.params.result.hash ?? f.params.result)).toEqual([second, second])
    s.clock.set('2030-01-01T00:00:01Z')
    await s.increment('dave')
    await s.frames(socket, 2)
    expect(events(s.server).map((e) => e.credits)).toEqual([200, 200, 0, 0, 200, 200])
  })
})

describe('eth_unsubscribe', () => {
  it('true, and no more notifications; an unknown id -32000 subscription not found; 10 credits each', async () => {
    const s = await setup()
    const socket = await s.socket()
    const id = await subscribe(socket, ['newHeads'])
    expect(await socket.call({ jsonrpc: '2.0', id: 2, method: 'eth_unsubscribe', params: [id] })).toEqual({ jsonrpc: '2.0', id: 2, result: true })
    expect(await socket.call({ jsonrpc: '2.0', id: 3, method: 'eth_unsubscribe', params: [id] })).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'subscription not found' } })
    expect(await socket.call({ jsonrpc: '2.0', id: 4, method: 'eth_unsubscribe', params: [5] })).toMatchObject({ error: { code: -32602, message: 'invalid argument 0: json: cannot unmarshal number into Go value of type rpc.ID' } })
    await s.mine()
    expect(await socket.call({ jsonrpc: '2.0', id: 5, method: 'eth_chainId', params: [] })).toMatchObject({ id: 5 })
    expect(events(s.server)).toEqual([])
    expect(s.chain.events.listenerCount).toBe(0)
    expect(s.server.gateway.balance(KEY)).toBe(3_000_000 - 5 - 3 * 10 - 5)
  })

  it('a closed socket\'s subscriptions end with it', async () => {
    const s = await setup()
    const socket = await s.socket()
    await subscribe(socket, ['newHeads'])
    await subscribe(socket, ['logs', {}])
    expect(s.chain.events.listenerCount).toBe(1)
    await socket.close()
    await until(() => s.chain.events.listenerCount === 0)
  })
})

describe('geth\'s errors', () => {
  it('over HTTP: 200 -32601 notifications not supported, charged 5; eth_unsubscribe -32000', async () => {
    const s = await setup()
    const res = await postRpc(s.server.origin, KEY, { jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })
    expect([res.status, res.text]).toEqual([200, '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"notifications not supported"}}'])
    expect((await s.http('eth_unsubscribe', ['0x1'])).error).toEqual({ code: -32000, message: 'subscription not found' })
    expect(s.server.gateway.balance(KEY)).toBe(3_000_000 - 5 - 10)
  })

  it('names, arguments and ranges as geth words them', async () => {
    const s = await setup()
    const socket = await s.socket()
    const error = async (params: unknown) => ((await socket.call({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params })) as { error: unknown }).error
    expect(await error(['syncing'])).toEqual({ code: -32601, message: 'no "syncing" subscription in eth namespace' })
    expect(await error([])).toEqual({ code: -32602, message: 'expected subscription name as first argument' })
    expect(await error([7])).toEqual({ code: -32602, message: 'expected subscription name as first argument' })
    expect(await error(['newHeads', {}])).toEqual({ code: -32602, message: 'too many arguments, want at most 1' })
    expect(await error(['logs'])).toEqual({ code: -32602, message: 'missing value for required argument 1' })
    expect(await error(['logs', { address: '0x12' }])).toMatchObject({ code: -32602, message: expect.stringMatching(/^invalid argument 1: invalid address/) })
    expect(await error(['logs', { fromBlock: '0x9', toBlock: '0x8' }])).toEqual({ code: -32602, message: 'invalid block range params' })
    expect(await error(['newPendingTransactions', 'yes'])).toEqual({ code: -32602, message: 'invalid argument 1: json: cannot unmarshal string into Go value of type bool' })
  })

  it('maxSubscriptions per connection: past it -32005', async () => {
    const s = await setup({ sockets: { maxSubscriptions: 2 } })
    const socket = await s.socket()
    await subscribe(socket, ['newHeads'])
    await subscribe(socket, ['newHeads'])
    expect(await socket.call({ jsonrpc: '2.0', id: 9, method: 'eth_subscribe', params: ['newHeads'] })).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32005, message: 'too many subscriptions on this connection (limit 2)' },
    })
  })
})

describe('credits and faults on notifications', () => {
  it('a notification the balance cannot pay severs the key\'s sockets: the 402 with id null, close 1008', async () => {
    const s = await setup()
    s.server.control.setCredits(KEY, 5 + 50 + 49)
    const socket = await s.socket()
    await subscribe(socket, ['newHeads'])
    await s.mine()
    expect(await socket.next()).toMatchObject({ method: 'eth_subscription' })
    await s.mine()
    expect(await socket.next()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: 402, event: -33000 } })
    expect(await socket.closed).toEqual({ code: 1008, reason: 'daily credit limit reached' })
    expect(s.server.gateway.balance(KEY)).toBe(49)
    expect(events(s.server).map((e) => [e.status, e.credits])).toEqual([[200, 50], [402, 0]])
    // The entry's call: charged and answered when sent; at the limit, neither.
    expect(events(s.server).map((e) => e.calls)).toEqual([
      [{ method: 'eth_subscription', credits: 50, outcome: 'ok' }],
      [{ method: 'eth_subscription', credits: 0, outcome: null }],
    ])
    await until(() => s.chain.events.listenerCount === 0)
  })

  it('stall holds notifications for ms, then sends them in order, charged then', async () => {
    const s = await setup()
    const socket = await s.socket()
    const id = await subscribe(socket, ['newHeads'])
    s.server.control.addFault({ kind: 'stall', ms: 3000, times: 1 })
    await s.mine()
    await s.mine()
    expect(await socket.call({ jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] })).toMatchObject({ id: 2 })
    expect(s.server.gateway.balance(KEY)).toBe(3_000_000 - 5 - 5)
    const heads = await s.frames(socket, 2)
    expect(heads.map((h) => [h.params.subscription, h.params.result.number])).toEqual([[id, '0x7'], [id, '0x8']])
    expect(events(s.server).map((e) => [e.fault, e.credits])).toEqual([['stall', 50], ['stall', 50]])
  })

  it('drop and close on eth_subscription: the socket ends instead of the notification, nothing charged', async () => {
    const s = await setup()
    const a = await s.socket()
    await subscribe(a, ['newHeads'])
    s.server.control.addFault({ kind: 'close', code: 4001, reason: 'bye', method: 'eth_subscription', times: 1 })
    await s.mine()
    expect(await a.closed).toEqual({ code: 4001, reason: 'bye' })
    const b = await s.socket()
    await subscribe(b, ['newHeads'])
    s.server.control.addFault({ kind: 'drop', transport: 'ws', times: 1 })
    await s.mine()
    expect((await b.closed).code).toBe(1006)
    expect(events(s.server).map((e) => [e.fault, e.credits, e.status])).toEqual([['close', 0, null], ['drop', 0, null]])
    expect(events(s.server).map((e) => e.calls.map((c) => c.outcome))).toEqual([[null], [null]])
    expect(s.server.gateway.balance(KEY)).toBe(3_000_000 - 2 * 5)
  })
})

describe('filters over the socket', () => {
  it('are the key\'s on the network: made over the socket, polled over HTTP', async () => {
    const s = await setup()
    const socket = await s.socket()
    const { result: id } = (await socket.call({ jsonrpc: '2.0', id: 1, method: 'eth_newBlockFilter', params: [] })) as { result: string }
    await s.mine()
    const changes = (await s.http('eth_getFilterChanges', [id])).result
    expect(changes).toEqual([(await s.http('eth_getBlockByNumber', ['latest', false])).result.hash])
  })
})
