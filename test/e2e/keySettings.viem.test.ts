/**
 * A key's JWT and its limits through the wire, with real clients: viem's `http` transport sending
 * `Authorization: Bearer` (tokens signed with `jose` by keys generated here, RS256 and ES256), a
 * `ws` WebSocket upgrade carrying one; keys grouped under an account whose plan they share, each
 * capped per second (-33300) and per day (-33400) below it, the single-key config untouched; and
 * the 75/85/100% alerts reaching the library callback and the logger.
 */
import { SignJWT, exportSPKI, generateKeyPair } from 'jose'
import type { CryptoKey } from 'jose'
import { RpcRequestError, createPublicClient, http } from 'viem'
import type { PublicClient } from 'viem'
import { mainnet } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { QuotaAlert } from '../../src/gateway/credits.ts'
import { localhostFetch } from '../../src/http/client.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { openSocket, refusedUpgrade } from '../support/socket.ts'
import { rejection } from './support/control.ts'

let server: RunningServer
const alerts: QuotaAlert[] = []
const logged: string[] = []
let rsa: { privateKey: CryptoKey; publicKey: CryptoKey }
let ec: { privateKey: CryptoKey; publicKey: CryptoKey }
let stranger: { privateKey: CryptoKey; publicKey: CryptoKey }

const url = (key: string) => `http://ethereum-mainnet.localhost:${server.port}/v3/${key}`

beforeAll(async () => {
  rsa = await generateKeyPair('RS256')
  ec = await generateKeyPair('ES256')
  stranger = await generateKeyPair('ES256')
  server = await startServer({
    port: 0,
    control: true,
    accounts: { team: { plan: 'developer', dailyCredits: 10_000 } },
    keys: [
      { key: 'plain', networks: ['ethereum'], dailyCredits: 1_000 },
      {
        key: 'jwtrequired',
        networks: ['ethereum'],
        jwt: { required: true, publicKeys: [{ name: 'ci-rsa', pem: await exportSPKI(rsa.publicKey) }, { name: 'ci-ec', id: 'ec-2', pem: await exportSPKI(ec.publicKey) }] },
      },
      { key: 'jwtoptional', networks: ['ethereum'], jwt: { publicKeys: [{ name: 'ci-ec', pem: await exportSPKI(ec.publicKey) }] } },
      { key: 'team-a', networks: ['ethereum'], account: 'team', limits: { creditsPerSecond: 200, dailyCredits: 4_000 } },
      { key: 'team-b', networks: ['ethereum'], account: 'team' },
    ],
    onQuotaAlert: (alert) => alerts.push(alert),
    logger: { error() {}, info: (message) => logged.push(message) },
  })
  server.control.setClock({ time: '2026-03-02T10:00:00.000Z' })
})
afterAll(async () => {
  await server.close()
})

function client(key: string, token?: string): PublicClient {
  const fetchOptions = token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } }
  return createPublicClient({ chain: mainnet, transport: http(url(key), { fetchFn: localhostFetch, fetchOptions, retryCount: 0 }) })
}

async function token(privateKey: CryptoKey, alg: 'RS256' | 'ES256', kid: string | undefined, claims: { aud?: string; expiresIn?: string | number } = {}): Promise<string> {
  const now = server.gateway.clock.now() / 1000
  const jwt = new SignJWT({}).setProtectedHeader(kid === undefined ? { alg } : { alg, kid }).setIssuedAt(Math.floor(now)).setAudience(claims.aud ?? 'infura.io')
  jwt.setExpirationTime(typeof claims.expiresIn === 'number' ? claims.expiresIn : Math.floor(now) + 300)
  return jwt.sign(privateKey)
}

