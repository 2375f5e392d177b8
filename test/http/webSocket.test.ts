/**
 * The WebSocket endpoint through a real server and a real `ws` client: the upgrade judged by the
 * POST's rules (a refusal is the POST's status, headers and body) and then by gorilla/websocket's
 * handshake checks; messages answered, charged and logged as POST bodies; the refusals a socket
 * carries as error frames under each call's id; the daily limit severing every socket of the key.
 */
import { execFile } from 'node:child_process'
import { request as httpRequest } from 'node:http'
import type { IncomingHttpHeaders } from 'node:http'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createGateway } from '../../src/gateway/gateway.ts'
import { startServer } from '../../src/http/server.ts'
import { createWebSocketTransport } from '../../src/http/webSocketServer.ts'
import type { RunningServer, StartServerOptions } from '../../src/http/server.ts'
import { CHAINS, DEV_KEY, call, fakeRpc, keys, manualClock } from '../gateway/helpers.ts'
import { openSocket, refusedUpgrade, until } from '../support/socket.ts'
import { send } from '../support/wire.ts'

const SECRET_KEY = 'ffffffffffffffffffffffffffffffff'
const POLYGON_ONLY = 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee'
const LISTED = 'dddddddddddddddddddddddddddddddd'
const THROTTLED = 'cccccccccccccccccccccccccccccccc'

const servers: RunningServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function serve(opts: Partial<StartServerOptions> = {}) {
  const server = await startServer({
    port: 0,
    chains: CHAINS,
    keys: keys({}, [
      { key: SECRET_KEY, networks: ['ethereum'], secret: 's3cret' },
      { key: POLYGON_ONLY, networks: ['polygon'] },
      { key: LISTED, networks: ['ethereum'], allowlists: { origins: ['https://dapp.example'], methods: ['eth_chainId', 'eth_blockNumber'] } },
      { key: THROTTLED, networks: ['ethereum'], creditsPerSecond: 100 },
    ]),
    rpc: fakeRpc(),
    clock: manualClock('2025-03-01T12:00:00Z'),
    control: true,
    ...opts,
  })
  servers.push(server)
  return server
}

const wsUrl = (server: RunningServer, path: string, network = 'ethereum') => `ws://${network}-mainnet.localhost:${server.port}${path}`

/** A response's headers without those of the connection itself. */
function comparable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const { date: _d, connection: _c, 'keep-alive': _k, ...rest } = headers
  return rest
}

