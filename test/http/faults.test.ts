/**
 * Scripted faults through HTTP (supertest against a fresh app with `control: true`): each kind
 * as the real service answers it, what they charge (nothing, but latency), what the request log
 * records, how often they fire (times, seeded probability), matching (network, key, method,
 * batches), and the control routes that add, list and clear them.
 */
import { request as httpRequest } from 'node:http'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { createPrng } from '../../src/gateway/faults.ts'
import { createApp } from '../../src/http/app.ts'
import type { GatewayApp } from '../../src/http/app.ts'
import { startServer } from '../../src/http/server.ts'
import { CHAINS, DEV_KEY, call, fakeRpc, gatewayOptions, keys, postRpc } from '../gateway/helpers.ts'

const ETH = 'ethereum-mainnet.localhost'
const OTHER_KEY = 'feedfacefeedfacefeedfacefeedface'

function faultApp(overrides: Parameters<typeof gatewayOptions>[0] = {}) {
  const options = gatewayOptions({ keys: keys({}, [{ key: OTHER_KEY, networks: ['ethereum'] }]), ...overrides })
  return { app: createApp({ ...options, control: true }), rpc: options.rpc }
}

// Calls go through the dev key to the ethereum host unless told otherwise.
const rpc = postRpc

async function addFault(app: GatewayApp, fault: unknown) {
  const res = await request(app).post('/_double/faults').send(fault as object)
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body as { id: string }
}

/** Waits (a few ms at a time, at most ~50 ms) until the log has `n` entries. */
async function logLength(app: GatewayApp, n: number): Promise<void> {
  for (let i = 0; i < 25 && app.gateway.control.requestLog().length < n; i++) await new Promise((r) => setTimeout(r, 2))
  expect(app.gateway.control.requestLog()).toHaveLength(n)
}

const ELB = (title: string) => `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n</body>\r\n</html>\r\n`

