/**
 * Bounds on what a test can make the double keep (src/gateway/controlLimits.ts,
 * src/http/connectionLimit.ts): snapshots (the control routes' and `evm_snapshot`'s), scripted
 * faults and keys, each in a count and in bytes, and the connections a port holds (and how long an
 * idle one stays open). At each bound the request is refused with its documented error and
 * nothing changes; what frees room (a delete, a revert, a closed connection) makes room again.
 * Through real sockets, with small bounds so that reaching them is quick.
 */
import { Agent, request } from 'node:http'
import { connect } from 'node:net'
import type { Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'

function send(target: RunningServer, method: string, path: string, body?: unknown, agent: Agent | false = false): Promise<{ status: number; headers: Record<string, unknown>; text: string; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${target.origin}${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, agent }, (res) => {
      let text = ''
      res.on('data', (d: Buffer) => (text += d.toString()))
      res.on('end', () => {
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {}
        resolve({ status: res.statusCode!, headers: res.headers, text, json })
      })
    })
    req.on('error', reject)
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

const rpc = (target: RunningServer, method: string, params: unknown[] = []) => send(target, 'POST', '/_double/rpc/ethereum', { jsonrpc: '2.0', id: 1, method, params }).then((r) => r.json)

describe('what the controls and the test endpoint keep is bounded', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, control: true, controlLimits: { snapshots: 2, evmSnapshots: 3, faults: 2, faultBytes: 4096, keys: 3, keyBytes: 1024 } })
  }, 60_000)
  afterAll(async () => {
    await server?.close()
  })

  it('control snapshots: the third is refused with 409, nothing kept; a delete makes room', async () => {
    const first = await send(server, 'POST', '/_double/snapshots', {})
    const second = await send(server, 'POST', '/_double/snapshots', {})
    expect([first.status, second.status]).toEqual([201, 201])
    const third = await send(server, 'POST', '/_double/snapshots', {})
    expect(third.status).toBe(409)
    expect(third.json.error.message).toMatch(/^too many snapshots: 2 kept, about [\d,.]+ (bytes|KiB|MiB) \(the bounds: 2 and 256 MiB\); delete those no longer needed \(DELETE \/_double\/snapshots\/<id>, control\.deleteSnapshot\)$/)
    expect((await send(server, 'GET', '/_double/snapshots')).json.snapshots ?? (await send(server, 'GET', '/_double/snapshots')).json).toHaveLength(2)
    expect((await send(server, 'DELETE', `/_double/snapshots/${first.json.id}`)).status).toBeLessThan(300)
    const again = await send(server, 'POST', '/_double/snapshots', {})
    expect(again.status).toBe(201)
    // Restoring keeps the snapshot (it can be restored again): no room is made.
    expect((await send(server, 'POST', `/_double/snapshots/${again.json.id}/restore`, {})).status).toBe(200)
    expect((await send(server, 'POST', '/_double/snapshots', {})).status).toBe(409)
  })

  it('evm_snapshot: past the bound -32005, and evm_revert frees that snapshot and every later one', async () => {
    const ids = [await rpc(server, 'evm_snapshot'), await rpc(server, 'evm_snapshot'), await rpc(server, 'evm_snapshot')]
    expect(ids.map((r) => r.result)).toEqual(['0x0', '0x1', '0x2'])
    const refused = await rpc(server, 'evm_snapshot')
    expect(refused.error.code).toBe(-32005)
    expect(refused.error.message).toMatch(/^too many snapshots: 3 kept on network ethereum, about [\d,.]+ (bytes|KiB) \(the bounds: 3 and 256 MiB\); evm_revert frees a snapshot and every later one, anvil_reset all$/)
    expect((await rpc(server, 'evm_revert', ['0x1'])).result).toBe(true)
    // 0x1 and 0x2 are gone: two more fit.
    expect((await rpc(server, 'evm_snapshot')).result).toBe('0x3')
    expect((await rpc(server, 'evm_snapshot')).result).toBe('0x4')
    expect((await rpc(server, 'evm_snapshot')).error.code).toBe(-32005)
    expect((await rpc(server, 'evm_revert', ['0x0'])).result).toBe(true)
  })

  it('faults: in count and in bytes; a fault whose times are used up makes room', async () => {
    const big = { kind: 'serverError', status: 503, method: Array.from({ length: 200 }, (_, i) => `eth_method_number_${i}`) }
    const tooBig = await send(server, 'POST', '/_double/faults', big)
    expect(tooBig.status).toBe(409)
    expect(tooBig.json.error.message).toMatch(/^too many faults: 0 in force, 0 bytes \(the bounds: 2 and 4 KiB; this one: [\d,]+ bytes\); remove some \(DELETE \/_double\/faults\/<id> or \/_double\/faults\)$/)
    const once = await send(server, 'POST', '/_double/faults', { kind: 'rateLimit', times: 1, method: 'eth_chainId' })
    expect(once.status).toBe(201)
    expect((await send(server, 'POST', '/_double/faults', { kind: 'latency', ms: 1, method: 'eth_gasPrice' })).status).toBe(201)
    expect((await send(server, 'POST', '/_double/faults', { kind: 'drop', method: 'eth_accounts' })).status).toBe(409)
    const fired = await send(server, 'POST', `/v3/${server.devKey}`, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })
    expect(fired.status).toBe(429)
    expect((await send(server, 'POST', '/_double/faults', { kind: 'drop', method: 'eth_accounts' })).status).toBe(201)
    expect((await send(server, 'DELETE', '/_double/faults')).status).toBeLessThan(300)
  })

  it('keys: in count (the config\'s included) and in bytes', async () => {
    const existing = (await send(server, 'GET', '/_double/keys')).json.keys.length as number
    const room = 3 - existing
    expect(room).toBeGreaterThan(0)
    const key = (i: number) => ({ key: `b0a7d${String(i).padStart(27, '0')}`, networks: ['ethereum'], dailyCredits: 1000 })
    const heavy = { ...key(99), allowlists: { userAgents: ['x'.repeat(2000)] } }
    const refusedBytes = await send(server, 'POST', '/_double/keys', { keys: [heavy] })
    expect(refusedBytes.status).toBe(409)
    expect(refusedBytes.json.error.message).toContain('would pass the bounds (3 keys and 1 KiB)')
    const fits = await send(server, 'POST', '/_double/keys', { keys: Array.from({ length: room }, (_, i) => key(i)) })
    expect(fits.status).toBe(201)
    const over = await send(server, 'POST', '/_double/keys', { keys: [key(50)] })
    expect(over.status).toBe(409)
    expect(over.json.error.message).toMatch(/^too many keys: 3 exist, [\d,]+ bytes added through the controls, and these 1 \(\d+ bytes\) would pass the bounds \(3 keys and 1 KiB\); keys are taken away by restoring a snapshot taken before them$/)
    expect((await send(server, 'GET', '/_double/keys')).json.keys).toHaveLength(3)
  })
})

