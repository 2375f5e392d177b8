/**
 * Credits through HTTP: prices, spending to the last credit, the 00:00 UTC reset with an
 * injected clock, concurrency, batches, and what is not charged.
 */
import { createServer } from 'node:http'
import type { Server } from 'node:http'
import request from 'supertest'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp } from '../../src/http/app.ts'
import type { GatewayApp } from '../../src/http/app.ts'
import { DEV_KEY, call, fakeRpc, gatewayOptions, keys, manualClock } from '../gateway/helpers.ts'

const ETH = 'ethereum-mainnet.localhost'

function post(app: GatewayApp | Server, body: unknown, key = DEV_KEY) {
  return request(app)
    .post(`/v3/${key}`)
    .set('Host', ETH)
    .set('Content-Type', 'application/json')
    .send(typeof body === 'string' ? body : JSON.stringify(body))
}

let server: Server | undefined
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()))
  server = undefined
})

describe('prices', () => {
  it('charges each method its price from the table', async () => {
    const app = createApp(gatewayOptions())
    const prices: [string, number][] = [
      ['eth_blockNumber', 80],
      ['eth_chainId', 5],
      ['net_version', 5],
      ['eth_getStorageAt', 80],
      ['eth_getTransactionByBlockNumberAndIndex', 150],
      ['eth_getBlockReceipts', 1000],
      ['eth_estimateGas', 300],
      ['eth_call', 80],
      ['no_suchMethod', 160],
    ]
    for (const [method, price] of prices) {
      const before = app.gateway.balance(DEV_KEY)!
      await post(app, call(method))
      expect(before - app.gateway.balance(DEV_KEY)!, method).toBe(price)
    }
  })

  it('request errors cost 5; gateway refusals cost nothing', async () => {
    const app = createApp(gatewayOptions({ keys: keys({ creditsPerSecond: 1000 }) }))
    await post(app, '{oops')
    await post(app, { jsonrpc: '2.0', id: 1 })
    await post(app, [])
    expect(app.gateway.balance(DEV_KEY)).toBe(3_000_000 - 15)

    await request(app).post('/v3/unknown').set('Host', ETH).send(call('eth_blockNumber')) // 401
    await request(app).post(`/v3/${DEV_KEY}`).set('Host', 'nope-mainnet.localhost').send(call('eth_blockNumber')) // 404
    await request(app).get(`/v3/${DEV_KEY}`).set('Host', ETH) // 405
    expect((await post(app, call('eth_getBlockReceipts'))).status).toBe(429) // 15 + 1000 > 1000 this second
    expect(app.gateway.balance(DEV_KEY)).toBe(3_000_000 - 15)
  })
})

describe('daily balance', () => {
  it('spends to the last credit, then 402 charging and executing nothing', async () => {
    const rpc = fakeRpc()
    const app = createApp(gatewayOptions({ rpc, keys: keys({ dailyCredits: 3 * 80 + 5 }) }))
    for (let i = 0; i < 3; i++) expect((await post(app, call('eth_blockNumber'))).status).toBe(200)
    expect((await post(app, call('eth_chainId'))).status).toBe(200)
    expect(app.gateway.balance(DEV_KEY)).toBe(0)
    expect(rpc.executed).toHaveLength(4)

    const refused = await post(app, call('eth_chainId', [], 42))
    expect(refused.status).toBe(402)
    expect(refused.body.id).toBe(42)
    expect(app.gateway.balance(DEV_KEY)).toBe(0)
    expect(rpc.executed).toHaveLength(4)
  })

  it('never overdraws: a call costing more than the balance is refused whole', async () => {
    const app = createApp(gatewayOptions({ keys: keys({ dailyCredits: 75 }) }))
    expect((await post(app, call('eth_blockNumber'))).status).toBe(402)
    expect((await post(app, call('eth_chainId'))).status).toBe(200)
    expect(app.gateway.balance(DEV_KEY)).toBe(70)
  })

  it('is restored at 00:00 UTC, not before', async () => {
    const clock = manualClock('2025-03-01T23:59:59.000Z')
    const app = createApp(gatewayOptions({ clock, keys: keys({ dailyCredits: 80 }) }))
    expect((await post(app, call('eth_blockNumber'))).status).toBe(200)
    expect((await post(app, call('eth_blockNumber'))).status).toBe(402)

    clock.set('2025-03-01T23:59:59.999Z')
    expect((await post(app, call('eth_blockNumber'))).status).toBe(402)
    expect(app.gateway.balance(DEV_KEY)).toBe(0)

    clock.set('2025-03-02T00:00:00.000Z')
    expect(app.gateway.balance(DEV_KEY)).toBe(80)
    expect((await post(app, call('eth_blockNumber'))).status).toBe(200)
    expect(app.gateway.balance(DEV_KEY)).toBe(0)
  })

  it('keys have separate balances', async () => {
    const other = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'
    const app = createApp(gatewayOptions({ keys: keys({}, [{ key: other, networks: ['ethereum'] }]) }))
    await post(app, call('eth_getBlockReceipts'))
    expect(app.gateway.balance(DEV_KEY)).toBe(3_000_000 - 1000)
    expect(app.gateway.balance(other)).toBe(3_000_000)
  })
})

