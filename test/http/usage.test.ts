/**
 * Usage counted as it happens, against what the request log and the ledger say: a mixed workload
 * from real clients (viem over HTTP, batches and bad bodies by fetch, a `ws` WebSocket with a
 * newHeads subscription, refusals: an unknown key, a key's throughput, an empty balance; scripted
 * faults) must come to the same requests, failures and credits, to the credit. Then the report's
 * windows and filters over HTTP, measureCredits, and the counters' bounds.
 */
import { createPublicClient, http } from 'viem'
import { mainnet } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RequestLogEntry } from '../../src/gateway/requestLog.ts'
import { UsageCounters } from '../../src/gateway/usage/counters.ts'
import { localhostFetch } from '../../src/http/client.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { measureCredits } from '../../src/gateway/usage/budget.ts'
import { openSocket, until } from '../support/socket.ts'

let server: RunningServer
let dev: string
const THROTTLED = 'throttled-key'
const BROKE = 'broke-key'

beforeAll(async () => {
  // A base clock that stands still: the gateway's moves only when the test moves it.
  const frozen = Date.parse('2026-05-01T12:00:00.000Z')
  server = await startServer({ port: 0, control: true, clock: { now: () => frozen } })
  dev = server.devKey!
  server.control.addKeys([
    { key: THROTTLED, networks: ['ethereum'], creditsPerSecond: 100 },
    { key: BROKE, networks: ['ethereum'], dailyCredits: 1000 },
  ])
  server.control.setClock({ time: '2026-05-01T12:00:00.000Z' })
})
afterAll(async () => {
  await server.close()
})

const url = (key: string, network = 'ethereum') => `http://${network}-mainnet.localhost:${server.port}/v3/${key}`
const post = (key: string, body: string) => localhostFetch(url(key), { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.text())
const rpc = (method: string, params: unknown[] = [], id = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params })

/** What the log says, counted the way usage counts (../../src/gateway/usage/counters.ts). */
function fromLog(entries: RequestLogEntry[]) {
  const methods: Record<string, number> = {}
  const failuresByStatus: Record<string, number> = {}
  let credits = 0
  let failures = 0
  const count = (method: string, failed: boolean, status: string) => {
    methods[method] = (methods[method] ?? 0) + 1
    if (failed) {
      failures++
      failuresByStatus[status] = (failuresByStatus[status] ?? 0) + 1
    }
  }
  for (const e of entries) {
    credits += e.credits
    const status = e.status === null ? 'dropped' : String(e.status)
    if (e.calls.length === 0) count(e.socket?.stage === 'upgrade' ? '(upgrade)' : '(none)', e.status === null || e.status >= 400, status)
    for (const c of e.calls) count(c.method ?? '(invalid)', c.outcome !== 'ok', status)
    if (e.batch) count('(batch)', e.status !== 200, status)
  }
  return { methods, failuresByStatus, credits, failures }
}

describe('a mixed workload', () => {
  it("usage equals the request log's and the ledger's, to the credit", async () => {
    const client = createPublicClient({ chain: mainnet, transport: http(url(dev), { fetchFn: localhostFetch, retryCount: 0 }) })
    const token = server.control.network('ethereum').contracts.token!
    await client.getBlockNumber({ cacheTime: 0 })
    await client.getChainId()
    await client.call({ to: token as `0x${string}`, data: '0x18160ddd' }) // totalSupply()
    await client.call({ to: token as `0x${string}`, data: '0xdeadbeef' }).catch(() => undefined) // reverts: a failure in a 200
    await post(dev, `[${rpc('eth_blockNumber')},${rpc('eth_chainId', [], 2)},{"nope":1},${rpc('no_such', [], 3)}]`)
    await post(dev, '{oops')
    await post('unknown-key', rpc('eth_chainId')) // 401
    for (let i = 0; i < 3; i++) await post(THROTTLED, rpc('eth_blockNumber')) // 80, then 429, 429
    await post(BROKE, rpc('eth_getBlockReceipts', ['latest'])) // 1,000: all of it
    await post(BROKE, rpc('eth_chainId')) // 402
    server.control.addFault({ kind: 'rateLimit', times: 1 } as never)
    await post(dev, rpc('eth_blockNumber')) // faulted 429
    server.control.addFault({ kind: 'serverError', times: 1 } as never)
    await post(dev, rpc('eth_blockNumber')) // faulted 5xx
    const socket = await openSocket(server.wsUrls.ethereum!)
    await socket.call({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })
    await socket.call({ jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] })
    await server.control.mine('ethereum')
    await server.control.mine('ethereum')
    await until(() => socket.pending.length >= 2, 5000, 'two newHeads')
    await socket.close()
    await until(() => server.control.requestLog().filter((e) => e.socket?.stage === 'event').length === 2)

    const entries = server.control.requestLog()
    const expected = fromLog(entries)
    const usage = server.control.usage({ window: '15m' })
    const topMethods = Object.fromEntries(usage.topMethods.map((m) => [m.method, m.requests]))
    expect(topMethods).toEqual(expected.methods)
    expect(usage.failuresByStatus).toEqual(expected.failuresByStatus)
    expect(usage.totals.failures).toBe(expected.failures)
    expect(usage.totals.credits).toBe(expected.credits)
    expect(server.control.usageTotals().credits).toBe(expected.credits)
    const ledger = server.control.keys().reduce((sum, k) => sum + k.spentToday, 0)
    expect(ledger).toBe(expected.credits)
    expect(usage.quotas.reduce((sum, q) => sum + q.spentToday, 0)).toBe(expected.credits)
    // The workload had each kind of traffic.
    expect(usage.failuresByStatus).toMatchObject({ 401: 1, 402: 1, 429: 3, 400: 1 })
    expect(Object.keys(usage.failuresByStatus).some((s) => s.startsWith('5'))).toBe(true)
    expect(topMethods).toMatchObject({ '(batch)': 1, '(invalid)': 1, '(upgrade)': 1, eth_subscription: 2, eth_subscribe: 1 })
    // A call's logged credits are what it was charged: 0 when refused or faulted (a body without calls, 5 for its parse error, is the entry's).
    for (const e of entries.filter((e) => e.calls.length > 0)) {
      const calls = e.calls.reduce((sum, c) => sum + c.credits, 0)
      expect(calls + (e.batch && e.credits > 0 ? 80 : 0), `entry ${e.seq}`).toBe(e.credits)
    }
    expect(usage.contracts).toEqual([{ key: dev, network: 'ethereum', address: token.toLowerCase(), calls: 2 }])
  })

  it('GET /_double/usage filters by key, network, method and window; bad filters are 400s', async () => {
    const get = async (q: string) => {
      const res = await fetch(`${server.controlUrl}/usage${q}`)
      return { status: res.status, body: (await res.json()) as any }
    }
    const all = (await get('?window=1h')).body
    const byKey = (await get(`?window=1h&key=${THROTTLED}`)).body
    expect(byKey.totals).toMatchObject({ requests: 3, successes: 1, failures: 2, credits: 80 })
    expect(byKey.quotas.map((q: { key: string }) => q.key)).toEqual([THROTTLED])
    expect((await get('?window=1h&method=eth_subscription')).body.totals).toMatchObject({ requests: 2, credits: 100 })
    expect((await get('?window=1h&network=polygon')).body.totals.requests).toBe(0)
    expect(all.series).toHaveLength(60)
    expect(all.series.at(-1).credits).toBe(all.totals.credits)
    for (const window of ['15m', '24h', '7d', '30d', 'today']) expect((await get(`?window=${window}`)).body.totals.credits, window).toBe(all.totals.credits)
    expect((await get('?window=24h')).body.series).toHaveLength(24)
    expect((await get('?window=today')).body.series).toHaveLength(13) // 00:00 to 12:00 UTC
    server.control.setClock({ advanceSeconds: 3600 })
    expect((await get('?window=15m')).body.totals.requests).toBe(0)
    expect((await get('?window=24h')).body.totals.credits).toBe(all.totals.credits)
    expect(await get('?window=2h')).toEqual({ status: 400, body: { error: { message: 'window: must be one of 15m, 1h, 24h, 7d, 30d, today, got "2h"' } } })
    expect((await get('?colour=red')).status).toBe(400)
  })
})