describe('the upgrade', () => {
  it('is accepted at ws://<network>-mainnet.<serviceHost>:<port>/ws/v3/<key>, on every network of the key, and logged as 101', async () => {
    const server = await serve()
    expect(server.wsUrls.ethereum).toBe(`ws://ethereum-mainnet.localhost:${server.port}/ws/v3/${DEV_KEY}`)
    expect(server.wsUrlFor('polygon')).toBe(`ws://polygon-mainnet.localhost:${server.port}/ws/v3/${DEV_KEY}`)
    for (const network of ['ethereum', 'polygon', 'base']) {
      const socket = await openSocket(server.wsUrlFor(network))
      expect(await socket.call(call('eth_chainId'))).toEqual({ jsonrpc: '2.0', id: 1, result: `0x${CHAINS[network as keyof typeof CHAINS].chainId.toString(16)}` })
      await socket.close()
    }
    const upgrades = server.control.requestLog().filter((e) => e.socket?.stage === 'upgrade')
    expect(upgrades.map((e) => [e.network, e.status, e.transport, e.credits, e.calls])).toEqual([
      ['ethereum', 101, 'ws', 0, []],
      ['polygon', 101, 'ws', 0, []],
      ['base', 101, 'ws', 0, []],
    ])
    expect(new Set(upgrades.map((e) => e.socket!.connection)).size).toBe(3)
  })

  it('is refused with the status, headers and body the same POST gets', async () => {
    const server = await serve()
    const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
    const cases: [string, string, Record<string, string>][] = [
      ['/ws/v3/not-a-key', 'ethereum', {}],
      ['/ws/v3/', 'ethereum', {}],
      [`/ws/v3/${DEV_KEY}/more`, 'ethereum', {}],
      [`/ws/v3/${DEV_KEY}`, 'optimism', {}],
      [`/ws/v3/${POLYGON_ONLY}`, 'ethereum', {}],
      [`/ws/v3/${SECRET_KEY}`, 'ethereum', {}],
      [`/ws/v3/${SECRET_KEY}`, 'ethereum', { authorization: basic('', 'wrong') }],
      [`/ws/v3/${LISTED}`, 'ethereum', { origin: 'https://evil.example' }],
      [`/ws/v3/${LISTED}`, 'ethereum', {}],
    ]
    for (const [path, network, headers] of cases) {
      const refused = await refusedUpgrade(wsUrl(server, path, network), { headers })
      const post = await send(server.origin, path.replace('/ws/v3', '/v3'), JSON.stringify(call('eth_chainId')), { host: `${network}-mainnet.localhost`, headers })
      const what = `${path} on ${network} ${JSON.stringify(headers)}`
      expect(refused.status, what).toBe(post.status)
      expect(refused.status, what).toBeGreaterThanOrEqual(400)
      expect(comparable(refused.headers), what).toEqual(comparable(post.headers))
      expect(refused.body, what).toBe(post.text)
    }
    // With the secret, or an allowed origin, the same keys connect.
    await (await openSocket(wsUrl(server, `/ws/v3/${SECRET_KEY}`), { headers: { authorization: basic('', 's3cret') } })).close()
    await (await openSocket(wsUrl(server, `/ws/v3/${LISTED}`), { headers: { origin: 'https://dapp.example' } })).close()
    expect(server.control.requestLog().filter((e) => e.transport === 'ws').map((e) => e.status)).toEqual([401, 401, 401, 404, 401, 403, 401, 403, 403, 101, 101])
  })

  it('is served on a network\'s own port too, whatever the Host, with every rule', async () => {
    const server = await serve({ networkPorts: 0 })
    const url = server.portWsUrls.polygon!
    expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/ws\/v3\/0123456789abcdef0123456789abcdef$/)
    expect(server.networks.find((n) => n.name === 'polygon')!.portWsUrl).toBe(url)
    const socket = await openSocket(url)
    expect(await socket.call(call('eth_chainId'))).toMatchObject({ result: '0x89' })
    await socket.close()
    // A Host naming another network is refused there, as a POST is; an unknown key too.
    const other = await refusedUpgrade(url, { headers: { host: 'ethereum-mainnet.localhost' } })
    const post = await send(server.origin.replace(/:\d+$/, `:${server.networks.find((n) => n.name === 'polygon')!.port}`), `/v3/${DEV_KEY}`, JSON.stringify(call('eth_chainId')), { host: 'ethereum-mainnet.localhost' })
    expect([other.status, other.body]).toEqual([post.status, post.text])
    expect(other.status).toBe(404)
    expect((await refusedUpgrade(url.replace(DEV_KEY, 'nope'))).status).toBe(401)
    // Logged as the POST is (its network as the POST's entry names it).
    const postEntry = server.control.requestLog().find((e) => e.transport === 'http')!
    expect(server.control.requestLog().filter((e) => e.socket?.stage === 'upgrade').map((e) => [e.network, e.status])).toEqual([
      ['polygon', 101],
      [postEntry.network, 404],
      ['polygon', 401],
    ])
  })

  it('to /v3/<key> gets the POST route\'s 405; other paths 404', async () => {
    const server = await serve()
    const at405 = await refusedUpgrade(wsUrl(server, `/v3/${DEV_KEY}`))
    expect([at405.status, at405.headers.allow, at405.body]).toEqual([405, 'POST, OPTIONS', ''])
    const at404 = await refusedUpgrade(wsUrl(server, '/ws/v2/x'))
    expect([at404.status, at404.body]).toEqual([404, '404 page not found\n'])
  })

  it('gorilla/websocket\'s handshake checks, after the key rules: 400, 426, 405, sec-websocket-version: 13', async () => {
    const server = await serve()
    const path = `/ws/v3/${DEV_KEY}`
    const host = 'ethereum-mainnet.localhost'
    const upgrade = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' }
    const raw = (method: string, headers: Record<string, string>) =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
        const req = httpRequest(`${server.origin}${path}`, { method, headers: { host, ...headers } }, (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }))
        })
        req.on('upgrade', () => reject(new Error('upgraded')))
        req.on('error', reject)
        req.end()
      })
    const expectRefusal = (res: { status: number; headers: IncomingHttpHeaders; body: string }, status: number, body: string) => {
      expect([res.status, res.body, res.headers['content-type'], res.headers['x-content-type-options'], res.headers['sec-websocket-version']]).toEqual([
        status,
        body,
        'text/plain; charset=utf-8',
        'nosniff',
        '13',
      ])
    }
    // No upgrade at all: a GET, a POST (through the HTTP lanes).
    expectRefusal(await raw('GET', {}), 400, 'Bad Request\n')
    expectRefusal(await send(server.origin, path, '{}', { host }).then((r) => ({ status: r.status, headers: r.headers, body: r.text })), 400, 'Bad Request\n')
    // Upgrade requests that gorilla refuses.
    const noUpgradeToken = await raw('GET', { ...upgrade, upgrade: 'websocket', connection: 'keep-alive, Upgrade', 'sec-websocket-version': '8' })
    expectRefusal(noUpgradeToken, 400, 'Bad Request\n')
    expectRefusal(await raw('POST', upgrade), 405, 'Method Not Allowed\n')
    expectRefusal(await raw('GET', { ...upgrade, 'sec-websocket-key': 'short' }), 400, 'Bad Request\n')
    // ...and the key rules come first.
    const unknownKey = await refusedUpgrade(wsUrl(server, '/ws/v3/nope'), { protocolVersion: 8 })
    expect(unknownKey.status).toBe(401)
  })

  it('leaves other upgrades (curl --http2 asking a POST for h2c) to the HTTP lane', async () => {
    const server = await serve()
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        'curl',
        ['-s', '--http2', '-H', 'Host: ethereum-mainnet.localhost', '-H', 'Content-Type: application/json', '-d', JSON.stringify(call('eth_blockNumber')), `${server.origin}/v3/${DEV_KEY}`],
        (err, stdout) => (err ? reject(err) : resolve(stdout)),
      ),
    )
    expect(JSON.parse(out)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x15' })
    expect(server.control.requestLog().map((e) => [e.transport, e.status])).toEqual([['http', 200]])
  })
})

