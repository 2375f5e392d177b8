/**
 * The filter methods through the wire (createApp, supertest): eth_newFilter, eth_newBlockFilter,
 * eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter on
 * the ethereum fixture in manual mining, with the service's rules: ids per key and network, expiry
 * on the gateway's clock, `filter not found`, prices, bounds; and what a snapshot restore does.
 */
import request from 'supertest'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Chain } from '../../src/chain/chain.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { createApp } from '../../src/http/app.ts'
import type { GatewayApp } from '../../src/http/app.ts'
import { account, signed1559 } from '../chain/txSigning.ts'

const FIXTURE = new URL('../../fixtures/ethereum', import.meta.url).pathname
const KEY = '0123456789abcdef0123456789abcdef'
const OTHER_KEY = 'fedcba9876543210fedcba9876543210'
const COUNTER = '0x00000000000000000000000000000000c0c0c0c0'
const TOKEN = '0x7d4c351edf255f0d4532fe1eb8f7b7c5eefcb105'
const INCREMENT = '0xd09de08a'
/** keccak256("Incremented(address,uint256)") */
const INCREMENTED = '0x38ac789ed44572701765277c4d0970f2db1c1a571ed39e84358095ae4eaa5420'
/** keccak256("Transfer(address,address,uint256)") */
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const START = Date.parse('2030-01-01T00:00:00Z')

interface Rpc {
  result?: any
  error?: { code: number; message: string; data?: unknown }
}

interface Setup {
  app: GatewayApp
  chain: Chain
  rpc(method: string, params?: unknown[], key?: string, network?: string): Promise<Rpc>
  ok(method: string, params?: unknown[], key?: string): Promise<any>
  increment(from?: string): Promise<string>
  mine(): Promise<{ number: number; hash: string }>
}

async function setup(options: { filterLimits?: Record<string, number> } = {}): Promise<Setup> {
  const chain = await loadFixture(FIXTURE, { name: 'ethereum', miningMode: 'manual' })
  const app = createApp({
    networks: { ethereum: chain },
    keys: [
      { key: KEY, networks: ['ethereum'] },
      { key: OTHER_KEY, networks: ['ethereum'] },
    ],
    clock: { now: () => START },
    control: true,
    ...(options.filterLimits ? { filterLimits: options.filterLimits } : {}),
  })
  let id = 0
  const rpc = async (method: string, params: unknown[] = [], key = KEY, network = 'ethereum'): Promise<Rpc> => {
    const res = await request(app).post(`/v3/${key}`).set('Host', `${network}-mainnet.localhost`).send({ jsonrpc: '2.0', id: ++id, method, params })
    expect(res.status).toBe(200)
    return res.body as Rpc
  }
  const ok = async (method: string, params: unknown[] = [], key = KEY) => {
    const res = await rpc(method, params, key)
    expect(res.error, `${method} ${JSON.stringify(params)}`).toBeUndefined()
    return res.result
  }
  const increment = async (from = 'bob') => {
    const nonce = BigInt(await ok('eth_getTransactionCount', [account(from).address, 'pending']))
    return ok('eth_sendRawTransaction', [signed1559(chain, from, { nonce, to: COUNTER, data: INCREMENT, gasLimit: 100_000n })]) as Promise<string>
  }
  const mine = async () => {
    const res = await request(app).post('/_double/networks/ethereum/mine')
    expect(res.status).toBe(200)
    return res.body as { number: number; hash: string }
  }
  return { app, chain, rpc, ok, increment, mine }
}

