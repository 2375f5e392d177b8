/**
 * Per-network ports through real sockets: each network on a port of its own answers whatever the
 * Host, a Host naming another network is refused there, and every gateway rule holds as on the
 * shared port (keys, networks enabled per key, credits, faults, the request log).
 */
import { connect, createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { assignNetworkPorts } from '../../src/http/networkPorts.ts'
import { CHAINS, DEV_KEY, fakeRpc, keys, manualClock } from '../gateway/helpers.ts'
import { send } from '../support/wire.ts'

const ETH_ONLY = 'ethonlyethonlyethonlyethonly0000'
const call = (method: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] })

describe('assignNetworkPorts', () => {
  const names = ['ethereum', 'polygon', 'base']
  it('a number: consecutive ports in the order served; 0: each a free one', () => {
    expect([...assignNetworkPorts(names, 9000)]).toEqual([['ethereum', 9000], ['polygon', 9001], ['base', 9002]])
    expect([...assignNetworkPorts(names, 0)]).toEqual([['ethereum', 0], ['polygon', 0], ['base', 0]])
  })
  it('an object, else the config: only the networks named', () => {
    expect([...assignNetworkPorts(names, { polygon: 9101 }, { ethereum: 9100 })]).toEqual([['polygon', 9101]])
    expect([...assignNetworkPorts(names, undefined, { ethereum: 9100, base: undefined })]).toEqual([['ethereum', 9100]])
    expect(assignNetworkPorts(names, undefined).size).toBe(0)
  })
  it('refuses unknown networks, bad ports, two networks on one port, a range past 65535', () => {
    expect(() => assignNetworkPorts(names, { optimism: 9000 })).toThrow('networkPorts: no network "optimism" is served (served: ethereum, polygon, base)')
    expect(() => assignNetworkPorts(names, { ethereum: 70000 })).toThrow('networkPorts.ethereum: expected a port number 0-65535, got 70000')
    expect(() => assignNetworkPorts(names, -1)).toThrow('networkPorts: expected a port number 0-65535, got -1')
    expect(() => assignNetworkPorts(names, { ethereum: 9000, base: 9000 })).toThrow('networkPorts: ethereum and base both on port 9000')
    expect(() => assignNetworkPorts(names, 65534)).toThrow('networkPorts: 3 networks from port 65534 go past 65535')
  })
})