describe('kinds', () => {
  it('rateLimit: the real 429, nothing charged or executed, logged', async () => {
    const { app, rpc: backend } = faultApp()
    await addFault(app, { kind: 'rateLimit', times: 1 })
    const res = await rpc(app, call('eth_blockNumber', [], 7))
    expect(res.status).toBe(429)
    expect(res.headers['content-type']).toBe('application/json')
    expect(res.headers['retry-after']).toBeUndefined()
    expect(res.text).toBe(
      '{"jsonrpc":"2.0","id":7,"error":{"code":429,"event":-33200,"message":"Too Many Requests","details":"You have surpassed your allowed throughput limit. Reduce the amount of requests per second or upgrade for more capacity."}}',
    )
    expect(app.gateway.balance(DEV_KEY)).toBe(3_000_000)
    expect(backend.executed).toEqual([])
    expect(app.gateway.control.requestLog()[0]).toMatchObject({ status: 429, fault: 'rateLimit', credits: 0, calls: [{ method: 'eth_blockNumber', outcome: null }] })
    expect((await rpc(app, call('eth_blockNumber'))).status).toBe(200)
  })

  it('rateLimit with retryAfter sends retry-after', async () => {
    const { app } = faultApp()
    await addFault(app, { kind: 'rateLimit', retryAfter: 2 })
    expect((await rpc(app, call('eth_blockNumber'))).headers['retry-after']).toBe('2')
  })

  it('dailyLimit: the real 402', async () => {
    const { app } = faultApp()
    await addFault(app, { kind: 'dailyLimit' })
    const res = await rpc(app, call('eth_chainId', [], 'a'))
    expect(res.status).toBe(402)
    expect(res.text).toBe(
      '{"jsonrpc":"2.0","id":"a","error":{"code":402,"event":-33000,"message":"Payment Required","details":"You have reached your daily credit limit. To continue making requests, upgrade your plan or purchase additional credits"}}',
    )
    expect(app.gateway.balance(DEV_KEY)).toBe(3_000_000)
  })

  it('serverError: 500 from the service, 502/503/504 from the load balancer', async () => {
    const { app } = faultApp()
    await addFault(app, { kind: 'serverError', status: 500, times: 1 })
    const s500 = await rpc(app, call('eth_blockNumber', [], 3))
    expect(s500.status).toBe(500)
    expect(s500.headers['content-type']).toBe('application/json')
    expect(s500.text).toBe('{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"internal error"}}')

    const titles = { 502: '502 Bad Gateway', 503: '503 Service Temporarily Unavailable', 504: '504 Gateway Time-out' }
    for (const [status, title] of Object.entries(titles)) {
      await addFault(app, { kind: 'serverError', status: Number(status), times: 1 })
      const res = await rpc(app, call('eth_blockNumber'))
      expect(res.status).toBe(Number(status))
      expect(res.headers['content-type']).toBe('text/html')
      expect(res.headers.server).toBe('awselb/2.0')
      expect(res.text).toBe(ELB(title))
    }
    await addFault(app, { kind: 'serverError', times: 1 })
    expect((await rpc(app, call('eth_blockNumber'))).status).toBe(503)
    expect(app.gateway.balance(DEV_KEY)).toBe(3_000_000)
  })

  it('latency: the real answer, later (ordering, not wall time), charged as usual', async () => {
    const { app } = faultApp()
    await addFault(app, { kind: 'latency', ms: 40, method: 'eth_blockNumber' })
    const order: string[] = []
    const slow = rpc(app, call('eth_blockNumber')).then((r) => (order.push('slow'), r))
    await new Promise((r) => setTimeout(r, 5))
    const fast = rpc(app, call('eth_chainId')).then((r) => (order.push('fast'), r))
    const [s] = await Promise.all([slow, fast])
    expect(order).toEqual(['fast', 'slow'])
    expect(s.body.result).toBe('0x15')
    expect(app.gateway.balance(DEV_KEY)).toBe(3_000_000 - 80 - 5)
    expect(app.gateway.control.requestLog().map((e) => [e.calls[0]!.method, e.fault, e.status, e.credits])).toEqual([
      ['eth_chainId', null, 200, 5],
      ['eth_blockNumber', 'latency', 200, 80],
    ])
  })

  it('drop: the connection is destroyed with no response', async () => {
    const { app, rpc: backend } = faultApp()
    await addFault(app, { kind: 'drop', times: 1 })
    await expect(rpc(app, call('eth_blockNumber'))).rejects.toMatchObject({ code: 'ECONNRESET', message: 'socket hang up' })
    expect(backend.executed).toEqual([])
    expect(app.gateway.balance(DEV_KEY)).toBe(3_000_000)
    await logLength(app, 1)
    expect(app.gateway.control.requestLog()[0]).toMatchObject({ status: null, fault: 'drop', credits: 0 })
    expect((await rpc(app, call('eth_blockNumber'))).status).toBe(200)
  })

  it('timeout: no answer until the client gives up; logged when it does', async () => {
    const { app, rpc: backend } = faultApp()
    await addFault(app, { kind: 'timeout', times: 1 })
    await expect(rpc(app, call('eth_blockNumber')).timeout(30)).rejects.toMatchObject({ timeout: 30 })
    await logLength(app, 1)
    expect(app.gateway.control.requestLog()[0]).toMatchObject({ status: null, fault: 'timeout', credits: 0 })
    expect(backend.executed).toEqual([])
  })

  it('timeout with ms: the load balancer answers 504 after ms', async () => {
    const { app } = faultApp()
    await addFault(app, { kind: 'timeout', ms: 20 })
    const res = await rpc(app, call('eth_blockNumber'))
    expect(res.status).toBe(504)
    expect(res.text).toBe(ELB('504 Gateway Time-out'))
    expect(app.gateway.control.requestLog()[0]).toMatchObject({ status: 504, fault: 'timeout', credits: 0 })
  })

  it('a held request never outlives the server: close() releases it as a dropped connection', async () => {
    const server = await startServer({ port: 0, chains: CHAINS, keys: keys(), rpc: fakeRpc(), control: true })
    server.control.addFault({ kind: 'timeout' })
    const outcome = new Promise<string>((resolve) => {
      const req = httpRequest(`${server.origin}/v3/${DEV_KEY}`, { method: 'POST', headers: { host: ETH } }, () => resolve('answered'))
      req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message))
      req.end(JSON.stringify(call('eth_blockNumber')))
    })
    for (let i = 0; i < 25 && server.control.faults()[0]!.fired === 0; i++) await new Promise((r) => setTimeout(r, 2))
    expect(server.control.faults()[0]!.fired).toBe(1)
    await server.close()
    expect(await outcome).toBe('ECONNRESET')
  })

  it('a client that goes away releases its held request at once: logged with no status, the server still serves', async () => {
    const server = await startServer({ port: 0, chains: CHAINS, keys: keys(), rpc: fakeRpc(), control: true })
    const post = () =>
      httpRequest(`${server.origin}/v3/${DEV_KEY}`, { method: 'POST', headers: { host: ETH } })
    try {
      server.control.addFault({ kind: 'timeout', times: 1 })
      const held = post()
      held.on('error', () => {})
      held.end(JSON.stringify(call('eth_blockNumber')))
      // A fault with `times: 1` leaves the list when it fires.
      for (let i = 0; i < 25 && server.control.faults().length > 0; i++) await new Promise((r) => setTimeout(r, 2))
      expect(server.control.faults()).toEqual([])
      expect(server.control.requestLog()).toEqual([])
      held.destroy()
      for (let i = 0; i < 25 && server.control.requestLog().length === 0; i++) await new Promise((r) => setTimeout(r, 2))
      expect(server.control.requestLog()).toMatchObject([{ fault: 'timeout', status: null, credits: 0 }])
      const status = await new Promise<number | undefined>((resolve) => {
        const next = post()
        next.on('response', (res) => { res.resume(); resolve(res.statusCode) })
        next.on('error', () => resolve(undefined))
        next.end(JSON.stringify(call('eth_blockNumber')))
      })
      expect(status).toBe(200)
    } finally {
      await server.close()
    }
  })

  it('without a transport, gateway.close() releases held requests', async () => {
    const { app } = faultApp()
    app.gateway.control.addFault({ kind: 'timeout' })
    const pending = app.gateway.handle({ method: 'POST', host: ETH, path: `/v3/${DEV_KEY}`, headers: {}, body: JSON.stringify(call('eth_blockNumber')) })
    await new Promise((r) => setImmediate(r))
    app.gateway.close()
    expect(await pending).toMatchObject({ destroy: true })
  })
})

