/**
 * Every refusal and request error, pinned once: status, the headers the real service sends, and
 * the body byte for byte (shared/reference/infura-behaviors.md §1-8, 11).
 */
import request from 'supertest'
import { beforeEach, describe, expect, it } from 'vitest'
import { createApp } from '../../src/http/app.ts'
import type { GatewayApp } from '../../src/http/app.ts'
import { DEV_KEY, call, gatewayOptions, keys } from '../gateway/helpers.ts'

const ETH = 'ethereum-mainnet.localhost'
const TEXT = 'text/plain; charset=utf-8'
const SECRET_KEY = 'ffffffffffffffffffffffffffffffff'
const POLYGON_ONLY = 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee'

let app: GatewayApp

beforeEach(() => {
  app = createApp(
    gatewayOptions({
      keys: keys({}, [
        { key: SECRET_KEY, networks: ['ethereum'], secret: 's3cret' },
        { key: POLYGON_ONLY, networks: ['polygon'], dailyCredits: 80 },
      ]),
    }),
  )
})

function post(path: string, body: unknown = call('eth_blockNumber'), host = ETH) {
  const req = request(app).post(path).set('Host', host).set('Content-Type', 'application/json')
  return req.send(typeof body === 'string' ? body : JSON.stringify(body))
}

/** The headers a response must carry, and the exact body. */
function expectExact(res: request.Response, status: number, headers: Record<string, string>, body: string) {
  expect(res.status).toBe(status)
  for (const [name, value] of Object.entries(headers)) expect(res.headers[name], name).toBe(value)
  expect(res.headers['content-length']).toBe(String(Buffer.byteLength(body)))
  expect(res.text).toBe(body)
}

describe('401 plain-text refusals', () => {
  it('missing key: /v3 and /v3/', async () => {
    for (const path of ['/v3', '/v3/']) {
      expectExact(
        await post(path),
        401,
        {
          'content-type': TEXT,
          'www-authenticate': 'Basic realm="Project ID is required in the URL"',
          vary: 'Origin',
          'x-content-type-options': 'nosniff',
        },
        'project id required in the url\n',
      )
    }
  })

  it('unknown key (19 bytes, as captured)', async () => {
    const res = await post('/v3/not-a-key')
    expectExact(
      res,
      401,
      {
        'content-type': TEXT,
        'content-length': '19',
        'www-authenticate': 'Basic realm="Auth failure, invalid project id"',
        vary: 'Origin',
        'x-content-type-options': 'nosniff',
      },
      'invalid project id\n',
    )
  })

  it('anything after the key is part of the key', async () => {
    expect((await post(`/v3/${DEV_KEY}/`)).text).toBe('invalid project id\n')
  })

  it('wrong secret', async () => {
    const res = await post(`/v3/${SECRET_KEY}`).auth('', 'wrong')
    expectExact(
      res,
      401,
      {
        'content-type': TEXT,
        'www-authenticate': 'Basic realm="Auth failure, invalid project id or project secret"',
        'x-content-type-options': 'nosniff',
      },
      'invalid project id or project secret\n',
    )
  })

  it('network not enabled for the key', async () => {
    const res = await post(`/v3/${POLYGON_ONLY}`)
    expectExact(
      res,
      401,
      {
        'content-type': TEXT,
        'www-authenticate': 'Basic realm="Auth failure, project ID does not have access to this network"',
        vary: 'Origin',
        'x-content-type-options': 'nosniff',
      },
      'project ID does not have access to this network\n',
    )
  })
})

