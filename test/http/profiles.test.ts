/**
 * Provider profiles through the wire: one chain served as the gateway and as Alchemy, QuickNode,
 * dRPC's free tier, Ankr and a public endpoint at once, each on its own port. Each profile's
 * refusals (status and exact body), prices in its unit and limits; real clients' own handling
 * against them: viem's retry on 429, viem's fallback, ponder's getLogsRetryHelper reading each
 * profile's range error, viem's batch size meeting a profile's batch limit.
 */
import { getLogsRetryHelper } from '@ponder/utils'
import { createPublicClient, fallback, http, numberToHex } from 'viem'
import type { Hex, RpcError } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import type { Chain } from '../../src/chain/chain.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer, ServedProfile } from '../../src/http/server.ts'
import { DEV_KEY, call } from '../gateway/helpers.ts'

const FIXTURE = new URL('../../fixtures/ethereum', import.meta.url).pathname
let t = Date.parse('2026-03-02T12:00:00Z')
const clock = { now: () => t }
let server: RunningServer
let chain: Chain

/** A profile narrowed for a small chain: its range limit (and Alchemy's throughput) made small, its wording kept. */
const narrow = (measure: 'blocks' | 'distance', maxBlockRange = 5) => ({ maxBlockRange, measure })

beforeAll(async () => {
  chain = await loadFixture(FIXTURE, { name: 'ethereum', miningMode: 'manual' })
  server = await startServer({
    chains: { ethereum: chain },
    keys: [{ key: DEV_KEY, networks: ['ethereum'] }],
    port: 0,
    clock,
    control: true,
    profiles: [
      { profile: { extends: 'alchemy', throughput: { perSecond: 10, windowSeconds: 10, per: 'account' } } },
      { profile: { extends: 'quicknode', getLogs: { ...narrow('distance'), methods: ['eth_getLogs', 'eth_newFilter'] } } },
      { profile: { extends: 'drpc-free', getLogs: narrow('distance') } },
      { profile: 'ankr' },
      { profile: { extends: 'public', getLogs: narrow('distance') } },
    ],
  })
  while (chain.head.number < 24n) await server.control.mine('ethereum')
})

afterAll(async () => {
  await server?.close()
})

const profile = (name: string): ServedProfile => server.profiles[name]!

async function post(url: string, body: unknown): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() }
}

/** Units the profile's ledger charged for `body`. */
async function charged(p: { gateway: ServedProfile['gateway'] }, url: string, body: unknown, key = DEV_KEY): Promise<number> {
  const before = p.gateway.balance(key)!
  await post(url, body)
  return before - p.gateway.balance(key)!
}