describe('a server with per-network ports', () => {
  let server: RunningServer
  const own = (network: string) => `http://127.0.0.1:${server.networks.find((n) => n.name === network)!.port}`
  beforeAll(async () => {
    server = await startServer({
      chains: CHAINS,
      keys: keys({}, [{ key: ETH_ONLY, networks: ['ethereum'] }]),
      rpc: fakeRpc(),
      clock: manualClock('2025-03-01T12:00:00Z'),
      port: 0,
      networkPorts: 0,
      control: true,
    })
  })
  afterAll(async () => {
    await server?.close()
  })

  it('lists each network’s own port and URL beside the host-routed ones', () => {
    const ports = server.networks.map((n) => n.port)
    expect(new Set([server.port, ...ports]).size).toBe(4)
    for (const n of server.networks) {
      expect(n.portUrl).toBe(`http://127.0.0.1:${n.port}/v3/${DEV_KEY}`)
      expect(n.url).toBe(`http://${n.name}-mainnet.localhost:${server.port}/v3/${DEV_KEY}`)
    }
    expect(server.portUrls).toEqual(Object.fromEntries(server.networks.map((n) => [n.name, n.portUrl])))
  })

  it('a port is its network whatever the Host', async () => {
    for (const [network, chainId] of [['ethereum', '0x1'], ['polygon', '0x89'], ['base', '0x2105']]) {
      const port = new URL(own(network!)).port
      for (const host of [`127.0.0.1:${port}`, 'localhost', 'example.org:80', `${network}-mainnet.localhost`, `${network!.toUpperCase()}-MAINNET.LOCALHOST.`]) {
        const r = await send(own(network!), `/v3/${DEV_KEY}`, call('eth_chainId'), { host })
        expect([r.status, r.text], `${network} with Host ${host}`).toEqual([200, `{"jsonrpc":"2.0","id":1,"result":"${chainId}"}`])
      }
    }
  })

  it('a Host naming another network is a 404 there, saying which network the port serves', async () => {
    for (const host of ['polygon-mainnet.localhost', 'optimism-mainnet.localhost:8545']) {
      const r = await send(own('ethereum'), `/v3/${DEV_KEY}`, call('eth_chainId'), { host })
      expect(r.status).toBe(404)
      expect(r.headers['content-type']).toBe('text/plain; charset=utf-8')
      expect(r.text).toBe(`this port serves network "ethereum" only (host ethereum-mainnet.localhost); host "${host.replace(/:\d+$/, '')}" names another network\n`)
    }
  })

  it('the shared port still routes by Host', async () => {
    const r = await send(server.origin, `/v3/${DEV_KEY}`, call('eth_chainId'), { host: 'base-mainnet.localhost' })
    expect(r.text).toBe('{"jsonrpc":"2.0","id":1,"result":"0x2105"}')
    // A Host naming no network is the first network served (the plain URL).
    expect((await send(server.origin, `/v3/${DEV_KEY}`, call('eth_chainId'), { host: `127.0.0.1:${server.port}` })).text).toBe('{"jsonrpc":"2.0","id":1,"result":"0x1"}')
  })

  it('keeps every gateway rule: keys, networks per key, credits, faults, the request log', async () => {
    const unknown = await send(own('polygon'), '/v3/nosuchkey', call('eth_chainId'), { host: '127.0.0.1' })
    expect([unknown.status, unknown.text]).toEqual([401, 'invalid project id\n'])
    const notEnabled = await send(own('polygon'), `/v3/${ETH_ONLY}`, call('eth_chainId'), { host: '127.0.0.1' })
    expect([notEnabled.status, notEnabled.text]).toEqual([401, 'project ID does not have access to this network\n'])
    expect((await send(own('ethereum'), `/v3/${ETH_ONLY}`, call('eth_chainId'), { host: '127.0.0.1' })).status).toBe(200)

    const before = server.gateway.balance(DEV_KEY)!
    await send(own('base'), `/v3/${DEV_KEY}`, call('eth_blockNumber'), { host: '127.0.0.1' })
    expect(server.gateway.balance(DEV_KEY)).toBe(before - 80)
    const last = server.control.requestLog().at(-1)!
    expect(last).toMatchObject({ key: DEV_KEY, network: 'base', status: 200, credits: 80 })

    server.control.addFault({ kind: 'serverError', status: 500, network: 'polygon', times: 1 })
    expect((await send(own('ethereum'), `/v3/${DEV_KEY}`, call('eth_chainId'), { host: '127.0.0.1' })).status).toBe(200)
    const faulted = await send(own('polygon'), `/v3/${DEV_KEY}`, call('eth_chainId'), { host: '127.0.0.1' })
    expect(faulted.status).toBe(500)
    expect(server.control.requestLog().at(-1)).toMatchObject({ network: 'polygon', status: 500, credits: 0 })
  })

  it('answers the control routes and the gateway’s other refusals on every port', async () => {
    const networks = await send(own('polygon'), '/_double/networks', undefined, { method: 'GET', host: '127.0.0.1' })
    expect(networks.status).toBe(200)
    expect((JSON.parse(networks.text) as { networks: { name: string }[] }).networks.map((n) => n.name)).toEqual(['ethereum', 'polygon', 'base'])
    const get = await send(own('polygon'), `/v3/${DEV_KEY}`, undefined, { method: 'GET', host: '127.0.0.1' })
    expect([get.status, get.headers.allow]).toEqual([405, 'POST, OPTIONS'])
    expect((await send(own('polygon'), '/nowhere', '{}', { host: '127.0.0.1' })).text).toBe('404 page not found\n')
  })
})

describe('starting and stopping per-network ports', () => {
  it('refuses a port already taken, naming the network, and leaves nothing listening', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const port = (taken.address() as AddressInfo).port
    try {
      await expect(startServer({ chains: CHAINS, keys: keys(), rpc: fakeRpc(), port: 0, networkPorts: { polygon: port } })).rejects.toThrow(
        `network polygon: cannot listen on 127.0.0.1:${port} (EADDRINUSE)`,
      )
    } finally {
      taken.close()
    }
  })

  it('close() stops every port', async () => {
    const server = await startServer({ chains: CHAINS, keys: keys(), rpc: fakeRpc(), port: 0, networkPorts: 0 })
    const ethereum = `http://127.0.0.1:${server.networks[0]!.port}`
    expect((await send(ethereum, `/v3/${DEV_KEY}`, call('eth_chainId'), { host: '127.0.0.1' })).status).toBe(200)
    await server.close()
    for (const port of [server.port, ...server.networks.map((n) => n.port!)]) {
      const refused = await new Promise<string | undefined>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.destroy()
          resolve(undefined)
        })
        socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code))
      })
      expect(refused, `port ${port}`).toBe('ECONNREFUSED')
    }
  })
})