describe('403 rejected due to project ID settings', () => {
  const body = '{"jsonrpc":"2.0","error":{"code":-32002,"message":"rejected due to project ID settings"}}\n'

  it('secret required but not sent: the JSON body, as text/plain, 90 bytes', async () => {
    expectExact(
      await post(`/v3/${SECRET_KEY}`),
      403,
      { 'content-type': TEXT, 'content-length': '90', vary: 'Origin' },
      body,
    )
  })

  it('the right secret passes, with an empty user or the key as user', async () => {
    expect((await post(`/v3/${SECRET_KEY}`).auth('', 's3cret')).status).toBe(200)
    expect((await post(`/v3/${SECRET_KEY}`).auth(SECRET_KEY, 's3cret')).status).toBe(200)
  })

  it('allowlists: origin, user agent, method, contract address', async () => {
    app = createApp(
      gatewayOptions({
        keys: keys({
          allowlists: {
            origins: ['https://*.example.com'],
            userAgents: ['my-dapp/'],
            methods: ['eth_blockNumber', 'eth_getStorageAt'],
            contractAddresses: ['0x00000000000000000000000000000000000000aA'],
          },
        }),
      }),
    )
    const ok = (b: unknown = call('eth_blockNumber')) =>
      post(`/v3/${DEV_KEY}`, b).set('Origin', 'https://app.example.com').set('User-Agent', 'my-dapp/1.0')
    expect((await ok()).status).toBe(200)
    expect((await ok(call('eth_getStorageAt', ['0x00000000000000000000000000000000000000aa', '0x0', 'latest']))).status).toBe(200)

    const refused = [
      post(`/v3/${DEV_KEY}`).set('Origin', 'https://example.org').set('User-Agent', 'my-dapp/1.0'),
      post(`/v3/${DEV_KEY}`).set('User-Agent', 'my-dapp/1.0'),
      post(`/v3/${DEV_KEY}`).set('Origin', 'https://app.example.com').set('User-Agent', 'curl/8'),
      ok(call('eth_chainId')),
      ok([call('eth_blockNumber'), call('eth_chainId', [], 2)]),
      ok(call('eth_getStorageAt', ['0x00000000000000000000000000000000000000bb', '0x0', 'latest'])),
    ]
    for (const res of await Promise.all(refused)) {
      expectExact(res, 403, { 'content-type': TEXT }, body)
    }
    expect(app.gateway.balance(DEV_KEY)).toBe(3_000_000 - 160)
  })
})

describe('402 and 429 limits', () => {
  it('402 Payment Required, id echoed, application/json', async () => {
    await request(app).post(`/v3/${POLYGON_ONLY}`).set('Host', 'polygon-mainnet.localhost').send(call('eth_blockNumber'))
    const res = await request(app)
      .post(`/v3/${POLYGON_ONLY}`)
      .set('Host', 'polygon-mainnet.localhost')
      .send(call('eth_blockNumber', [], 9))
    expectExact(
      res,
      402,
      { 'content-type': 'application/json', vary: 'Origin' },
      '{"jsonrpc":"2.0","id":9,"error":{"code":402,"event":-33000,"message":"Payment Required","details":"You have reached your daily credit limit. To continue making requests, upgrade your plan or purchase additional credits"}}',
    )
  })

  it('429 Too Many Requests when the per-second throughput is used up', async () => {
    app = createApp(gatewayOptions({ keys: keys({ creditsPerSecond: 100 }) }))
    expect((await post(`/v3/${DEV_KEY}`)).status).toBe(200)
    expectExact(
      await post(`/v3/${DEV_KEY}`, call('eth_blockNumber', [], 2)),
      429,
      { 'content-type': 'application/json', vary: 'Origin' },
      '{"jsonrpc":"2.0","id":2,"error":{"code":429,"event":-33200,"message":"Too Many Requests","details":"You have surpassed your allowed throughput limit. Reduce the amount of requests per second or upgrade for more capacity."}}',
    )
  })
})

