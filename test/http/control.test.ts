/**
 * The control endpoint through HTTP (supertest against a fresh app with `control: true`):
 * snapshots of chains, credits, keys and log; the clock across 00:00 UTC; credits; keys and
 * networks at run time; forks; mining; the request log; errors; and the endpoint off by default.
 * Chains are `FakeControllableChain`s (the chain contract); the ledger, keys and log are real.
 */
import { request as httpRequest } from 'node:http'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/http/app.ts'
import type { GatewayApp } from '../../src/http/app.ts'
import { startServer } from '../../src/http/server.ts'
import { controllableChain, controllableRpc } from '../gateway/controllableChain.ts'
import { CHAINS, DEV_KEY, call, fakeRpc, gatewayOptions, keys, manualClock, postRpc } from '../gateway/helpers.ts'

const ETH = 'ethereum-mainnet.localhost'
const OTHER_KEY = 'feedfacefeedfacefeedfacefeedface'

function chains() {
  return {
    ethereum: controllableChain('ethereum', 1n, 21n),
    polygon: controllableChain('polygon', 137n, 7n),
    base: controllableChain('base', 8453n, 3n),
  }
}

function controlApp(overrides: Parameters<typeof gatewayOptions>[0] = {}): GatewayApp {
  return createApp({ ...gatewayOptions({ networks: chains(), rpc: controllableRpc(), ...overrides }), control: true })
}

// Calls go through the dev key to the ethereum host unless told otherwise.
const rpc = postRpc

const ctl = (app: GatewayApp) => ({
  get: (path: string) => request(app).get(`/_double${path}`),
  post: (path: string, body?: unknown) => request(app).post(`/_double${path}`).send(body as object),
  put: (path: string, body?: unknown) => request(app).put(`/_double${path}`).send(body as object),
  del: (path: string) => request(app).delete(`/_double${path}`),
})

async function blockNumber(app: GatewayApp, host = ETH): Promise<string> {
  const res = await rpc(app, call('eth_blockNumber'), { host })
  expect(res.status).toBe(200)
  return res.body.result as string
}

describe('snapshots', () => {
  it('restores chains, credits, keys and the log position; a snapshot can be restored again', async () => {
    const app = controlApp()
    const c = ctl(app)
    await rpc(app, call('eth_blockNumber'))
    const snap = await c.post('/snapshots', {})
    expect(snap.status).toBe(201)
    expect(snap.body).toMatchObject({ id: '1', networks: ['ethereum', 'polygon', 'base'], logPosition: 1, time: '2025-03-01T12:00:00.000Z' })
    const balance = app.gateway.balance(DEV_KEY)

    await rpc(app, call('eth_sendRawTransaction', ['0xaa']))
    await rpc(app, call('eth_sendRawTransaction', ['0xbb']))
    expect(await blockNumber(app)).toBe('0x17')
    await c.post('/keys', { keys: [{ key: OTHER_KEY, networks: ['ethereum'] }] })
    await c.put(`/keys/${DEV_KEY}/credits`, { remaining: 5 })

    const restored = await c.post(`/snapshots/${snap.body.id}/restore`)
    expect(restored.status).toBe(200)
    expect(restored.body.id).toBe('1')
    expect(app.gateway.balance(DEV_KEY)).toBe(balance)
    expect((await c.get(`/keys/${OTHER_KEY}`)).status).toBe(404)
    expect((await c.get('/log')).body.entries.map((e: { seq: number }) => e.seq)).toEqual([1])
    expect(await blockNumber(app)).toBe('0x15')

    await rpc(app, call('eth_sendRawTransaction', ['0xcc']))
    expect((await c.post('/snapshots/1/restore')).status).toBe(200)
    expect(await blockNumber(app)).toBe('0x15')
    expect((await c.get('/snapshots')).body.snapshots).toHaveLength(1)
    expect((await c.del('/snapshots/1')).status).toBe(204)
    expect((await c.post('/snapshots/1/restore')).status).toBe(404)
  })

  it('of chosen networks only; unknown network 404; a chain without snapshots 501', async () => {
    const app = controlApp()
    const c = ctl(app)
    const snap = await c.post('/snapshots', { networks: ['polygon'] })
    expect(snap.body.networks).toEqual(['polygon'])
    await rpc(app, call('eth_sendRawTransaction', ['0xaa']))
    await rpc(app, call('eth_sendRawTransaction', ['0xaa']), { host: 'polygon-mainnet.localhost' })
    await c.post(`/snapshots/${snap.body.id}/restore`)
    expect(await blockNumber(app, 'polygon-mainnet.localhost')).toBe('0x7')
    expect(await blockNumber(app)).toBe('0x16')

    const missing = await c.post('/snapshots', { networks: ['optimism'] })
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ error: { message: 'unknown network "optimism"' } })
    expect((await c.post('/snapshots', { networks: 'polygon' })).body.error.message).toMatch(/^networks: /)

    const plain = createApp({ ...gatewayOptions(), control: true }) // chains without the control contract
    const res = await ctl(plain).post('/snapshots')
    expect(res.status).toBe(501)
    expect(res.body.error.message).toBe('network "ethereum": its chain does not support snapshot (chain.snapshot is missing)')
  })
})