describe('concurrency', () => {
  const methods: [string, number][] = [
    ['eth_blockNumber', 80],
    ['eth_chainId', 5],
    ['eth_getBlockReceipts', 1000],
    ['eth_estimateGas', 300],
    ['eth_getTransactionByBlockNumberAndIndex', 150],
  ]

  function listen(app: GatewayApp): Server {
    server = createServer(app).listen(0, '127.0.0.1')
    return server
  }

  it('1,000 concurrent requests on one key are charged exactly', async () => {
    const app = createApp(gatewayOptions())
    const s = listen(app)
    const responses = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => post(s, call(methods[i % methods.length]![0], [], i))),
    )
    expect(responses.every((r) => r.status === 200)).toBe(true)
    const expected = Array.from({ length: 1000 }, (_, i) => methods[i % methods.length]![1]).reduce((a, b) => a + b)
    expect(expected).toBe(200 * (80 + 5 + 1000 + 300 + 150))
    expect(app.gateway.balance(DEV_KEY)).toBe(3_000_000 - expected)
  })

  it('1,000 concurrent requests against a balance for 600 of them: exactly 600 pass, none overdraws', async () => {
    const rpc = fakeRpc()
    const app = createApp(gatewayOptions({ rpc, keys: keys({ dailyCredits: 600 * 80 }) }))
    const s = listen(app)
    const responses = await Promise.all(Array.from({ length: 1000 }, (_, i) => post(s, call('eth_blockNumber', [], i))))
    expect(responses.filter((r) => r.status === 200)).toHaveLength(600)
    expect(responses.filter((r) => r.status === 402)).toHaveLength(400)
    expect(rpc.executed).toHaveLength(600)
    expect(app.gateway.balance(DEV_KEY)).toBe(0)
  })
})

describe('batches', () => {
  it('charge every call plus 80 for the envelope; notifications are charged but not answered', async () => {
    const rpc = fakeRpc()
    const app = createApp(gatewayOptions({ rpc }))
    const res = await post(app, [
      call('eth_getBlockReceipts', ['latest'], 1),
      call('eth_estimateGas', [{}], 2),
      call('no_suchMethod', [], 3),
      { jsonrpc: '2.0', id: 4 },
      { jsonrpc: '2.0', method: 'eth_chainId', params: [] },
    ])
    expect(res.status).toBe(200)
    expect(res.body.map((r: { id: number }) => r.id)).toEqual([1, 2, 3, 4])
    expect(res.body[2].error.code).toBe(-32601)
    expect(res.body[3].error.code).toBe(-32600)
    expect(app.gateway.balance(DEV_KEY)).toBe(3_000_000 - (80 + 1000 + 300 + 160 + 5 + 5))
    expect(rpc.executed.sort()).toEqual(['eth_chainId', 'eth_estimateGas', 'eth_getBlockReceipts', 'no_suchMethod'])
  })

  it('a batch the balance cannot pay in full is refused whole: 402, id null, nothing charged or run', async () => {
    const rpc = fakeRpc()
    const app = createApp(gatewayOptions({ rpc, keys: keys({ dailyCredits: 1000 }) }))
    const res = await post(app, [call('eth_getBlockReceipts', ['latest'], 1), call('eth_chainId', [], 2)])
    expect(res.status).toBe(402)
    expect(res.body.id).toBeNull()
    expect(app.gateway.balance(DEV_KEY)).toBe(1000)
    expect(rpc.executed).toEqual([])
    // Without the envelope's 80 it would have fit; a single call still does.
    expect((await post(app, call('eth_getBlockReceipts', ['latest']))).status).toBe(200)
  })

  it('a batch with one element is answered as an array', async () => {
    const app = createApp(gatewayOptions())
    const res = await post(app, [call('eth_chainId')])
    expect(res.body).toEqual([{ jsonrpc: '2.0', id: 1, result: '0x1' }])
  })

  it('a batch of notifications only: 200, empty body', async () => {
    const app = createApp(gatewayOptions())
    const res = await post(app, [{ jsonrpc: '2.0', method: 'eth_chainId', params: [] }])
    expect(res.status).toBe(200)
    expect(res.text).toBe('')
    expect(app.gateway.balance(DEV_KEY)).toBe(3_000_000 - 85)
  })
})
