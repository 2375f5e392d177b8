/**
 * Per-network method availability through a real server: a network's config leaves out a family
 * (`debug_*`) and a method (`txpool_content`); those are answered and charged as methods the
 * double does not serve (-32601 in the service's words, HTTP 400 alone, 200 in a batch, 160
 * credits), over HTTP and WebSocket alike, on the network and on its forks; another network serves
 * them; the test endpoint (`/_double/rpc/<network>`) serves them all; the config refuses entries
 * that leave out nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { parseConfig } from '../../src/gateway/config.ts'
import { createGateway } from '../../src/gateway/gateway.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { DEV_KEY, manualClock } from '../gateway/helpers.ts'
import { openSocket } from '../support/socket.ts'
import { postRpc } from '../support/wire.ts'

const FIXTURE = new URL('../../fixtures/ethereum', import.meta.url).pathname
const call = (method: string, params: unknown[] = [], id = 1) => ({ jsonrpc: '2.0', id, method, params })
const notAvailable = (method: string, id = 1) => ({ jsonrpc: '2.0', id, error: { code: -32601, message: `The method ${method} does not exist/is not available` } })

describe('a network that leaves out debug_* and txpool_content', () => {
  let server: RunningServer
  let head: string
  beforeAll(async () => {
    const chain = await loadFixture(FIXTURE, { name: 'ethereum' })
    const open = await loadFixture(FIXTURE, { name: 'open' })
    head = chain.head.hash
    const config = parseConfig(
      {
        networks: { ethereum: { fixture: FIXTURE, excludeMethods: ['debug_*', 'txpool_content'] }, open: { fixture: FIXTURE } },
        keys: [{ key: DEV_KEY, networks: ['ethereum', 'open'] }],
      },
      '/',
    )
    server = await startServer({ config, chains: { ethereum: chain, open }, clock: manualClock('2025-03-01T12:00:00Z'), port: 0, control: true })
  })
  afterAll(() => server.close())

  const post = (body: unknown, network = 'ethereum') => postRpc(server.origin, DEV_KEY, body as object, network)
  const spent = async (body: unknown, network = 'ethereum') => {
    const before = server.gateway.balance(DEV_KEY)!
    const answer = await post(body, network)
    return { status: answer.status, body: JSON.parse(answer.text) as unknown, credits: before - server.gateway.balance(DEV_KEY)! }
  }

  it('answers a left-out method as one not served: -32601 in the service words, HTTP 400, 160 credits', async () => {
    expect(await spent(call('debug_traceBlockByHash', [head]))).toEqual({ status: 400, body: notAvailable('debug_traceBlockByHash'), credits: 160 })
    expect(await spent(call('debug_getRawHeader', ['latest']))).toEqual({ status: 400, body: notAvailable('debug_getRawHeader'), credits: 160 })
    expect(await spent(call('txpool_content'))).toEqual({ status: 400, body: notAvailable('txpool_content'), credits: 160 })
    // The rest of the family is served at its price.
    expect(await spent(call('txpool_status'))).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 1, result: { pending: '0x0', queued: '0x0' } }, credits: 80 })
  })

  it('in a batch: the left-out call answered -32601 in its place, the batch 200, each charged its own', async () => {
    const answer = await spent([call('eth_chainId', [], 1), call('debug_getRawHeader', ['latest'], 2), call('txpool_content', [], 3)])
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual([{ jsonrpc: '2.0', id: 1, result: '0x1' }, notAvailable('debug_getRawHeader', 2), notAvailable('txpool_content', 3)])
    expect(answer.credits).toBe(80 + 5 + 160 + 160) // the envelope, eth_chainId, the two left out
  })

  it('another network serves them', async () => {
    const answer = await spent(call('debug_getRawHeader', ['latest']), 'open')
    expect(answer).toMatchObject({ status: 200, credits: 1000 })
    expect((answer.body as { result: string }).result).toMatch(/^0xf9/)
  })

  it('over WebSocket alike', async () => {
    const socket = await openSocket(server.wsUrlFor('ethereum'))
    try {
      expect(await socket.call(JSON.stringify(call('debug_getRawHeader', ['latest'])))).toEqual(notAvailable('debug_getRawHeader'))
      expect(await socket.call(JSON.stringify(call('eth_chainId')))).toEqual({ jsonrpc: '2.0', id: 1, result: '0x1' })
    } finally {
      await socket.close()
    }
  })

  it('a fork leaves out what its source leaves out', async () => {
    await server.control.fork({ name: 'ethfork', from: 'ethereum' })
    expect(await spent(call('debug_getRawHeader', ['latest']), 'ethfork')).toEqual({ status: 400, body: notAvailable('debug_getRawHeader'), credits: 160 })
  })

  it('the test endpoint (not the gateway: no key, no credits) serves them all', async () => {
    const before = server.gateway.balance(DEV_KEY)
    const res = await fetch(`${server.controlUrl}/rpc/ethereum`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([call('debug_getRawHeader', ['latest'], 1), call('txpool_content', [], 2)]),
    })
    expect(res.status).toBe(200)
    const [header, content] = (await res.json()) as { result: unknown }[]
    expect(header!.result).toMatch(/^0xf9/)
    expect(content!.result).toEqual({ pending: {}, queued: {} })
    expect(server.gateway.balance(DEV_KEY)).toBe(before)
  })

  it('the request log names the call and its price', async () => {
    server.control.clearRequestLog()
    await post(call('txpool_content'))
    expect(server.control.requestLog().map((e) => [e.status, e.credits, e.calls])).toEqual([[400, 160, [{ method: 'txpool_content', credits: 160, outcome: -32601 }]]])
  })
})

describe('excludeMethods', () => {
  const where = (excludeMethods: unknown) => () =>
    parseConfig({ networks: { ethereum: { fixture: 'x', excludeMethods } }, keys: [{ key: DEV_KEY, networks: ['ethereum'] }] }, '/')

  it('takes methods and families of the methods served', () => {
    expect(where(['debug_*', 'txpool_content', 'eth_getProof'])().networks.ethereum!.excludeMethods).toEqual(['debug_*', 'txpool_content', 'eth_getProof'])
  })

  it('refuses what would leave out nothing: a method not served, a family without a served method, another shape', () => {
    expect(where(['debug_traceTransactions'])).toThrow('networks.ethereum.excludeMethods[0]: "debug_traceTransactions" is not a method served')
    expect(where(['txpool_*', 'trace_*'])).toThrow('networks.ethereum.excludeMethods[1]: no method of the family "trace_*" is served')
    expect(where(['debug*'])).toThrow('networks.ethereum.excludeMethods[0]: not a method name or a family (<namespace>_*): "debug*"')
    expect(where('debug_*')).toThrow('networks.ethereum.excludeMethods: must be an array of strings, got "debug_*"')
  })

  it('createGateway takes them by network name, and refuses an unknown network', async () => {
    const chain = await loadFixture(FIXTURE, { name: 'ethereum' })
    expect(() => createGateway({ networks: { ethereum: chain }, keys: [], excludeMethods: { polygon: ['debug_*'] } })).toThrow(
      'excludeMethods.polygon: unknown network (served: ethereum)',
    )
    expect(createGateway({ networks: { ethereum: chain }, keys: [], excludeMethods: { ethereum: ['debug_*'] } }).networks.get('ethereum')!.excludedMethods!.has('debug_traceCall')).toBe(true)
  })
})