describe('clock', () => {
  it('sets and advances the time; the daily balance comes back at 00:00 UTC', async () => {
    const app = controlApp({ keys: keys({ dailyCredits: 100 }) })
    const c = ctl(app)
    expect((await c.get('/clock')).body).toEqual({ now: '2025-03-01T12:00:00.000Z', ms: Date.parse('2025-03-01T12:00:00Z'), offsetMs: 0 })
    expect((await c.post('/clock', { time: '2025-03-01T23:59:59Z' })).body.now).toBe('2025-03-01T23:59:59.000Z')
    await rpc(app, call('eth_blockNumber'))
    expect((await rpc(app, call('eth_blockNumber'))).status).toBe(402)
    expect((await c.post('/clock', { advanceSeconds: 1 })).body.now).toBe('2025-03-02T00:00:00.000Z')
    expect((await rpc(app, call('eth_blockNumber'))).status).toBe(200)
    expect((await c.get('/log')).body.entries.at(-1).time).toBe('2025-03-02T00:00:00.000Z')

    expect((await c.post('/clock', { time: Date.parse('2030-01-01T00:00:00Z'), advanceSeconds: -60 })).body.now).toBe('2029-12-31T23:59:00.000Z')
    expect((await c.del('/clock')).body).toMatchObject({ now: '2025-03-01T12:00:00.000Z', offsetMs: 0 })
  })

  it('follows the base clock from where it was set', async () => {
    const base = manualClock('2025-03-01T12:00:00Z')
    const app = controlApp({ clock: base })
    await ctl(app).post('/clock', { time: '2026-01-01T00:00:00Z' })
    base.set('2025-03-01T12:00:10Z')
    expect((await ctl(app).get('/clock')).body.now).toBe('2026-01-01T00:00:10.000Z')
  })

  it('refuses a bad time, naming the field', async () => {
    const c = ctl(controlApp())
    expect((await c.post('/clock', { time: 'tomorrow' })).body.error.message).toBe('time: must be an ISO 8601 time or ms since the epoch, got "tomorrow"')
    expect((await c.post('/clock', { advanceSeconds: '1' })).status).toBe(400)
    expect((await c.post('/clock', {})).status).toBe(400)
    expect((await c.post('/clock', { tme: 1 })).body.error.message).toMatch(/^tme: unknown field/)
  })
})