/** What a refused fetch answered: status and body text. */
async function raw(key: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; auth: string | null }> {
  const res = await localhostFetch(url(key), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' })
  return { status: res.status, body: await res.text(), auth: res.headers.get('www-authenticate') }
}

describe('JWT', () => {
  it('a key that requires one serves requests with a valid RS256 or ES256 token, named by kid', async () => {
    expect(await client('jwtrequired', await token(rsa.privateKey, 'RS256', 'ci-rsa')).getChainId()).toBe(1)
    expect(await client('jwtrequired', await token(ec.privateKey, 'ES256', 'ec-2')).getChainId()).toBe(1)
  })

  it('refuses with 401 `invalid JWT`: no token, bad signature, expired, wrong audience, unknown or missing kid, wrong algorithm', async () => {
    const now = Math.floor(server.gateway.clock.now() / 1000)
    const refused = [
      await raw('jwtrequired'),
      await raw('jwtrequired', { authorization: `Bearer ${await token(stranger.privateKey, 'ES256', 'ec-2')}` }),
      await raw('jwtrequired', { authorization: `Bearer ${await token(rsa.privateKey, 'RS256', 'ci-rsa', { expiresIn: now - 1 })}` }),
      await raw('jwtrequired', { authorization: `Bearer ${await token(rsa.privateKey, 'RS256', 'ci-rsa', { aud: 'example.com' })}` }),
      await raw('jwtrequired', { authorization: `Bearer ${await token(rsa.privateKey, 'RS256', 'nobody')}` }),
      await raw('jwtrequired', { authorization: `Bearer ${await token(rsa.privateKey, 'RS256', undefined)}` }),
      await raw('jwtrequired', { authorization: `Bearer ${await token(ec.privateKey, 'ES256', 'ci-rsa')}` }),
      await raw('jwtrequired', { authorization: 'Bearer not.a.token' }),
    ]
    for (const r of refused) expect(r).toEqual({ status: 401, body: 'invalid JWT\n', auth: 'Basic realm="Auth failure, invalid JWT"' })
    const error = await rejection(client('jwtrequired').getChainId())
    expect(error.walk((e: unknown) => e instanceof RpcRequestError) ?? error.walk()).toBeDefined()
    expect(String(error.details ?? error.message)).toContain('invalid JWT')
  })

  it("expiry follows the gateway's clock", async () => {
    const jwt = await token(rsa.privateKey, 'RS256', 'ci-rsa', { expiresIn: Math.floor(server.gateway.clock.now() / 1000) + 60 })
    expect((await raw('jwtrequired', { authorization: `Bearer ${jwt}` })).status).toBe(200)
    server.control.setClock({ advanceSeconds: 61 })
    expect((await raw('jwtrequired', { authorization: `Bearer ${jwt}` })).status).toBe(401)
  })

  it('without "require JWT" a request without one passes, but an invalid one is refused', async () => {
    expect(await client('jwtoptional').getChainId()).toBe(1)
    expect(await client('jwtoptional', await token(ec.privateKey, 'ES256', 'ci-ec')).getChainId()).toBe(1)
    expect((await raw('jwtoptional', { authorization: `Bearer ${await token(stranger.privateKey, 'ES256', 'ci-ec')}` })).status).toBe(401)
  })

  it('refused requests are not charged, and a WebSocket upgrade is judged alike', async () => {
    const before = server.gateway.balance('jwtrequired')
    await raw('jwtrequired')
    expect(server.gateway.balance('jwtrequired')).toBe(before)
    const wsUrl = `ws://ethereum-mainnet.localhost:${server.port}/ws/v3/jwtrequired`
    const refused = await refusedUpgrade(wsUrl)
    expect([refused.status, refused.body]).toEqual([401, 'invalid JWT\n'])
    const socket = await openSocket(wsUrl, { headers: { authorization: `Bearer ${await token(rsa.privateKey, 'RS256', 'ci-rsa')}` } })
    expect(await socket.call({ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] })).toEqual({ jsonrpc: '2.0', id: 7, result: '0x1' })
    await socket.close()
  })
})