describe('several profiles at once, one chain', () => {
  it('serves each profile on its own port in its URL shape', () => {
    expect(Object.keys(server.profiles)).toEqual(['alchemy', 'quicknode', 'drpc-free', 'ankr', 'public'])
    expect(profile('alchemy').url).toBe(`${profile('alchemy').origin}/v2/${DEV_KEY}`)
    expect(profile('quicknode').url).toBe(`${profile('quicknode').origin}/${DEV_KEY}/`)
    expect(profile('drpc-free').url).toBe(`${profile('drpc-free').origin}/ethereum/${DEV_KEY}`)
    expect(profile('ankr').wsUrl).toBe(`${profile('ankr').origin.replace('http:', 'ws:')}/ethereum/ws/${DEV_KEY}`)
    expect(profile('public').url).toBe(`${profile('public').origin}/`)
    expect(profile('alchemy').unit).toBe('compute units')
  })

  it('meters the same calls in each profile unit', async () => {
    const bodies = [call('eth_blockNumber'), call('eth_chainId'), call('eth_call', [{ to: '0x0000000000000000000000000000000000000001', data: '0x' }, 'latest'])]
    const gateway = { gateway: server.gateway }
    const prices = async (p: { gateway: ServedProfile['gateway'] }, url: string, key = DEV_KEY) => {
      const out: number[] = []
      for (const body of bodies) out.push(await charged(p, url, body, key))
      t += 10_000
      return out
    }
    expect(await prices(gateway, server.url!)).toEqual([80, 5, 80])
    expect(await prices(profile('alchemy'), profile('alchemy').url!)).toEqual([10, 0, 26])
    expect(await prices(profile('quicknode'), profile('quicknode').url!)).toEqual([20, 20, 20])
    expect(await prices(profile('ankr'), profile('ankr').url!)).toEqual([200, 200, 200])
    expect(await prices(profile('public'), profile('public').url!, 'keyless')).toEqual([1, 1, 1])
    // The same block from every port: one chain.
    const heads = await Promise.all([server.url!, profile('alchemy').url!, profile('drpc-free').url!].map(async (url) => (await post(url, call('eth_blockNumber'))).text))
    expect(heads).toEqual(Array(3).fill(`{"jsonrpc":"2.0","id":1,"result":"${numberToHex(chain.head.number)}"}`))
  })

  it("viem's fallback moves from the gateway at its daily limit to Alchemy, which meters the calls in compute units", async () => {
    t += 10_000
    const key = server.gateway.keys.find((k) => k.key === DEV_KEY)!
    server.gateway.ledger.setBalance(key, 0)
    const client = createPublicClient({ transport: fallback([http(server.url, { retryCount: 0 }), http(profile('alchemy').url, { retryCount: 0 })]) })
    const before = profile('alchemy').gateway.balance(DEV_KEY)!
    expect(await client.getBlockNumber()).toBe(chain.head.number)
    expect(before - profile('alchemy').gateway.balance(DEV_KEY)!).toBe(10)
    expect(server.gateway.balance(DEV_KEY)).toBe(0)
    server.gateway.ledger.setBalance(key, 3_000_000)
  })

  it("counts each profile's usage in its unit, on its own port's usage API", async () => {
    t += 60_000
    const totals = async (origin: string) => ((await (await fetch(`${origin}/_double/usage/totals`)).json()) as { credits: number }).credits
    const before = [await totals(server.origin), await totals(profile('alchemy').origin), await totals(profile('quicknode').origin)]
    const eth = call('eth_call', [{ to: '0x0000000000000000000000000000000000000001', data: '0x' }, 'latest'])
    for (const url of [server.url!, profile('alchemy').url!, profile('quicknode').url!]) await post(url, eth)
    const after = [await totals(server.origin), await totals(profile('alchemy').origin), await totals(profile('quicknode').origin)]
    expect(after.map((n, i) => n - before[i]!)).toEqual([80, 26, 20])
  })
})