describe('keys', () => {
  it('sets what a key has left today', async () => {
    const app = controlApp()
    const c = ctl(app)
    const res = await c.put(`/keys/${DEV_KEY}/credits`, { remaining: 80 })
    expect(res.body).toEqual({ key: DEV_KEY, networks: ['ethereum', 'polygon', 'base'], dailyCredits: 3_000_000, creditsPerSecond: null, remaining: 80, hasSecret: false, account: null, limits: null, spentToday: 2_999_920, jwt: null })
    expect((await rpc(app, call('eth_blockNumber'))).status).toBe(200)
    expect((await rpc(app, call('eth_chainId', [], 9))).body).toMatchObject({ id: 9, error: { code: 402 } })
    expect((await c.put(`/keys/${DEV_KEY}/credits`, { remaining: -1 })).body.error.message).toBe('remaining: must be an integer of at least 0, got -1')
    expect((await c.put('/keys/nope/credits', { remaining: 1 })).status).toBe(404)
  })

  it('adds keys in the config shape, validated like the config', async () => {
    const app = controlApp()
    const c = ctl(app)
    expect((await rpc(app, call('eth_blockNumber'), { key: OTHER_KEY })).status).toBe(401)
    const added = await c.post('/keys', { keys: [{ key: OTHER_KEY, networks: ['ethereum'], dailyCredits: 1000, secret: 's' }] })
    expect(added.status).toBe(201)
    expect(added.body.keys[0]).toMatchObject({ key: OTHER_KEY, remaining: 1000, hasSecret: true })
    expect((await rpc(app, call('eth_blockNumber'), { key: OTHER_KEY })).status).toBe(403) // its secret is required now
    expect((await c.get('/keys')).body.keys.map((k: { key: string }) => k.key)).toEqual([DEV_KEY, OTHER_KEY])

    const bad = await c.post('/keys', { keys: [{ key: 'k2', networks: ['ethereum'], dailyCredits: -1 }] })
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toBe('keys[0].dailyCredits: must be a positive integer, got -1')
    expect((await c.post('/keys', [{ key: 'k3', networks: ['optimism'] }])).body.error.message).toMatch(/^keys\[0\]\.networks\[0\]: unknown network "optimism"/)
    expect((await c.post('/keys', { keys: [{ key: DEV_KEY, networks: [] }] })).body.error.message).toMatch(/^keys\[0\]\.key: duplicate key/)
  })

  it('enables and disables a network for a key', async () => {
    const app = controlApp({ keys: keys({ networks: ['polygon'] }) })
    const c = ctl(app)
    expect((await rpc(app, call('eth_blockNumber'))).status).toBe(401)
    expect((await c.put(`/keys/${DEV_KEY}/networks/ethereum`)).body.networks).toEqual(['polygon', 'ethereum'])
    expect((await rpc(app, call('eth_blockNumber'))).status).toBe(200)
    expect((await c.del(`/keys/${DEV_KEY}/networks/ethereum`)).body.networks).toEqual(['polygon'])
    expect((await rpc(app, call('eth_blockNumber'))).status).toBe(401)
    expect((await c.put(`/keys/${DEV_KEY}/networks/optimism`)).status).toBe(404)
  })
})