describe('routes, hosts and HTTP methods', () => {
  it('unknown network host: 404 naming the hosts served', async () => {
    expectExact(
      await post(`/v3/${DEV_KEY}`, call('eth_blockNumber'), 'optimism-mainnet.localhost:8545'),
      404,
      { 'content-type': TEXT, 'x-content-type-options': 'nosniff', vary: 'Origin' },
      'no network is served at host "optimism-mainnet.localhost"; hosts served: ethereum-mainnet.localhost, polygon-mainnet.localhost, base-mainnet.localhost\n',
    )
  })

  it('a Host that names no network (the plain URL http://127.0.0.1:8545/v3/<key>) reaches the first network served', async () => {
    for (const host of ['127.0.0.1:8545', 'localhost:8545', '[::1]:8545']) {
      expect((await post(`/v3/${DEV_KEY}`, call('eth_chainId'), host)).body, host).toEqual({ jsonrpc: '2.0', id: 1, result: '0x1' })
    }
  })

  it('the port and case of the Host are ignored', async () => {
    expect((await post(`/v3/${DEV_KEY}`, call('eth_blockNumber'), 'Base-Mainnet.LOCALHOST:9999')).body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: '0x3',
    })
  })

  it('other paths: 404 page not found', async () => {
    for (const path of ['/', '/v2/x', `/${DEV_KEY}`, '/ws/v2/x', '/ws/x']) {
      expectExact(await post(path), 404, { 'content-type': TEXT, 'x-content-type-options': 'nosniff' }, '404 page not found\n')
    }
  })

  it('other HTTP methods on /v3/<key>: 405, empty body', async () => {
    for (const res of [
      await request(app).get(`/v3/${DEV_KEY}`).set('Host', ETH),
      await request(app).put(`/v3/${DEV_KEY}`).set('Host', ETH),
      await request(app).delete(`/v3/${DEV_KEY}`).set('Host', ETH),
    ]) {
      expectExact(res, 405, { allow: 'POST, OPTIONS', vary: 'Origin' }, '')
    }
  })

  it('OPTIONS: a CORS preflight, 204', async () => {
    const res = await request(app)
      .options(`/v3/${DEV_KEY}`)
      .set('Host', ETH)
      .set('Origin', 'https://dapp.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type')
    expect(res.status).toBe(204)
    expect(res.headers).toMatchObject({
      'access-control-allow-origin': 'https://dapp.example',
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': 'content-type',
      vary: 'Origin',
    })
  })

  it('a POST with an Origin gets it allowed back', async () => {
    const res = await post(`/v3/${DEV_KEY}`).set('Origin', 'https://dapp.example')
    expect(res.headers['access-control-allow-origin']).toBe('https://dapp.example')
  })

  it('a body over 5 MiB: 413', async () => {
    const res = await post(`/v3/${DEV_KEY}`, 'x'.repeat(5 * 1024 * 1024 + 1))
    expectExact(res, 413, { 'content-type': TEXT }, 'request entity too large\n')
  })
})

describe('JSON-RPC request errors', () => {
  it('unsupported method: 400, the capitalized message (113 bytes for web3_sha4)', async () => {
    expectExact(
      await post(`/v3/${DEV_KEY}`, call('web3_sha4')),
      400,
      { 'content-type': 'application/json', 'content-length': '113', vary: 'Origin' },
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"The method web3_sha4 does not exist/is not available"}}',
    )
  })

  it('parse error: 400, geth shape', async () => {
    expectExact(
      await post(`/v3/${DEV_KEY}`, '{"jsonrpc":"2.0",'),
      400,
      { 'content-type': 'application/json' },
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}',
    )
  })

  it('invalid request: 400, id echoed', async () => {
    expectExact(
      await post(`/v3/${DEV_KEY}`, { jsonrpc: '1.0', id: 7, method: 'eth_blockNumber' }),
      400,
      { 'content-type': 'application/json' },
      '{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"invalid request"}}',
    )
  })

  it('invalid params: 200, -32602', async () => {
    const res = await post(`/v3/${DEV_KEY}`, call('eth_blockNumber', [1, 2, 3, 4]))
    expect(res.status).toBe(200)
    expect(res.body.error.code).toBe(-32602)
  })

  it('empty batch: 400, a single object', async () => {
    expectExact(
      await post(`/v3/${DEV_KEY}`, []),
      400,
      { 'content-type': 'application/json' },
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}',
    )
  })

  it('batch over 1000 calls: 200, one error in an array with the first call id', async () => {
    const batch = Array.from({ length: 1001 }, (_, i) => call('eth_chainId', [], i + 5))
    expectExact(
      await post(`/v3/${DEV_KEY}`, batch),
      200,
      { 'content-type': 'application/json' },
      '[{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"batch too large"}}]',
    )
  })
})