describe('filters over HTTP', () => {
  let s: Setup
  let snapshot: string
  beforeAll(async () => {
    s = await setup()
    snapshot = (await request(s.app).post('/_double/snapshots').send({})).body.id
  })
  beforeEach(async () => {
    await request(s.app).post(`/_double/snapshots/${snapshot}/restore`)
    await request(s.app).delete('/_double/clock')
  })

  it('a log filter hands over each new matching log once, as eth_getLogs shows it', async () => {
    const id = await s.ok('eth_newFilter', [{ address: COUNTER }])
    expect(id).toMatch(/^0x[0-9a-f]{1,32}$/)
    expect(await s.ok('eth_getFilterChanges', [id])).toEqual([])
    await s.increment()
    const block = await s.mine()
    const changes = await s.ok('eth_getFilterChanges', [id])
    expect(changes).toHaveLength(1)
    expect(changes).toEqual(await s.ok('eth_getLogs', [{ blockHash: block.hash }]))
    expect(changes[0]).toMatchObject({ address: COUNTER, removed: false, blockNumber: `0x${block.number.toString(16)}` })
    expect(await s.ok('eth_getFilterChanges', [id])).toEqual([])
  })

  it('matches addresses, topics and numeric bounds as geth’s filterLogs (tags bound nothing)', async () => {
    const head = Number(s.chain.head.number)
    const hex = (n: number) => `0x${n.toString(16)}`
    const ids = {
      topic: await s.ok('eth_newFilter', [{ topics: [INCREMENTED] }]),
      byWhom: await s.ok('eth_newFilter', [{ topics: [INCREMENTED, `0x${'0'.repeat(24)}${account('carol').address.slice(2)}`] }]),
      token: await s.ok('eth_newFilter', [{ address: TOKEN }]),
      transfer: await s.ok('eth_newFilter', [{ topics: [[TRANSFER, null]] }]),
      pastRange: await s.ok('eth_newFilter', [{ fromBlock: '0x1', toBlock: hex(head) }]),
      fromNext2: await s.ok('eth_newFilter', [{ fromBlock: hex(head + 2) }]),
      earliest: await s.ok('eth_newFilter', [{ fromBlock: 'earliest', toBlock: 'latest' }]),
      hash: await s.ok('eth_newFilter', [{ blockHash: s.chain.genesis.hash }]),
    }
    await s.increment('bob')
    await s.mine()
    await s.increment('carol')
    await s.mine()
    const counts = Object.fromEntries(await Promise.all(Object.entries(ids).map(async ([name, id]) => [name, (await s.ok('eth_getFilterChanges', [id])).length])))
    expect(counts).toEqual({ topic: 2, byWhom: 1, token: 0, transfer: 2, pastRange: 0, fromNext2: 1, earliest: 2, hash: 2 })
  })

  it('a block filter hands over the hash of each new block, oldest first', async () => {
    const id = await s.ok('eth_newBlockFilter')
    const a = await s.mine()
    const b = await s.mine()
    expect(await s.ok('eth_getFilterChanges', [id])).toEqual([a.hash, b.hash])
    expect(await s.ok('eth_getFilterChanges', [id])).toEqual([])
  })

  it('a pending-transaction filter hands over each transaction entering the pool: hashes, or the pending transactions with fullTx', async () => {
    const hashes = await s.ok('eth_newPendingTransactionFilter')
    const full = await s.ok('eth_newPendingTransactionFilter', [true])
    const sent = await s.increment()
    const pending = await s.ok('eth_getTransactionByHash', [sent])
    expect(pending.blockHash).toBeNull()
    expect(await s.ok('eth_getFilterChanges', [hashes])).toEqual([sent])
    expect(await s.ok('eth_getFilterChanges', [full])).toEqual([pending])
    await s.mine()
    expect(await s.ok('eth_getFilterChanges', [hashes])).toEqual([])
  })

  it('eth_getFilterLogs answers as eth_getLogs with the filter’s criteria, for log filters only', async () => {
    await s.increment()
    await s.mine()
    const criteria = { fromBlock: '0x1', address: [COUNTER, TOKEN] }
    const id = await s.ok('eth_newFilter', [criteria])
    const logs = await s.ok('eth_getFilterLogs', [id])
    expect(logs.length).toBeGreaterThan(3)
    expect(logs).toEqual(await s.ok('eth_getLogs', [criteria]))
    const blocks = await s.ok('eth_newBlockFilter')
    expect((await s.rpc('eth_getFilterLogs', [blocks])).error).toEqual({ code: -32000, message: 'filter not found' })
  })

  it('eth_uninstallFilter answers true once, then false; the id is then not found', async () => {
    const id = await s.ok('eth_newBlockFilter')
    expect(await s.ok('eth_uninstallFilter', [id])).toBe(true)
    expect(await s.ok('eth_uninstallFilter', [id])).toBe(false)
    expect((await s.rpc('eth_getFilterChanges', [id])).error).toEqual({ code: -32000, message: 'filter not found' })
    expect((await s.rpc('eth_getFilterChanges', ['0x1234'])).error).toEqual({ code: -32000, message: 'filter not found' })
  })

  it('shares ids among the requests of one key on one network, never with another key or network', async () => {
    const id = await s.ok('eth_newBlockFilter')
    await s.mine()
    expect((await s.rpc('eth_getFilterChanges', [id], OTHER_KEY)).error).toEqual({ code: -32000, message: 'filter not found' })
    expect(await s.ok('eth_uninstallFilter', [id], OTHER_KEY)).toBe(false)
    const forked = await request(s.app).post('/_double/networks').send({ name: `ethereum-f${Date.now()}`, from: 'ethereum' })
    expect(forked.status).toBe(201)
    expect((await s.rpc('eth_getFilterChanges', [id], KEY, forked.body.name)).error).toEqual({ code: -32000, message: 'filter not found' })
    expect(await s.ok('eth_getFilterChanges', [id])).toHaveLength(1)
  })

  it('expires a filter 15 minutes after its last eth_getFilterChanges, on the gateway’s clock (eth_getFilterLogs does not keep it)', async () => {
    const polled = await s.ok('eth_newFilter', [{}])
    const idle = await s.ok('eth_newBlockFilter')
    const advance = (seconds: number) => request(s.app).post('/_double/clock').send({ advanceSeconds: seconds })
    await advance(14 * 60 + 59)
    expect(await s.ok('eth_getFilterChanges', [polled])).toEqual([])
    expect(await s.ok('eth_getFilterLogs', [polled])).toEqual(expect.any(Array))
    await advance(1)
    expect((await s.rpc('eth_getFilterChanges', [idle])).error).toEqual({ code: -32000, message: 'filter not found' })
    await advance(14 * 60 + 58)
    expect(await s.ok('eth_getFilterChanges', [polled])).toEqual([])
    await advance(15 * 60)
    expect((await s.rpc('eth_getFilterLogs', [polled])).error).toEqual({ code: -32000, message: 'filter not found' })
    expect(await s.ok('eth_uninstallFilter', [polled])).toBe(false)
  })

  it('expires a filter 15 minutes after a poll made with the clock set back, as after any poll', async () => {
    const filter = await s.ok('eth_newBlockFilter')
    const other = await s.ok('eth_newBlockFilter')
    const advance = (seconds: number) => request(s.app).post('/_double/clock').send({ advanceSeconds: seconds })
    await advance(-60 * 60)
    expect(await s.ok('eth_getFilterChanges', [filter])).toEqual([])
    await advance(14 * 60 + 59)
    expect(await s.ok('eth_getFilterChanges', [other])).toEqual([])
    await advance(1)
    // Its last poll is 15 minutes old, though the table's filters were installed later on the clock.
    expect((await s.rpc('eth_getFilterChanges', [filter])).error).toEqual({ code: -32000, message: 'filter not found' })
    expect(await s.ok('eth_getFilterChanges', [other])).toEqual([])
  })

  it('refuses what geth refuses: pending logs, ranges SubscribeLogs cannot follow, ids that are not strings', async () => {
    const error = async (method: string, params: unknown[]) => (await s.rpc(method, params)).error
    expect(await error('eth_newFilter', [{ fromBlock: 'pending' }])).toEqual({ code: -32000, message: 'pending logs are not supported' })
    expect(await error('eth_newFilter', [{ toBlock: 'pending' }])).toEqual({ code: -32000, message: 'pending logs are not supported' })
    for (const range of [{ fromBlock: 'latest', toBlock: '0x1' }, { fromBlock: 'safe' }, { toBlock: 'finalized' }, { fromBlock: '0x5', toBlock: '0x2' }]) {
      expect(await error('eth_newFilter', [range]), JSON.stringify(range)).toEqual({ code: -32602, message: 'invalid block range params' })
    }
    expect(await error('eth_newFilter', [{ topics: [1] }])).toEqual({ code: -32602, message: 'invalid argument 0: invalid topic(s)' })
    expect(await error('eth_newFilter', [])).toEqual({ code: -32602, message: 'missing value for required argument 0' })
    expect(await error('eth_getFilterChanges', [7])).toEqual({ code: -32602, message: 'invalid argument 0: json: cannot unmarshal number into Go value of type rpc.ID' })
    expect(await error('eth_getFilterLogs', [])).toEqual({ code: -32602, message: 'missing value for required argument 0' })
    expect(await error('eth_uninstallFilter', [{}])).toEqual({ code: -32602, message: 'invalid argument 0: json: cannot unmarshal object into Go value of type rpc.ID' })
    expect(await error('eth_newPendingTransactionFilter', ['yes'])).toEqual({ code: -32602, message: 'invalid argument 0: json: cannot unmarshal string into Go value of type bool' })
    expect(await error('eth_newBlockFilter', [1])).toEqual({ code: -32602, message: 'too many arguments, want at most 0' })
  })

  it('charges the service’s prices: 80, 80, 80, 140, 255, 80', async () => {
    const since = (await request(s.app).get('/_double/log')).body.entries.at(-1)?.seq ?? 0
    const logs = await s.ok('eth_newFilter', [{}])
    await s.ok('eth_newBlockFilter')
    await s.ok('eth_newPendingTransactionFilter')
    await s.ok('eth_getFilterChanges', [logs])
    await s.ok('eth_getFilterLogs', [logs])
    await s.ok('eth_uninstallFilter', [logs])
    const entries = (await request(s.app).get(`/_double/log?since=${since}`)).body.entries as { calls: { method: string; credits: number }[] }[]
    expect(entries.map((e) => [e.calls[0]!.method, e.calls[0]!.credits])).toEqual([
      ['eth_newFilter', 80],
      ['eth_newBlockFilter', 80],
      ['eth_newPendingTransactionFilter', 80],
      ['eth_getFilterChanges', 140],
      ['eth_getFilterLogs', 255],
      ['eth_uninstallFilter', 80],
    ])
  })

  it('survives a snapshot restore, which it sees as a reorg: removed logs again with removed: true, the restored head for block filters', async () => {
    const before = (await request(s.app).post('/_double/snapshots').send({})).body.id
    const head = s.chain.head
    const logs = await s.ok('eth_newFilter', [{ address: COUNTER }])
    const blocks = await s.ok('eth_newBlockFilter')
    await s.increment()
    const mined = await s.mine()
    const [log] = await s.ok('eth_getFilterChanges', [logs])
    expect(await s.ok('eth_getFilterChanges', [blocks])).toEqual([mined.hash])
    expect((await request(s.app).post(`/_double/snapshots/${before}/restore`)).status).toBe(200)
    expect(await s.ok('eth_getFilterChanges', [logs])).toEqual([{ ...log, removed: true }])
    expect(await s.ok('eth_getFilterChanges', [blocks])).toEqual([head.hash])
  })

  it('a restore to a later snapshot brings its blocks back as new ones; a restore that puts transactions back in the pool shows them to pending filters', async () => {
    const early = (await request(s.app).post('/_double/snapshots').send({})).body.id
    const head = s.chain.head
    const logs = await s.ok('eth_newFilter', [{ address: COUNTER }])
    const blocks = await s.ok('eth_newBlockFilter')
    const pending = await s.ok('eth_newPendingTransactionFilter')
    const hash = await s.increment()
    const pooled = (await request(s.app).post('/_double/snapshots').send({})).body.id
    expect(await s.ok('eth_getFilterChanges', [pending])).toEqual([hash])
    const mined = await s.mine()
    const late = (await request(s.app).post('/_double/snapshots').send({})).body.id
    const [log] = await s.ok('eth_getFilterChanges', [logs])
    expect(log).toMatchObject({ transactionHash: hash, blockHash: mined.hash, removed: false })
    expect(await s.ok('eth_getFilterChanges', [blocks])).toEqual([mined.hash])

    // Back to before the transaction: its log removed, the head moved back, nothing pooled.
    expect((await request(s.app).post(`/_double/snapshots/${early}/restore`)).status).toBe(200)
    expect(await s.ok('eth_getFilterChanges', [logs])).toEqual([{ ...log, removed: true }])
    expect(await s.ok('eth_getFilterChanges', [blocks])).toEqual([head.hash])
    expect(await s.ok('eth_getFilterChanges', [pending])).toEqual([])
    // Forward again: the block comes back as a new one, its log as a new log.
    expect((await request(s.app).post(`/_double/snapshots/${late}/restore`)).status).toBe(200)
    expect(await s.ok('eth_getFilterChanges', [logs])).toEqual([log])
    expect(await s.ok('eth_getFilterChanges', [blocks])).toEqual([mined.hash])
    // Back to the transaction in the pool: the log removed again, the transaction pending again.
    expect((await request(s.app).post(`/_double/snapshots/${pooled}/restore`)).status).toBe(200)
    expect(await s.ok('eth_getFilterChanges', [logs])).toEqual([{ ...log, removed: true }])
    expect(await s.ok('eth_getFilterChanges', [pending])).toEqual([hash])
    expect((await s.ok('eth_getTransactionByHash', [hash])).blockHash).toBeNull()
  })

  it('a fork starts with no filters and shares none with its source: each network’s filters see its own blocks only', async () => {
    const onSource = await s.ok('eth_newBlockFilter')
    const name = `ethereum-f${Date.now()}`
    expect((await request(s.app).post('/_double/networks').send({ name, from: 'ethereum' })).status).toBe(201)
    const onFork = (await s.rpc('eth_newBlockFilter', [], KEY, name)).result as string
    expect(onFork).toMatch(/^0x/)
    const forkBlock = (await request(s.app).post(`/_double/networks/${name}/mine`)).body as { hash: string }
    expect(await s.ok('eth_getFilterChanges', [onSource])).toEqual([])
    expect((await s.rpc('eth_getFilterChanges', [onSource], KEY, name)).error).toEqual({ code: -32000, message: 'filter not found' })
    // A transaction on the source only (the same empty block at the same clock would be the fork's).
    await s.increment()
    const sourceBlock = await s.mine()
    expect(sourceBlock.hash).not.toBe(forkBlock.hash)
    expect(await s.ok('eth_getFilterChanges', [onSource])).toEqual([sourceBlock.hash])
    expect((await s.rpc('eth_getFilterChanges', [onFork], KEY, name)).result).toEqual([forkBlock.hash])
    expect((await s.rpc('eth_getFilterChanges', [onFork])).error).toEqual({ code: -32000, message: 'filter not found' })
  })
})