describe('networks', () => {
  it('lists networks with their mining mode', async () => {
    const res = await ctl(controlApp()).get('/networks/base')
    expect(res.body).toEqual({ name: 'base', host: 'base-mainnet.localhost', chainId: 8453, headNumber: 3, miningMode: 'auto', pending: 0, contracts: {}, intervalSeconds: null })
    expect((await ctl(controlApp()).get('/networks')).body.networks).toHaveLength(3)
  })

  it('forks a network into an isolated one, enabled for the keys of the source', async () => {
    const app = controlApp({ keys: keys({}, [{ key: OTHER_KEY, networks: ['polygon'] }]) })
    const c = ctl(app)
    const fork = await c.post('/networks', { name: 'ethereum-w1', from: 'ethereum' })
    expect(fork.status).toBe(201)
    expect(fork.body).toMatchObject({ name: 'ethereum-w1', host: 'ethereum-w1-mainnet.localhost', chainId: 1, headNumber: 21 })
    const W1 = 'ethereum-w1-mainnet.localhost'
    await rpc(app, call('eth_sendRawTransaction', ['0xaa']), { host: W1 })
    expect(await blockNumber(app, W1)).toBe('0x16')
    expect(await blockNumber(app)).toBe('0x15')
    expect((await c.get(`/keys/${DEV_KEY}`)).body.networks).toContain('ethereum-w1')
    expect((await c.get(`/keys/${OTHER_KEY}`)).body.networks).toEqual(['polygon'])

    const only = await c.post('/networks', { name: 'polygon-w2', from: 'polygon', keys: [OTHER_KEY] })
    expect(only.status).toBe(201)
    expect((await rpc(app, call('eth_blockNumber'), { host: 'polygon-w2-mainnet.localhost' })).status).toBe(401)
    expect((await rpc(app, call('eth_blockNumber'), { host: 'polygon-w2-mainnet.localhost', key: OTHER_KEY })).status).toBe(200)

    expect((await c.post('/networks', { name: 'ethereum-w1', from: 'ethereum' })).body.error.message).toBe('name: network "ethereum-w1" exists already')
    expect((await c.post('/networks', { name: 'Bad_Name', from: 'ethereum' })).body.error.message).toMatch(/^name: network names are lowercase/)
    expect((await c.post('/networks', { name: 'x', from: 'nope' })).status).toBe(404)
    expect((await c.post('/networks', { name: 'x', from: 'ethereum', keys: ['nope'] })).status).toBe(404)
  })

  it('mines on demand in manual mode, so several transactions share a block', async () => {
    const app = controlApp()
    const c = ctl(app)
    expect((await c.put('/networks/ethereum/mining', { mode: 'manual' })).body).toMatchObject({ miningMode: 'manual', pending: 0 })
    await rpc(app, call('eth_sendRawTransaction', ['0xaa']))
    await rpc(app, call('eth_sendRawTransaction', ['0xbb']))
    expect(await blockNumber(app)).toBe('0x15')
    expect((await c.get('/networks/ethereum')).body.pending).toBe(2)
    const mined = await c.post('/networks/ethereum/mine')
    expect(mined.status).toBe(200)
    expect(mined.body).toMatchObject({ network: 'ethereum', number: 22, transactions: ['0xaa', '0xbb'] })
    expect(await blockNumber(app)).toBe('0x16')
    expect((await c.put('/networks/ethereum/mining', { mode: 'sometimes' })).body.error.message).toBe('mode: must be "auto" or "manual", got "sometimes"')
    expect((await c.put('/networks/optimism/mining', { mode: 'auto' })).status).toBe(404)
    expect((await c.put('/networks/ethereum/mining', { mode: 'auto' })).body.miningMode).toBe('auto')
  })

  it('a chain without mining answers 501', async () => {
    const c = ctl(createApp({ ...gatewayOptions(), control: true }))
    expect((await c.post('/networks/ethereum/mine')).status).toBe(501)
    expect((await c.post('/networks/ethereum/reorg', { depth: 1 })).status).toBe(501)
    expect((await c.get('/networks/ethereum')).body).toMatchObject({ miningMode: null, pending: null })
  })
})

describe('request log', () => {
  it('records each request: time, key, network, calls, credits, status, outcome', async () => {
    const app = controlApp()
    const c = ctl(app)
    await rpc(app, call('eth_blockNumber'))
    await rpc(app, [call('eth_chainId', [], 1), { jsonrpc: '2.0', id: 2 }, call('web3_sha4', [], 3)])
    await rpc(app, call('eth_blockNumber'), { key: 'nope' })
    await request(app).post(`/v3/${DEV_KEY}`).set('Host', ETH).send('{oops')
    const { entries } = (await c.get('/log')).body
    expect(entries).toEqual([
      { seq: 1, time: '2025-03-01T12:00:00.000Z', key: DEV_KEY, network: 'ethereum', batch: false, calls: [{ method: 'eth_blockNumber', credits: 80, outcome: 'ok' }], credits: 80, status: 200, fault: null, transport: 'http', socket: null },
      {
        seq: 2,
        time: '2025-03-01T12:00:00.000Z',
        key: DEV_KEY,
        network: 'ethereum',
        batch: true,
        calls: [
          { method: 'eth_chainId', credits: 5, outcome: 'ok' },
          { method: null, credits: 5, outcome: -32600 },
          { method: 'web3_sha4', credits: 160, outcome: -32601 },
        ],
        credits: 80 + 5 + 5 + 160,
        status: 200,
        fault: null,
        transport: 'http',
        socket: null,
      },
      { seq: 3, time: '2025-03-01T12:00:00.000Z', key: 'nope', network: 'ethereum', batch: false, calls: [], credits: 0, status: 401, fault: null, transport: 'http', socket: null },
      { seq: 4, time: '2025-03-01T12:00:00.000Z', key: DEV_KEY, network: 'ethereum', batch: false, calls: [], credits: 5, status: 400, fault: null, transport: 'http', socket: null },
    ])
    expect((await c.get('/log?since=3')).body.entries.map((e: { seq: number }) => e.seq)).toEqual([4])
    expect((await c.get('/log?since=x')).status).toBe(400)
    expect((await c.del('/log')).status).toBe(204)
    expect((await c.get('/log')).body.entries).toEqual([])
    await rpc(app, call('eth_blockNumber'))
    expect((await c.get('/log')).body.entries[0].seq).toBe(5)
  })

  it('records a refusal by the ledger with its calls unexecuted', async () => {
    const app = controlApp({ keys: keys({ dailyCredits: 50 }) })
    await rpc(app, call('eth_blockNumber'))
    expect(app.gateway.control.requestLog()).toMatchObject([{ status: 402, credits: 0, calls: [{ method: 'eth_blockNumber', credits: 0, outcome: null }] }])
  })
})