describe('accounts and key limits', () => {
  it("a key's per-second cap answers 429 -33300 in the service's shape; the next second serves again", async () => {
    server.control.setClock({ time: '2026-03-03T10:00:00.000Z' })
    const c = client('team-a')
    await c.getBlockNumber({ cacheTime: 0 }) // 80
    await c.getBlockNumber({ cacheTime: 0 }) // 160
    const res = await localhostFetch(url('team-a'), { method: 'POST', body: '{"jsonrpc":"2.0","id":3,"method":"eth_blockNumber","params":[]}' })
    expect(res.status).toBe(429)
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: 429,
        event: -33300,
        message: 'Too Many Requests',
        details: 'You have surpassed your user-defined key throughput limit setting. To make more requests with this key, review key setting configurations.',
      },
    })
    const error = await rejection(c.getBlockNumber({ cacheTime: 0 }))
    expect(error.walk((e: unknown) => e instanceof RpcRequestError)?.code).toBe(429)
    server.control.setClock({ advanceSeconds: 1 })
    expect(await c.getBlockNumber({ cacheTime: 0 })).toBeTypeOf('bigint')
  })

  it("a key's daily cap answers 429 -33400 while its account's balance still serves the other key; 00:00 UTC restores it", async () => {
    server.control.setClock({ time: '2026-03-04T10:00:00.000Z' })
    const a = client('team-a')
    for (let i = 0; i < 50; i++) {
      server.control.setClock({ advanceSeconds: 1 })
      await a.getBlockNumber({ cacheTime: 0 })
    }
    expect(server.control.key('team-a')).toMatchObject({ account: 'team', spentToday: 4_000, remaining: 0, limits: { dailyCredits: 4_000, creditsPerSecond: 200 } })
    const res = await localhostFetch(url('team-a'), { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' })
    expect([res.status, ((await res.json()) as { error: unknown }).error]).toEqual([429, expect.objectContaining({ code: 429, event: -33400, message: 'Too Many Requests' })])
    // The account's balance is shared: team-b spends from what is left of 10,000.
    expect(server.control.key('team-b')).toMatchObject({ account: 'team', remaining: 6_000, spentToday: 0 })
    const b = client('team-b')
    for (let i = 0; i < 75; i++) {
      if (i % 40 === 0) server.control.setClock({ advanceSeconds: 1 }) // under the plan's 4,000 a second
      await b.getBlockNumber({ cacheTime: 0 })
    }
    expect(server.control.key('team-b').remaining).toBe(0)
    const paid = await localhostFetch(url('team-b'), { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' })
    expect([paid.status, ((await paid.json()) as { error: { event: number } }).error.event]).toEqual([402, -33000])
    server.control.setClock({ time: '2026-03-05T00:00:00.000Z' })
    expect(await a.getChainId()).toBe(1)
  })

  it('alerts at 75, 85 and 100% of a quota reach the callback and the logger once a day each', async () => {
    const day = alerts.filter((a) => new Date(a.time).toISOString().startsWith('2026-03-04'))
    expect(day.map((a) => `${a.scope}:${a.name}:${a.level}:${a.spent}/${a.quota}`)).toEqual([
      'key:team-a:75:3040/4000',
      'key:team-a:85:3440/4000',
      'key:team-a:100:4000/4000',
      'account:team:75:7520/10000',
      'account:team:85:8560/10000',
      'account:team:100:10000/10000',
    ])
    expect(logged).toContain('credits: key team-a at 75% of its daily quota (3040 of 4000)')
  })

  it('a key of its own (the single-key config) keeps its balance and the 402', async () => {
    const c = client('plain')
    for (let i = 0; i < 12; i++) await c.getBlockNumber({ cacheTime: 0 })
    expect(server.control.key('plain')).toMatchObject({ account: null, limits: null, remaining: 40 })
    const error = await rejection(c.getBlockNumber({ cacheTime: 0 }))
    expect(error.walk((e: unknown) => e instanceof RpcRequestError)?.code).toBe(402)
  })
})