describe('how often', () => {
  it('times: the next N matching requests, then the fault is gone', async () => {
    const { app } = faultApp()
    await addFault(app, { kind: 'rateLimit', times: 2 })
    expect((await request(app).get('/_double/faults')).body.faults[0]).toMatchObject({ remaining: 2, fired: 0 })
    expect((await rpc(app, call('eth_blockNumber'))).status).toBe(429)
    expect((await request(app).get('/_double/faults')).body.faults[0]).toMatchObject({ remaining: 1, fired: 1 })
    expect((await rpc(app, call('eth_blockNumber'))).status).toBe(429)
    expect((await request(app).get('/_double/faults')).body.faults).toEqual([])
    expect((await rpc(app, call('eth_blockNumber'))).status).toBe(200)
  })

  it('probability: a share drawn from a seeded PRNG, the same every run', async () => {
    const pattern = async (seed: number) => {
      const { app } = faultApp()
      await addFault(app, { kind: 'serverError', probability: 0.3, seed })
      const statuses: number[] = []
      for (let i = 0; i < 20; i++) statuses.push((await rpc(app, call('eth_chainId'))).status)
      return statuses
    }
    const draw = createPrng(42)
    const expected = Array.from({ length: 20 }, () => (draw() < 0.3 ? 503 : 200))
    expect(await pattern(42)).toEqual(expected)
    expect(expected).toContain(503)
    expect(expected).toContain(200)
    expect(await pattern(42)).toEqual(expected)
    expect(await pattern(7)).not.toEqual(expected)
  })

  it('probability and times together: a share, until N have fired', async () => {
    const { app } = faultApp()
    await addFault(app, { kind: 'rateLimit', probability: 1, times: 1 })
    expect((await rpc(app, call('eth_chainId'))).status).toBe(429)
    expect((await rpc(app, call('eth_chainId'))).status).toBe(200)
  })
})