describe('refusals, in each provider shape', () => {
  it("Alchemy over WebSocket: a batch over 20 gets each call the provider's error", async () => {
    const socket = new WebSocket(profile('alchemy').wsUrl!)
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
    const answer = new Promise<string>((resolve) => socket.once('message', (data) => resolve(String(data))))
    socket.send(JSON.stringify(Array.from({ length: 21 }, (_, i) => call('eth_chainId', [], i))))
    const answers = JSON.parse(await answer) as { id: number; error: unknown }[]
    socket.close()
    expect(answers).toHaveLength(21)
    expect(answers[20]).toEqual({ jsonrpc: '2.0', id: 20, error: { code: -32600, message: 'Batch size is too large. Max batch size is 20.' } })
  })

  it('Alchemy: 401 for an unknown key, 429 past its rolling 10-second bucket, as HTTP bodies', async () => {
    const bad = await post(`${profile('alchemy').origin}/v2/nope`, call('eth_blockNumber'))
    expect(bad).toEqual({ status: 401, type: 'application/json', text: '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Must be authenticated!"}}' })
    t += 10_000
    // 10 CU per second over 10 seconds: ten eth_blockNumber (10 CU) fill the bucket.
    for (let i = 0; i < 10; i++) expect((await post(profile('alchemy').url!, call('eth_blockNumber', [], i))).status).toBe(200)
    const refused = await post(profile('alchemy').url!, call('eth_blockNumber', [], 7))
    expect(refused.status).toBe(429)
    expect(refused.text).toBe(
      '{"jsonrpc":"2.0","id":7,"error":{"code":429,"message":"Your app has exceeded its compute units per second capacity. If you have retries enabled, you can safely ignore this message. If not, check out https://docs.alchemy.com/reference/throughput"}}',
    )
    t += 5_000 // half the bucket later: still full
    expect((await post(profile('alchemy').url!, call('eth_blockNumber'))).status).toBe(429)
    t += 5_000
    expect((await post(profile('alchemy').url!, call('eth_blockNumber'))).status).toBe(200)
  })

  it("viem retries Alchemy's 429 and gets its answer once the bucket has room", async () => {
    t += 10_000
    for (let i = 0; i < 10; i++) await post(profile('alchemy').url!, call('eth_blockNumber'))
    const statuses: number[] = []
    const client = createPublicClient({
      transport: http(profile('alchemy').url, {
        retryDelay: 1,
        onFetchResponse: (response) => {
          statuses.push(response.status)
          if (response.status === 429) t += 10_000
        },
      }),
    })
    expect(await client.getBlockNumber()).toBe(chain.head.number)
    expect(statuses).toEqual([429, 200])
  })

  it("QuickNode: the older 429 body that is not JSON-RPC, and viem's retry on it", async () => {
    t += 1_000
    // 300 credits per second: fifteen calls of 20.
    for (let i = 0; i < 15; i++) expect((await post(profile('quicknode').url!, call('eth_chainId'))).status).toBe(200)
    const refused = await post(profile('quicknode').url!, call('eth_chainId'))
    expect(refused).toEqual({ status: 429, type: 'application/json', text: '{"code":-32007,"message":"15/second request limit reached - reduce calls per second or upgrade your account at quicknode.com"}' })
    const statuses: number[] = []
    const client = createPublicClient({ transport: http(profile('quicknode').url, { retryDelay: 1, onFetchResponse: (r) => void (statuses.push(r.status), r.status === 429 && (t += 1_000)) }) })
    expect(await client.getChainId()).toBe(Number(chain.chainId))
    expect(statuses).toEqual([429, 200])
  })

  it('Ankr: plain-text refusals with a trace id', async () => {
    const bad = await post(`${profile('ankr').origin}/ethereum/nope`, call('eth_blockNumber'))
    expect(bad.status).toBe(401)
    expect(bad.type).toBe('text/plain; charset=utf-8')
    expect(bad.text).toMatch(/^message: API key not found, trace_id: [0-9a-f]{32}$/)
  })


  it("dRPC's free tier: filter methods are not served, batches are of 3 at most", async () => {
    const filter = await post(profile('drpc-free').url!, call('eth_newBlockFilter'))
    expect(filter.status).toBe(400)
    expect(JSON.parse(filter.text).error).toEqual({ code: -32601, message: 'The method eth_newBlockFilter does not exist/is not available' })
    const four = await post(profile('drpc-free').url!, [1, 2, 3, 4].map((id) => call('eth_chainId', [], id)))
    expect(four.text).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch of more than 3 requests are not allowed on free tier"}}')
    const three = await post(profile('drpc-free').url!, [1, 2, 3].map((id) => call('eth_chainId', [], id)))
    expect(JSON.parse(three.text)).toHaveLength(3)
  })

  it("viem's batch size meets dRPC's batch limit: 10 per batch is refused, 3 per batch answers all", async () => {
    t += 60_000
    const addresses = Array.from({ length: 7 }, (_, i) => numberToHex(i + 1, { size: 20 }))
    const balances = (batchSize: number) => {
      const client = createPublicClient({ transport: http(profile('drpc-free').url, { batch: { batchSize }, retryCount: 0 }) })
      return Promise.all(addresses.map((address) => client.getBalance({ address })))
    }
    await expect(balances(10)).rejects.toThrow()
    expect(await balances(3)).toHaveLength(7)
  })
})