describe('messages', () => {
  it('every method and batch answered as over HTTP, charged the same, one log entry per message naming the transport', async () => {
    const server = await serve()
    const socket = await openSocket(server.wsUrls.ethereum!)
    expect(await socket.call(call('eth_blockNumber', [], 'a'))).toEqual({ jsonrpc: '2.0', id: 'a', result: '0x15' })
    expect(await socket.call([call('eth_chainId', [], 1), { jsonrpc: '2.0', method: 'eth_chainId' }, call('web3_sha4', [], 2), { id: 3 }])).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x1' },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'The method web3_sha4 does not exist/is not available' } },
      { jsonrpc: '2.0', id: 3, error: { code: -32600, message: 'invalid request' } },
    ])
    expect(await socket.call('{not json')).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } })
    expect(await socket.call([])).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'empty batch' } })
    // A message of notifications only is answered with nothing: the next frame answers the next message.
    socket.send({ jsonrpc: '2.0', method: 'eth_chainId', params: [] })
    expect(await socket.call(call('eth_chainId', [], 9))).toEqual({ jsonrpc: '2.0', id: 9, result: '0x1' })
    // Binary frames are read as text, as geth reads them.
    socket.ws.send(Buffer.from(JSON.stringify(call('eth_chainId', [], 10))), { binary: true })
    expect(await socket.next()).toEqual({ jsonrpc: '2.0', id: 10, result: '0x1' })
    await socket.close()

    const messages = server.control.requestLog().filter((e) => e.socket?.stage === 'message')
    expect(messages.map((e) => [e.credits, e.status, e.batch, e.transport])).toEqual([
      [80, 200, false, 'ws'],
      [80 + 5 + 5 + 160 + 5, 200, true, 'ws'],
      [5, 400, false, 'ws'],
      [5, 400, false, 'ws'],
      [5, 200, false, 'ws'],
      [5, 200, false, 'ws'],
      [5, 200, false, 'ws'],
    ])
    const spent = messages.reduce((sum, e) => sum + e.credits, 0)
    expect(server.gateway.balance(DEV_KEY)).toBe(3_000_000 - spent)
  })

  it('method allowlist: each refused call answered -32002 under its id, nothing charged, the socket open', async () => {
    const server = await serve()
    const socket = await openSocket(wsUrl(server, `/ws/v3/${LISTED}`), { headers: { origin: 'https://dapp.example' } })
    const rejected = { code: -32002, message: 'rejected due to project ID settings' }
    expect(await socket.call(call('eth_estimateGas', [{}], 4))).toEqual({ jsonrpc: '2.0', id: 4, error: rejected })
    expect(await socket.call([call('eth_chainId', [], 5), call('eth_call', [{}], 6)])).toEqual([
      { jsonrpc: '2.0', id: 5, error: rejected },
      { jsonrpc: '2.0', id: 6, error: rejected },
    ])
    expect(await socket.call(call('eth_blockNumber', [], 7))).toEqual({ jsonrpc: '2.0', id: 7, result: '0x15' })
    expect(server.gateway.balance(LISTED)).toBe(3_000_000 - 80)
    expect(server.control.requestLog().filter((e) => e.socket?.stage === 'message').map((e) => e.status)).toEqual([403, 403, 200])
  })

  it('throughput: the 429 under the message\'s id, the socket stays open', async () => {
    const clock = manualClock('2025-03-01T12:00:00Z')
    const server = await serve({ clock })
    const socket = await openSocket(wsUrl(server, `/ws/v3/${THROTTLED}`))
    expect(await socket.call(call('eth_blockNumber', [], 1))).toMatchObject({ id: 1, result: '0x15' })
    expect(await socket.call(call('eth_blockNumber', [], 2))).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: 429, event: -33200, message: 'Too Many Requests', details: 'You have surpassed your allowed throughput limit. Reduce the amount of requests per second or upgrade for more capacity.' },
    })
    clock.set('2025-03-01T12:00:01Z')
    expect(await socket.call(call('eth_blockNumber', [], 3))).toMatchObject({ id: 3, result: '0x15' })
    expect(server.gateway.balance(THROTTLED)).toBe(3_000_000 - 160)
  })
})