describe('filter bounds', () => {
  it('refuses a filter past the count with -32005 (per key), drops a filter past its undelivered changes', async () => {
    const s = await setup({ filterLimits: { maxFilters: 3, maxChanges: 2, maxBytes: 2048 } })
    const a = await s.ok('eth_newBlockFilter')
    const b = await s.ok('eth_newBlockFilter')
    const c = await s.ok('eth_newPendingTransactionFilter')
    expect((await s.rpc('eth_newBlockFilter')).error).toEqual({ code: -32005, message: 'too many filters: at most 3 per key and network (uninstall some, or let them expire)' })
    expect(await s.ok('eth_newBlockFilter', [], OTHER_KEY)).toMatch(/^0x/)
    await s.mine()
    expect(await s.ok('eth_getFilterChanges', [b])).toHaveLength(1)
    await s.mine()
    await s.mine()
    // a: three undelivered hashes, past its two: dropped. b: two, kept.
    expect((await s.rpc('eth_getFilterChanges', [a])).error).toEqual({ code: -32000, message: 'filter not found' })
    expect(await s.ok('eth_getFilterChanges', [b])).toHaveLength(2)
    expect(s.app.gateway.filters.tableOf(KEY, s.app.gateway.networks.get('ethereum')!).size).toBe(2)
    const d = await s.ok('eth_newBlockFilter')
    for (let i = 0; i < 3; i++) await s.increment()
    // c's third pooled transaction is past its two changes: dropped; d and b never held any.
    expect((await s.rpc('eth_getFilterChanges', [c])).error).toEqual({ code: -32000, message: 'filter not found' })
    expect(await s.ok('eth_getFilterChanges', [d])).toEqual([])
    expect(await s.ok('eth_getFilterChanges', [b])).toEqual([])
  })

  it('past the table’s bytes, drops the filter with the largest backlog, and only it', async () => {
    // Estimates: 256 bytes a filter, 128 a block hash.
    const s = await setup({ filterLimits: { maxFilters: 10, maxChanges: 100, maxBytes: 1200 } })
    const x = await s.ok('eth_newBlockFilter')
    const y = await s.ok('eth_newBlockFilter')
    const table = s.app.gateway.filters.tableOf(KEY, s.app.gateway.networks.get('ethereum')!)
    expect(table.bytes).toBe(512)
    await s.mine()
    expect(await s.ok('eth_getFilterChanges', [y])).toHaveLength(1)
    await s.mine()
    await s.mine()
    expect(table.bytes).toBe(512 + 3 * 128 + 2 * 128)
    // x: 4 hashes, y: 3 make 1408 bytes: x goes.
    await s.mine()
    expect((await s.rpc('eth_getFilterChanges', [x])).error).toEqual({ code: -32000, message: 'filter not found' })
    expect(await s.ok('eth_getFilterChanges', [y])).toHaveLength(3)
    expect(table.bytes).toBe(256)
    // The table listens to the chain only while it holds a filter.
    expect(s.chain.events.listening).toBe(true)
    expect(await s.ok('eth_uninstallFilter', [y])).toBe(true)
    expect(s.chain.events.listening).toBe(false)
  })
})

