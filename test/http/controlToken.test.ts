/**
 * The controls served on an address that is not loopback need their token (src/gateway/
 * controlAccess.ts, src/http/controlGuard.ts): without one the server does not start; with one,
 * every control route and the test endpoint refuse a request without `authorization: Bearer
 * <token>` (401, nothing changes), the dashboard page and its scripts load, and the page sends the
 * token from its URL's fragment. The config file's `controlAccess` (origins, hosts, token) applies
 * as `startServer`'s option does. Through real sockets.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfigFile } from '../../src/gateway/config.ts'
import { ConfigError } from '../../src/gateway/configFields.ts'
import { DEFAULT_CONFIG_PATH } from '../../src/gateway/config.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { main } from '../../src/cli.ts'

const TOKEN = 'c0ntrol-t0ken-for-tests-0123456789'
const WHALE = '0x00000000000000000000000000000000000beef1'

function send(target: RunningServer, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${target.origin}${path}`, { method, headers, agent: false }, (res) => {
      let text = ''
      res.on('data', (d: Buffer) => (text += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const json = { 'content-type': 'application/json' }
const bearer = { authorization: `Bearer ${TOKEN}` }
const setBalance = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [WHALE, '0x1234'] })
const getBalance = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [WHALE, 'latest'] })

describe('the controls on an address that is not loopback', () => {
  it('do not start without a token, nor with a short one (ConfigError naming the way out)', async () => {
    await expect(startServer({ port: 0, host: '0.0.0.0', control: true })).rejects.toThrow(
      new ConfigError(
        'the controls (--control) on 0.0.0.0, which is not a loopback address, need a token: set GATEWAY_DOUBLE_CONTROL_TOKEN or the config\'s controlAccess.token (at least 16 characters); clients send it as authorization: Bearer <token>',
      ),
    )
    await expect(startServer({ port: 0, host: '0.0.0.0', control: true, controlAccess: { token: 'short' } })).rejects.toThrow('controlAccess.token: must be at least 16 characters, got 5')
    // Without the controls, or on loopback, no token is needed.
    const plain = await startServer({ port: 0, host: '0.0.0.0' })
    await plain.close()
  }, 60_000)

  it('the command refuses to start the same way (exit 2) and reads the token from GATEWAY_DOUBLE_CONTROL_TOKEN', async () => {
    const err: string[] = []
    const code = await main(['--port', '0', '--host', '0.0.0.0', '--control'], { stdout: () => {}, stderr: (t) => err.push(t) }, {})
    expect(code).toBe(2)
    expect(err.join('')).toContain('need a token: set GATEWAY_DOUBLE_CONTROL_TOKEN')
  }, 60_000)

  describe('with a token', () => {
    let server: RunningServer
    beforeAll(async () => {
      server = await startServer({ port: 0, host: '0.0.0.0', control: true, controlAccess: { token: TOKEN } })
    }, 60_000)
    afterAll(async () => {
      await server?.close()
    })

    it('a control request without it: 401 with a Bearer challenge, and nothing changes', async () => {
      expect(server.controlTokenRequired).toBe(true)
      const key = server.devKey!
      const before = server.gateway.balance(key)
      const put = await send(server, 'PUT', `/_double/keys/${key}/credits`, json, '{"remaining":5}')
      expect(put.status).toBe(401)
      expect(put.headers['www-authenticate']).toBe('Bearer realm="gateway-double controls"')
      expect(JSON.parse(put.text)).toEqual({ error: { message: 'the controls need their token: send authorization: Bearer <token> (controlAccess.token or GATEWAY_DOUBLE_CONTROL_TOKEN)' } })
      expect(server.gateway.balance(key)).toBe(before)
      expect((await send(server, 'POST', '/_double/rpc/ethereum', json, setBalance)).status).toBe(401)
      expect((await send(server, 'POST', '/_double/rpc/ethereum', { ...json, authorization: `Bearer ${TOKEN}x` }, setBalance)).status).toBe(401)
      expect((await send(server, 'GET', '/_double/usage', {})).status).toBe(401)
      const balance = await send(server, 'POST', '/_double/rpc/ethereum', { ...json, ...bearer }, getBalance)
      expect(JSON.parse(balance.text).result).toBe('0x0')
    })

    it('with it, the controls and the test endpoint answer', async () => {
      const set = await send(server, 'POST', '/_double/rpc/ethereum', { ...json, ...bearer }, setBalance)
      expect(JSON.parse(set.text)).toEqual({ jsonrpc: '2.0', id: 1, result: null })
      expect(JSON.parse((await send(server, 'POST', '/_double/rpc/ethereum', { ...json, ...bearer }, getBalance)).text).result).toBe('0x1234')
      expect((await send(server, 'GET', '/_double/clock', { authorization: `bearer ${TOKEN}` })).status).toBe(200)
    })

    it('the dashboard page and its scripts load without it; the page sends the token of its #token= fragment', async () => {
      const page = await send(server, 'GET', '/_double/', {})
      expect(page.status).toBe(200)
      expect(page.text).toContain("new URLSearchParams(location.hash.slice(1)).get('token')")
      expect((await send(server, 'GET', '/_double/dashboard/uPlot.iife.min.js', {})).status).toBe(200)
      expect((await send(server, 'GET', '/_double/dashboard/uPlot.min.css', {})).status).toBe(200)
      expect((await send(server, 'GET', '/_double/routes', {})).status).toBe(401)
    })

    it('/v3/ needs no control token', async () => {
      const res = await send(server, 'POST', `/v3/${server.devKey}`, json, '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}')
      expect(res.status).toBe(200)
    })
  })
})

describe("a config file's controlAccess", () => {
  let server: RunningServer
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gd-control-access-'))
    const config = JSON.parse(JSON.stringify(loadConfigFile(DEFAULT_CONFIG_PATH)))
    const file = join(dir, 'config.json')
    const networks = Object.fromEntries(Object.entries(config.networks as Record<string, { fixture: string }>).map(([name, n]) => [name, { fixture: n.fixture }]))
    writeFileSync(file, JSON.stringify({ networks, keys: config.keys, controlAccess: { allowedOrigins: ['http://localhost:5173'], allowedHosts: ['devbox.lan'], token: TOKEN } }))
    server = await startServer({ port: 0, control: true, config: file })
  }, 60_000)
  afterAll(async () => {
    await server?.close()
  })

  it('allows its origins and hosts and requires its token, even on loopback', async () => {
    expect((await send(server, 'GET', '/_double/clock', { origin: 'http://localhost:5173', ...bearer })).status).toBe(200)
    expect((await send(server, 'GET', '/_double/clock', { origin: 'http://localhost:5174', ...bearer })).status).toBe(403)
    expect((await send(server, 'GET', '/_double/clock', { host: 'devbox.lan:8545', ...bearer })).status).toBe(200)
    expect((await send(server, 'GET', '/_double/clock', { host: 'other.lan', ...bearer })).status).toBe(403)
    expect((await send(server, 'GET', '/_double/clock', {})).status).toBe(401)
  })

  it('is validated like the rest of the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gd-control-access-'))
    const file = join(dir, 'config.json')
    writeFileSync(file, JSON.stringify({ networks: {}, keys: [], controlAccess: { allowedOrigins: ['http://localhost:5173/app'] } }))
    expect(() => loadConfigFile(file)).toThrow('controlAccess.allowedOrigins[0]: must be an origin (scheme://host[:port], as a browser sends it), got "http://localhost:5173/app"')
    writeFileSync(file, JSON.stringify({ networks: {}, keys: [], controlAccess: { tokens: 'x' } }))
    expect(() => loadConfigFile(file)).toThrow('controlAccess.tokens: unknown field (allowed: allowedOrigins, allowedHosts, token)')
  })
})