describe('the daily limit', () => {
  const PAYMENT_REQUIRED = {
    code: 402,
    event: -33000,
    message: 'Payment Required',
    details: 'You have reached your daily credit limit. To continue making requests, upgrade your plan or purchase additional credits',
  }

  it('severs every socket of the key: the 402 body as a final frame, then close 1008; upgrades refused 402 until the balance is restored', async () => {
    const server = await serve()
    server.control.setCredits(DEV_KEY, 100)
    const a = await openSocket(server.wsUrls.ethereum!)
    const b = await openSocket(server.wsUrls.polygon!)
    const other = await openSocket(wsUrl(server, `/ws/v3/${THROTTLED}`))
    expect(await a.call(call('eth_blockNumber', [], 1))).toMatchObject({ result: '0x15' })
    expect(await a.call(call('eth_blockNumber', [], 2))).toEqual({ jsonrpc: '2.0', id: 2, error: PAYMENT_REQUIRED })
    expect(await a.closed).toEqual({ code: 1008, reason: 'daily credit limit reached' })
    // The key's other socket, on another network, gets the 402 with id null.
    expect(await b.next()).toEqual({ jsonrpc: '2.0', id: null, error: PAYMENT_REQUIRED })
    expect(await b.closed).toEqual({ code: 1008, reason: 'daily credit limit reached' })
    // Another key's socket is untouched.
    expect(await other.call(call('eth_chainId', [], 3))).toMatchObject({ result: '0x1' })
    expect(server.gateway.balance(DEV_KEY)).toBe(20)

    const refused = await refusedUpgrade(server.wsUrls.ethereum!)
    expect([refused.status, refused.headers['content-type'], JSON.parse(refused.body)]).toEqual([402, 'application/json', { jsonrpc: '2.0', id: null, error: PAYMENT_REQUIRED }])
    // HTTP keeps its exact-cost rule: a call the 20 credits left can pay is answered.
    expect((await send(server.origin, `/v3/${DEV_KEY}`, JSON.stringify(call('eth_chainId')), { host: 'ethereum-mainnet.localhost' })).status).toBe(200)

    server.control.setCredits(DEV_KEY, 1000)
    const again = await openSocket(server.wsUrls.ethereum!)
    expect(await again.call(call('eth_blockNumber', [], 4))).toMatchObject({ result: '0x15' })
    const log = server.control.requestLog().filter((e) => e.key === DEV_KEY && e.transport === 'ws')
    expect(log.map((e) => [e.socket!.stage, e.status, e.credits])).toEqual([
      ['upgrade', 101, 0],
      ['upgrade', 101, 0],
      ['message', 200, 80],
      ['message', 402, 0],
      ['upgrade', 402, 0],
      ['upgrade', 101, 0],
      ['message', 200, 80],
    ])
  })

  it('a batch that cannot pay gets the 402 under each id; an upgrade with less than 5 credits left is refused', async () => {
    const server = await serve()
    server.control.setCredits(DEV_KEY, 89)
    const socket = await openSocket(server.wsUrls.ethereum!)
    expect(await socket.call([call('eth_chainId', [], 1), call('eth_chainId', [], 2)])).toEqual([
      { jsonrpc: '2.0', id: 1, error: PAYMENT_REQUIRED },
      { jsonrpc: '2.0', id: 2, error: PAYMENT_REQUIRED },
    ])
    expect((await socket.closed).code).toBe(1008)
    server.control.setCredits(DEV_KEY, 4)
    expect((await refusedUpgrade(server.wsUrls.ethereum!)).status).toBe(402)
  })
})