describe('matching', () => {
  it('by network, key and method; the first matching fault applies', async () => {
    const { app } = faultApp()
    await addFault(app, { kind: 'dailyLimit', network: 'polygon' })
    await addFault(app, { kind: 'rateLimit', key: OTHER_KEY })
    await addFault(app, { kind: 'serverError', status: 502, method: ['eth_call', 'eth_estimateGas'] })
    await addFault(app, { kind: 'serverError', status: 500, method: 'eth_call' })
    expect((await rpc(app, call('eth_chainId'), { host: 'polygon-mainnet.localhost' })).status).toBe(402)
    expect((await rpc(app, call('eth_chainId'), { key: OTHER_KEY })).status).toBe(429)
    expect((await rpc(app, call('eth_call'))).status).toBe(502)
    expect((await rpc(app, call('eth_estimateGas'))).status).toBe(502)
    expect((await rpc(app, call('eth_chainId'))).status).toBe(200)
  })

  it('a batch matches when any of its calls matches; the limit bodies then have id null', async () => {
    const { app } = faultApp()
    await addFault(app, { kind: 'rateLimit', method: 'eth_call' })
    expect((await rpc(app, [call('eth_chainId', [], 1), call('eth_blockNumber', [], 2)])).status).toBe(200)
    const res = await rpc(app, [call('eth_chainId', [], 1), call('eth_call', [], 2)])
    expect(res.status).toBe(429)
    expect(res.body.id).toBeNull()
    expect(app.gateway.control.requestLog()[1]).toMatchObject({ batch: true, fault: 'rateLimit', calls: [{ method: 'eth_chainId' }, { method: 'eth_call' }] })
  })

  it('gateway refusals come first: a request the gateway refuses is not faulted', async () => {
    const { app } = faultApp()
    await addFault(app, { kind: 'drop' })
    expect((await rpc(app, call('eth_chainId'), { key: 'unknown' })).status).toBe(401)
    expect((await request(app).get('/_double/faults')).body.faults[0].fired).toBe(0)
  })
})

describe('control routes', () => {
  it('add, list, remove one, clear all', async () => {
    const { app } = faultApp()
    const a = await addFault(app, { kind: 'latency', ms: 5, network: 'ethereum', key: DEV_KEY, method: 'eth_call' })
    expect(a).toEqual({ id: '1', kind: 'latency', network: 'ethereum', key: DEV_KEY, methods: ['eth_call'], remaining: null, probability: null, seed: null, status: null, ms: 5, retryAfter: null, transport: null, code: null, reason: null, fired: 0 })
    await addFault(app, { kind: 'drop', probability: 0.5 })
    expect((await request(app).get('/_double/faults')).body.faults.map((f: { id: string; seed: number | null }) => [f.id, f.seed])).toEqual([['1', null], ['2', 1]])
    expect((await request(app).delete('/_double/faults/1')).status).toBe(204)
    expect((await request(app).delete('/_double/faults/1')).status).toBe(404)
    expect((await request(app).delete('/_double/faults')).status).toBe(204)
    expect((await request(app).get('/_double/faults')).body.faults).toEqual([])
  })

  it('refuses a bad fault, naming the field', async () => {
    const { app } = faultApp()
    const cases: [unknown, number, string][] = [
      [{ kind: 'meteor' }, 400, 'kind: must be one of rateLimit, dailyLimit, serverError, latency, timeout, drop, close, stall, got "meteor"'],
      [{ kind: 'latency' }, 400, 'ms: a latency fault needs ms (the delay)'],
      [{ kind: 'serverError', status: 501 }, 400, 'status: must be one of 500, 502, 503, 504, got 501'],
      [{ kind: 'drop', status: 500 }, 400, 'status: applies to serverError faults only, not drop'],
      [{ kind: 'drop', times: 0 }, 400, 'times: must be an integer of at least 1, got 0'],
      [{ kind: 'drop', probability: 2 }, 400, 'probability: must be a number from 0 to 1, got 2'],
      [{ kind: 'drop', seed: 3 }, 400, 'seed: only applies with probability'],
      [{ kind: 'drop', method: [] }, 400, 'method: must be a method name or a non-empty list of them, got []'],
      [{ kind: 'drop', nework: 'ethereum' }, 400, 'nework: unknown field (allowed: kind, network, key, method, transport, times, probability, seed, status, ms, retryAfter, code, reason)'],
      [{ kind: 'drop', network: 'optimism' }, 404, 'unknown network "optimism"'],
      [{ kind: 'drop', key: 'nope' }, 404, 'unknown key "nope"'],
    ]
    for (const [fault, status, message] of cases) {
      const res = await request(app).post('/_double/faults').send(fault as object)
      expect([res.status, res.body], JSON.stringify(fault)).toEqual([status, { error: { message } }])
    }
  })
})