describe('measureCredits', () => {
  it('what a block spends, by method, and per day on the gateway clock', async () => {
    const client = createPublicClient({ chain: mainnet, transport: http(url(dev), { fetchFn: localhostFetch, retryCount: 0 }) })
    const spent = await measureCredits(server, async () => {
      for (let i = 0; i < 15; i++) {
        await client.getBlockNumber({ cacheTime: 0 })
        server.control.setClock({ advanceSeconds: 4 })
      }
    })
    expect(spent).toEqual({ total: 1200, requests: 15, byMethod: { eth_blockNumber: 1200 }, elapsedMs: 60_000, perDay: 1_728_000 })
    expect((await measureCredits(server.gateway, () => client.getChainId(), { key: THROTTLED })).total).toBe(0)
  })
})

describe('the dashboard page and the routes index', () => {
  it('GET /_double/ is the page (its assets relative, a link to the index); /_double redirects to it; /_double/routes lists every control route', async () => {
    const page = await fetch(`${server.controlUrl}/`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    const html = await page.text()
    expect(html).toContain('<a href="routes">control routes</a>')
    expect(html).toContain('<script src="dashboard/uPlot.iife.min.js"></script>')
    const bare = await fetch(server.controlUrl!, { redirect: 'manual' })
    expect([bare.status, bare.headers.get('location')]).toEqual([301, '/_double/'])
    const index = await fetch(`${server.controlUrl}/routes`)
    expect(index.status).toBe(200)
    const { routes } = (await index.json()) as { routes: { method: string; path: string }[] }
    expect(routes).toEqual(
      expect.arrayContaining([
        { method: 'POST', path: '/_double/rpc/:network' },
        { method: 'POST', path: '/_double/snapshots' },
        { method: 'GET', path: '/_double/usage' },
        { method: 'GET', path: '/_double/events' },
        { method: 'GET', path: '/_double/routes' },
        { method: 'GET', path: '/_double/' },
      ]),
    )
    // Each listed GET without a parameter answers (none is a 404).
    for (const r of routes.filter((r) => r.method === 'GET' && !r.path.includes(':') && r.path !== '/_double/events')) {
      expect((await fetch(`${server.controlUrl!.replace(/\/_double$/, '')}${r.path}`)).status, r.path).toBe(200)
    }
  })
})

describe('the counters', () => {
  it('stay bounded whatever clients send: new series past the limit count as (other)', () => {
    const counters = new UsageCounters({ maxSeries: 50, maxCells: 500 })
    const entry = (method: string): RequestLogEntry => ({ seq: 1, time: '', key: 'k', network: 'n', batch: false, calls: [{ method, credits: 80, outcome: 'ok' }], credits: 80, status: 200, fault: null, transport: 'http', socket: null })
    for (let i = 0; i < 10_000; i++) counters.add(entry(`m_${i}`), i * 1000)
    expect(counters.series).toHaveLength(50)
    expect(counters.cellCount).toBeLessThanOrEqual(500)
    const total = [...counters.totals().values()].reduce((sum, c) => sum + c.credits, 0)
    expect(total).toBe(800_000)
  })
})