describe('the endpoint', () => {
  it('answers unknown control routes and bad JSON as JSON errors', async () => {
    const app = controlApp()
    const res = await request(app).get('/_double/nothing')
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ error: { message: 'no control route GET /_double/nothing' } })
    const bad = await request(app).post('/_double/faults').set('Content-Type', 'application/json').send('{oops')
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toMatch(/^body: not valid JSON/)
  })

  it('is off unless enabled: /_double/* answers like any unknown path', async () => {
    const app = createApp(gatewayOptions())
    for (const path of ['/_double/clock', '/_double/snapshots', '/_double']) {
      const off = await request(app).post(path).set('Host', ETH).send('{}')
      const unknown = await request(app).post('/elsewhere').set('Host', ETH).send('{}')
      expect(off.status).toBe(404)
      expect(off.text).toBe('404 page not found\n')
      expect(off.headers['content-type']).toBe(unknown.headers['content-type'])
      expect((await request(app).get(path)).text).toBe('404 page not found\n')
    }
  })

  it('never shares the gateway path: /v3/ is the gateway even with control on', async () => {
    const app = controlApp()
    expect((await request(app).post('/v3/_double/clock').set('Host', ETH).send('{}')).status).toBe(401)
  })
})

describe('startServer', () => {
  it('serves POST /v3/ on the fast lane and the control routes through Express, on one port', async () => {
    const server = await startServer({ port: 0, chains: { ...chains() }, keys: keys(), rpc: controllableRpc(), control: true, clock: manualClock('2025-03-01T12:00:00Z') })
    try {
      expect(server.controlUrl).toBe(`${server.origin}/_double`)
      expect(server.control).toBe(server.gateway.control)
      const fork = await fetch(`${server.controlUrl}/networks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'ethereum-w1', from: 'ethereum' }) })
      expect(fork.status).toBe(201)
      const url = new URL(server.urlFor('ethereum-w1'))
      expect(url.host).toBe(`ethereum-w1-mainnet.localhost:${server.port}`)
      const body = await new Promise<string>((resolve, reject) => {
        const req = httpRequest(`${server.origin}${url.pathname}`, { method: 'POST', headers: { host: url.host } }, (res) => {
          let text = ''
          res.on('data', (d: Buffer) => (text += d.toString()))
          res.on('end', () => resolve(text))
        })
        req.on('error', reject)
        req.end(JSON.stringify(call('eth_blockNumber')))
      })
      expect(JSON.parse(body).result).toBe('0x15')
      expect(server.control.requestLog()).toHaveLength(1)
      expect((await fetch(`${server.origin}/v3/${DEV_KEY}`)).status).toBe(405) // GET /v3/ goes through Express to the same core
    } finally {
      await server.close()
    }
  })

  it('has no control routes unless asked', async () => {
    const server = await startServer({ port: 0, chains: CHAINS, keys: keys(), rpc: fakeRpc() })
    try {
      expect(server.controlUrl).toBeUndefined()
      const res = await fetch(`${server.origin}/_double/clock`)
      expect(res.status).toBe(404)
      expect(await res.text()).toBe('404 page not found\n')
    } finally {
      await server.close()
    }
  })
})

describe('CLI', () => {
  it('--control serves the endpoint and says where', async () => {
    const { parseCliArgs, startBanner } = await import('../../src/cli.ts')
    expect(parseCliArgs(['--control'])).toMatchObject({ control: true })
    expect(parseCliArgs([])).not.toHaveProperty('control')
    const server = await startServer({ port: 0, chains: CHAINS, keys: keys(), rpc: fakeRpc(), control: true })
    try {
      expect(startBanner(server)).toContain(`Control endpoint: ${server.origin}/_double/`)
    } finally {
      await server.close()
    }
  })
})