describe("eth_getLogs range limits, read by ponder's getLogsRetryHelper", () => {
  type Params = [{ fromBlock: Hex; toBlock: Hex }]
  const rangeOf = (from: number, to: number): Params => [{ fromBlock: numberToHex(from), toBlock: numberToHex(to) }]

  /** The logs of blocks `from` to `to`, through `url`, chunked as the helper says; and the ranges it asked. */
  async function chunked(url: string, from: number, to: number): Promise<{ logs: unknown[]; asked: Params[]; suggested: boolean[] }> {
    const client = createPublicClient({ transport: http(url, { retryCount: 0 }) })
    const asked: Params[] = []
    const suggested: boolean[] = []
    const fetchRange = async (params: Params): Promise<unknown[]> => {
      asked.push(params)
      t += 60_000 // each request in a throughput window of its own
      try {
        return (await client.request({ method: 'eth_getLogs', params })) as unknown[]
      } catch (error) {
        const retry = getLogsRetryHelper({ params, error: error as RpcError })
        if (!retry.shouldRetry) throw error
        suggested.push(retry.isSuggestedRange)
        const parts: unknown[] = []
        for (const range of retry.ranges) parts.push(...(await fetchRange([range])))
        return parts
      }
    }
    return { logs: await fetchRange(rangeOf(from, to)), asked, suggested }
  }

  const all = async () => JSON.parse((await post(server.url!, call('eth_getLogs', rangeOf(0, 24)))).text).result as unknown[]

  it("Alchemy's wording names the range to use; chunked by it, the logs are the unlimited gateway's", async () => {
    t += 60_000
    const refused = await post(profile('alchemy').url!, call('eth_getLogs', rangeOf(3, 24), 4))
    expect(refused.status).toBe(200)
    expect(refused.text).toBe('{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"You can make eth_getLogs requests with up to a 10 block range. Based on your parameters, this block range should work: [0x3, 0xc]"}}')
    t += 60_000
    const { logs, asked, suggested } = await chunked(profile('alchemy').url!, 0, 24)
    expect(suggested).toEqual([true])
    expect(asked.slice(1)).toEqual([rangeOf(0, 9), rangeOf(10, 19), rangeOf(20, 24)])
    expect(logs).toEqual(await all())
  })

  it("QuickNode's 413 names its limit; the helper chunks by it", async () => {
    const refused = await post(profile('quicknode').url!, call('eth_getLogs', rangeOf(0, 24), 2))
    expect(refused).toEqual({ status: 413, type: 'application/json', text: '{"jsonrpc":"2.0","id":2,"error":{"code":-32614,"message":"eth_getLogs is limited to a 5 range"}}' })
    expect((await post(profile('quicknode').url!, call('eth_newFilter', rangeOf(0, 24)))).status).toBe(413)
    const { logs, asked, suggested } = await chunked(profile('quicknode').url!, 0, 24)
    expect(suggested).toEqual([true])
    expect(asked[1]).toEqual(rangeOf(0, 5))
    expect(logs).toEqual(await all())
  })

  it("the public endpoint's wording (publicnode's) names its limit; dRPC's is recognised and halved until it fits", async () => {
    const pub = await chunked(profile('public').url!, 0, 24)
    expect(pub.suggested).toEqual([true])
    expect(pub.asked[1]).toEqual(rangeOf(0, 5))
    expect(pub.logs).toEqual(await all())
    const drpc = await chunked(profile('drpc-free').url!, 0, 24)
    expect(drpc.suggested.every((s) => s === false)).toBe(true)
    expect(drpc.logs).toEqual(await all())
  })

  it("Ankr's wording is recognised, the helper's range (3,000 blocks) is what the profile allows", async () => {
    const params = rangeOf(0, 3001)
    const refused = await post(profile('ankr').url!, call('eth_getLogs', params, 9))
    expect(refused.text).toBe('{"jsonrpc":"2.0","id":9,"error":{"code":-32600,"message":"block range is too wide"}}')
    const client = createPublicClient({ transport: http(profile('ankr').url, { retryCount: 0 }) })
    const error = await client.request({ method: 'eth_getLogs', params }).catch((e: unknown) => e)
    const retry = getLogsRetryHelper({ params, error: error as RpcError })
    expect(retry.shouldRetry && retry.ranges[0]).toEqual({ fromBlock: '0x0', toBlock: numberToHex(3000) })
    // The first range passes the range rule (the chain's own head check answers it instead).
    const first = await post(profile('ankr').url!, call('eth_getLogs', [retry.shouldRetry && retry.ranges[0]]))
    expect(JSON.parse(first.text).error.message).toBe('block range extends beyond current head block')
  })
})