describe('the server', () => {
  it('the transport alone closes its connections with 1001 and refuses upgrades once closing (whatever the order its user stops things in)', async () => {
    const gateway = createGateway({ networks: CHAINS, keys: keys(), rpc: fakeRpc() })
    const http = createServer((_req, res) => res.end())
    const transport = createWebSocketTransport(gateway)
    transport.attach(http)
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r))
    const port = (http.address() as AddressInfo).port
    try {
      const socket = await openSocket(`ws://ethereum-mainnet.localhost:${port}/ws/v3/${DEV_KEY}`)
      const closing = transport.close()
      expect(await socket.closed).toEqual({ code: 1001, reason: 'server shutting down' })
      await closing
      expect(transport.connections).toBe(0)
      await expect(openSocket(`ws://ethereum-mainnet.localhost:${port}/ws/v3/${DEV_KEY}`)).rejects.toThrow(/socket hang up|ECONNRESET/)
    } finally {
      http.closeAllConnections()
      await new Promise((r) => http.close(r))
    }
  })

  it('a graceful shutdown (SIGTERM\'s) closes its sockets with 1001 at once', async () => {
    const server = await serve()
    const socket = await openSocket(server.wsUrls.ethereum!)
    const stopped = server.shutdown({ graceMs: 5000 })
    expect(await socket.closed).toEqual({ code: 1001, reason: 'server shutting down' })
    await stopped
    servers.length = 0
  })

  it('closes its sockets with 1001 when it stops', async () => {
    const server = await serve()
    const socket = await openSocket(server.wsUrls.ethereum!)
    await until(() => server.gateway.sockets.length === 1)
    await server.close()
    servers.length = 0
    expect(await socket.closed).toEqual({ code: 1001, reason: 'server shutting down' })
    expect(server.gateway.sockets).toEqual([])
  })
})
