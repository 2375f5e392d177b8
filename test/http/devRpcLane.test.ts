/**
 * The test endpoint's fast lane (src/http/devRpcLane.ts) answers byte for byte as the Express route
 * it stands in front of: each request is sent once as the lane takes it (a declared length) and once
 * as only Express takes it (a chunked or gzip body, a query string), through a real server's socket,
 * and the two answers compared: status, headers (all but Date, in their order and case), body. A
 * client that goes away in the middle of its body changes nothing, and the lane's bodies count in
 * the server's body budget (src/http/bodyBudget.ts) as `/v3/`'s do: held while read and answered,
 * waiting unread while the budget is spent.
 */
import { request } from 'node:http'
import { connect } from 'node:net'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bodyBudgetOf } from '../../src/http/bodyBudget.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { until } from '../support/socket.ts'

let server: RunningServer
beforeAll(async () => {
  server = await startServer({ port: 0, control: true })
}, 60_000)
afterAll(async () => {
  await server?.close()
})

interface Answer {
  status: number
  contentType: string | undefined
  /** The raw header lines but Date, as sent. */
  headers: string[]
  body: string
}

type Framing = 'length' | 'chunked' | 'gzip'

/** POSTs `body` to `path` framed as asked: a declared length (the lane's), chunked or gzip (Express's). */
function post(path: string, body: string, framing: Framing, headers: Record<string, string> = {}): Promise<Answer> {
  const bytes = framing === 'gzip' ? gzipSync(body) : Buffer.from(body)
  const framingHeaders: Record<string, string> = framing === 'chunked' ? {} : { 'content-length': String(bytes.length) }
  if (framing === 'gzip') framingHeaders['content-encoding'] = 'gzip'
  return new Promise((resolve, reject) => {
    const req = request(`${server.origin}${path}`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', ...framingHeaders, ...headers } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (d: Buffer) => chunks.push(d))
      const headers: string[] = []
      for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i] !== 'Date') headers.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`)
      res.on('end', () => resolve({ status: res.statusCode!, contentType: res.headers['content-type'], headers, body: Buffer.concat(chunks).toString() }))
    })
    req.on('error', reject)
    if (framing === 'chunked') req.write(bytes)
    req.end(framing === 'chunked' ? undefined : bytes)
  })
}

const rpc = (method: string, params: unknown[] = [], id: number | string = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params })

/** Answers that carry nothing that changes between two sends of the same request. */
const REQUESTS: Record<string, { path?: string; body: string }> = {
  'a read': { body: rpc('eth_getBalance', ['0x00000000000000000000000000000000000beef1', 'latest']) },
  'a test method': { body: rpc('anvil_nodeInfo') },
  'a batch': { body: `[${rpc('eth_chainId', [], 1)},${rpc('eth_blockNumber', [], 'two')}]` },
  'an unknown method': { body: rpc('no_suchMethod') },
  'bad params': { body: rpc('eth_getBalance', ['0x12']) },
  'not JSON': { body: '{"jsonrpc":' },
  'an empty body': { body: '' },
  'an unknown network': { path: '/_double/rpc/nosuchnet', body: rpc('eth_chainId') },
}

describe('the test endpoint answers the same through its fast lane and through Express', () => {
  for (const [name, { path = '/_double/rpc/ethereum', body }] of Object.entries(REQUESTS)) {
    it(name, async () => {
      const lane = await post(path, body, 'length')
      expect(await post(path, body, 'chunked')).toEqual(lane)
      expect(await post(path, body, 'gzip')).toEqual(lane)
      expect(await post(`${path}?via=express`, body, 'length')).toEqual(lane)
      expect(lane.status).toBe(name === 'an unknown network' ? 404 : 200)
      // A declared length, never chunked: the failure's too (the lane's own answer was chunked).
      expect(lane.headers).toContain(`${name === 'an unknown network' ? 'Content-Length' : 'content-length'}: ${Buffer.byteLength(lane.body)}`)
    })
  }

  it('a write through the lane is seen through Express, and back', async () => {
    const who = '0x00000000000000000000000000000000000beef2'
    await post('/_double/rpc/ethereum', rpc('anvil_setBalance', [who, '0x7']), 'length')
    expect(JSON.parse((await post('/_double/rpc/ethereum', rpc('eth_getBalance', [who, 'latest']), 'chunked')).body).result).toBe('0x7')
    await post('/_double/rpc/ethereum', rpc('anvil_setBalance', [who, '0x9']), 'gzip')
    expect(JSON.parse((await post('/_double/rpc/ethereum', rpc('eth_getBalance', [who, 'latest']), 'length')).body).result).toBe('0x9')
  })

  it('refusals are the guard\'s, whichever lane the request would have taken', async () => {
    const body = rpc('eth_chainId')
    const refused = await post('/_double/rpc/ethereum', body, 'length', { 'content-type': 'text/plain' })
    expect(refused).toMatchObject({ status: 415, contentType: 'application/json; charset=utf-8', body: '{"error":{"message":"content type must be application/json"}}' })
    expect(await post('/_double/rpc/ethereum', body, 'chunked', { 'content-type': 'text/plain' })).toEqual(refused)
    expect((await post('/_double/rpc/ethereum', body, 'length', { host: 'evil.example' })).status).toBe(403)
  })

  it('a client gone in the middle of its body: no answer, nothing done, the server goes on', async () => {
    const who = '0x00000000000000000000000000000000000beef3'
    const body = rpc('anvil_setBalance', [who, '0x5'])
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(new URL(server.origin).port), '127.0.0.1', () => {
        socket.write(`POST /_double/rpc/ethereum HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 20)}`)
        setTimeout(() => {
          socket.destroy()
          resolve()
        }, 50)
      })
      socket.on('data', () => reject(new Error('answered a request whose body never came')))
      socket.on('error', reject)
    })
    expect(JSON.parse((await post('/_double/rpc/ethereum', rpc('eth_getBalance', [who, 'latest']), 'length')).body).result).toBe('0x0')
  })

  it('its bodies count in the server\'s body budget: held while read, unread while the budget is spent, then answered', async () => {
    const budget = bodyBudgetOf(server.gateway)
    const body = rpc('eth_getBalance', ['0x00000000000000000000000000000000000beef1', 'latest'])
    const expected = await post('/_double/rpc/ethereum', body, 'chunked')
    expect(budget.used).toBe(0)
    // A body half sent is held: its declared length counts until it is answered.
    const socket = connect(Number(new URL(server.origin).port), '127.0.0.1')
    const received: Buffer[] = []
    socket.on('data', (d: Buffer) => received.push(d))
    socket.write(`POST /_double/rpc/ethereum HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 20)}`)
    await until(() => budget.used === body.length, 10_000)
    const ended = new Promise((resolve) => socket.on('close', resolve))
    socket.end(body.slice(20))
    await ended
    const text = Buffer.concat(received).toString()
    expect(text.slice(text.indexOf('\r\n\r\n') + 4)).toBe(expected.body)
    expect(budget.used).toBe(0)
    // The budget spent (as by 128 MiB of bodies held elsewhere): the lane's request waits unread, then is answered as ever.
    expect(budget.take(budget.maxBytes)).toBeUndefined()
    let answered = false
    const waiting = post('/_double/rpc/ethereum', body, 'length').finally(() => (answered = true))
    await until(() => budget.waiting === 1, 10_000)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(answered).toBe(false)
    budget.give(budget.maxBytes)
    expect(await waiting).toEqual(expected)
    expect([budget.used, budget.waiting]).toEqual([0, 0])
  })
})
