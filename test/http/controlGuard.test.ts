/**
 * The control routes and the test endpoint refuse what a web page could send them (a cross-origin
 * "simple" request, a DNS-rebinding page's Host, a body that is not JSON), each with its status and
 * message and without effect, while `/v3/` stays open to browsers (src/http/controlGuard.ts).
 * Through real sockets, with the headers a browser sends.
 */
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'

const WHALE = '0x00000000000000000000000000000000000beef1'

let server: RunningServer
let other: RunningServer
beforeAll(async () => {
  ;[server, other] = await Promise.all([startServer({ port: 0, control: true }), startServer({ port: 0, control: true, controlAccess: { allowedOrigins: ['https://tools.example'], allowedHosts: ['double.internal'] } })])
}, 60_000)
afterAll(async () => {
  await Promise.all([server?.close(), other?.close()])
})

function send(target: RunningServer, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${target.origin}${path}`, { method, headers, agent: false }, (res) => {
      let text = ''
      res.on('data', (d: Buffer) => (text += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode!, json: text === '' ? undefined : JSON.parse(text) }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const setBalance = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [WHALE, '0x1234'] })
const getBalance = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [WHALE, 'latest'] })
const balance = async (target: RunningServer) => (await send(target, 'POST', '/_double/rpc/ethereum', { 'content-type': 'application/json' }, getBalance)).json.result

describe('the controls refuse what a web page sends them', () => {
  it('another origin: 403, nothing changed (the credits, the chain)', async () => {
    const key = server.devKey!
    const before = server.gateway.balance(key)
    const credits = await send(server, 'PUT', `/_double/keys/${key}/credits`, { origin: 'https://evil.example', 'content-type': 'text/plain' }, '{"remaining":5}')
    expect(credits).toEqual({ status: 403, json: { error: { message: "origin https://evil.example is not allowed to call the controls (allowed: the double's own pages)" } } })
    expect(server.gateway.balance(key)).toBe(before)
    const rpc = await send(server, 'POST', '/_double/rpc/ethereum', { origin: 'https://evil.example', 'content-type': 'application/json' }, setBalance)
    expect(rpc.status).toBe(403)
    const restore = await send(server, 'POST', '/_double/snapshots', { origin: 'null' })
    expect(restore.status).toBe(403)
    expect(await balance(server)).toBe('0x0')
  })

  it('a body that is not application/json: 415, nothing changed', async () => {
    const rpc = await send(server, 'POST', '/_double/rpc/ethereum', { 'content-type': 'text/plain' }, setBalance)
    expect(rpc).toEqual({ status: 415, json: { error: { message: 'content type must be application/json' } } })
    expect((await send(server, 'POST', '/_double/rpc/ethereum', {}, setBalance)).status).toBe(415)
    expect(await balance(server)).toBe('0x0')
  })

  it('a Host that names neither loopback nor the served hosts (DNS rebinding): 403', async () => {
    const rpc = await send(server, 'POST', '/_double/rpc/ethereum', { host: 'evil.example:8545', 'content-type': 'application/json' }, setBalance)
    expect(rpc).toEqual({ status: 403, json: { error: { message: 'invalid host specified: the controls answer loopback names, localhost and the names under it' } } })
    expect((await send(server, 'GET', '/_double/snapshots', { host: 'evil.example' })).status).toBe(403)
    expect(await balance(server)).toBe('0x0')
    for (const host of ['localhost', '127.0.0.1', '[::1]:8545', 'ethereum-mainnet.localhost']) {
      expect((await send(server, 'GET', '/_double/snapshots', { host })).status, host).toBe(200)
    }
  })

  it('the double\'s own pages, and the origins and hosts configured, are answered', async () => {
    const own = await send(server, 'POST', '/_double/rpc/ethereum', { origin: server.origin, 'content-type': 'application/json' }, setBalance)
    expect(own.json).toEqual({ jsonrpc: '2.0', id: 1, result: null })
    expect(await balance(server)).toBe('0x1234')
    expect((await send(other, 'GET', '/_double/snapshots', { origin: 'https://tools.example' })).status).toBe(200)
    expect((await send(other, 'GET', '/_double/snapshots', { origin: 'https://evil.example' })).status).toBe(403)
    expect((await send(other, 'GET', '/_double/snapshots', { host: 'double.internal' })).status).toBe(200)
  })

  it('/v3/ stays open to other origins', async () => {
    const res = await send(server, 'POST', `/v3/${server.devKey}`, { host: 'ethereum-mainnet.localhost', origin: 'https://evil.example', 'content-type': 'text/plain' }, getBalance)
    expect(res.status).toBe(200)
    expect(res.json.result).toMatch(/^0x/)
  })
})