describe('the 10,000-log limit of eth_getLogs and eth_getFilterLogs', () => {
  /** Init code emitting 10,001 LOG0s: PUSH2 10001, then LOG0 and count down until zero. */
  const MANY_LOGS = '0x6127115b60006000a0600190038060035700'

  it('refuses more than 10,000 logs with the service’s -32005 and a range that fits; a log filter that would collect them is dropped', async () => {
    const s = await setup()
    const filter = await s.ok('eth_newFilter', [{ fromBlock: 'earliest' }])
    const nonce = BigInt(await s.ok('eth_getTransactionCount', [account('alice').address, 'pending']))
    await s.ok('eth_sendRawTransaction', [signed1559(s.chain, 'alice', { nonce, data: MANY_LOGS, gasLimit: 8_000_000n })])
    const block = await s.mine()
    const last = `0x${(block.number - 1).toString(16).toUpperCase()}`
    const tooMany = {
      code: -32005,
      message: `query returned more than 10000 results. Try with this block range [0x0, ${last}].`,
      data: { from: '0x0', limit: 10000, to: last },
    }
    expect((await s.rpc('eth_getLogs', [{ fromBlock: 'earliest' }])).error).toEqual(tooMany)
    const after = await s.ok('eth_newFilter', [{ fromBlock: 'earliest' }])
    expect((await s.rpc('eth_getFilterLogs', [after])).error).toEqual(tooMany)
    const one = `0x${block.number.toString(16).toUpperCase()}`
    expect((await s.rpc('eth_getLogs', [{ blockHash: block.hash }])).error).toEqual({
      ...tooMany,
      message: `query returned more than 10000 results. Try with this block range [${one}, ${one}].`,
      data: { from: one, limit: 10000, to: one },
    })
    expect(await s.ok('eth_getLogs', [{ fromBlock: 'earliest', toBlock: `0x${(block.number - 1).toString(16)}` }])).toEqual(expect.any(Array))
    expect((await s.rpc('eth_getFilterChanges', [filter])).error).toEqual({ code: -32000, message: 'filter not found' })
  })
})