describe('connections a port holds are bounded', () => {
  let server: RunningServer
  const sockets: Socket[] = []
  beforeAll(async () => {
    server = await startServer({ port: 0, maxConnections: 2 })
  }, 60_000)
  afterAll(async () => {
    for (const s of sockets) s.destroy()
    await server?.close()
  })

  const open = () =>
    new Promise<Socket>((resolve, reject) => {
      const s = connect(server.port, '127.0.0.1', () => resolve(s))
      s.on('error', reject)
      sockets.push(s)
    })
  const ask = (s: Socket) =>
    new Promise<string>((resolve) => {
      let text = ''
      s.on('data', (d) => {
        text += d.toString()
        if (/\r\n\r\n[\s\S]*\n?$/.test(text) && /content-length: (\d+)/i.test(text)) {
          const length = Number(/content-length: (\d+)/i.exec(text)![1])
          if (Buffer.byteLength(text.slice(text.indexOf('\r\n\r\n') + 4)) >= length) resolve(text)
        }
      })
      s.on('close', () => resolve(text))
      const body = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'
      s.write(`POST /v3/${server.devKey} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`)
    })

  it('past the bound: 503 with retry-after and connection: close; a closed connection makes room', async () => {
    const [a, b] = [await open(), await open()]
    expect(await ask(a)).toMatch(/^HTTP\/1\.1 200 /)
    const c = await open()
    const refused = await ask(c)
    expect(refused).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/)
    expect(refused).toMatch(/\r\nretry-after: 1\r\n/i)
    expect(refused).toMatch(/\r\nconnection: close\r\n/i)
    expect(refused).toContain('too many connections: this port holds at most 2 at once (maxConnections); close idle ones or raise the bound\n')
    // The ones within the bound still answer.
    expect(await ask(b)).toMatch(/^HTTP\/1\.1 200 /)
    a.destroy()
    await new Promise((r) => setTimeout(r, 100))
    const d = await open()
    expect(await ask(d)).toMatch(/^HTTP\/1\.1 200 /)
    b.destroy()
    d.destroy()
  })

  it('a WebSocket upgrade past the bound is refused with the same 503; an open WebSocket counts', async () => {
    await new Promise((r) => setTimeout(r, 100))
    const ws = new WebSocket(server.wsUrl!)
    await new Promise((resolve, reject) => {
      ws.once('open', resolve)
      ws.once('error', reject)
    })
    const held = await open()
    const status = await new Promise<number>((resolve, reject) => {
      const extra = new WebSocket(server.wsUrl!)
      extra.once('unexpected-response', (_req, res) => resolve(res.statusCode!))
      extra.once('open', () => reject(new Error('the upgrade past the bound was accepted')))
      extra.once('error', () => {})
    })
    expect(status).toBe(503)
    ws.close()
    held.destroy()
  })
})

describe("an idle keep-alive connection stays open 120 s (geth's IdleTimeout)", () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  }, 60_000)
  afterAll(async () => {
    await server?.close()
  })

  const blockNumber = (agent: Agent) =>
    new Promise<{ status: number; keepAlive: unknown; reused: boolean; socket: Socket }>((resolve, reject) => {
      const req = request(server.url!, { method: 'POST', headers: { 'content-type': 'application/json' }, agent }, (res) => {
        const socket = res.socket as Socket
        res.resume()
        res.on('end', () => resolve({ status: res.statusCode!, keepAlive: res.headers['keep-alive'], reused: req.reusedSocket, socket }))
      })
      req.on('error', reject)
      req.end('{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}')
    })

  // A keep-alive Agent without `timeout` ignores the server's announcement: it keeps an idle
  // connection until the server closes it. Node's default closed it after 6 s (announced: 5), and a
  // request sent as it did failed with ECONNRESET or socket hang up (a test suite pausing ~6 s).
  it('a connection idle for 7 s is still open: the next request travels on it', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const first = await blockNumber(agent)
      expect(first.status).toBe(200)
      let closedByServer = false
      first.socket.once('close', () => (closedByServer = true))
      await new Promise((r) => setTimeout(r, 7000))
      expect(closedByServer).toBe(false)
      const second = await blockNumber(agent)
      expect(second.status).toBe(200)
      expect(second.reused).toBe(true)
      expect(second.socket).toBe(first.socket)
      // What a client that reads the announcement (Node's global agent, undici's fetch) keeps it for.
      expect(first.keepAlive).toBe('timeout=120')
    } finally {
      agent.destroy()
    }
  }, 30_000)
})
