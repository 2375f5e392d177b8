/**
 * Two networks of one running server, reached from viem and from ethers in Node as a user's test
 * would: by the real-looking URL `http://<network>-mainnet.localhost:<port>/v3/<key>`, with the
 * documented helpers (no /etc/hosts, no Host header by hand).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { FetchRequest, JsonRpcProvider } from 'ethers'
import { createPublicClient, http } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localhostAgent, localhostFetch, localhostLookup } from '../../src/http/client.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { CHAINS, DEV_KEY, fakeRpc, keys } from '../gateway/helpers.ts'

let server: RunningServer

beforeAll(async () => {
  server = await startServer({ chains: CHAINS, keys: keys(), rpc: fakeRpc(), port: 0 })
})
afterAll(async () => {
  await server.close()
})

describe('startServer', () => {
  it('returns a URL per network, with the first key that has it', () => {
    expect(server.urls).toEqual({
      ethereum: `http://ethereum-mainnet.localhost:${server.port}/v3/${DEV_KEY}`,
      polygon: `http://polygon-mainnet.localhost:${server.port}/v3/${DEV_KEY}`,
      base: `http://base-mainnet.localhost:${server.port}/v3/${DEV_KEY}`,
    })
    expect(server.networks.map((n) => [n.name, n.chainId, n.headNumber])).toEqual([
      ['ethereum', 1n, 21n],
      ['polygon', 137n, 7n],
      ['base', 8453n, 3n],
    ])
    expect(server.origin).toBe(`http://127.0.0.1:${server.port}`)
  })
})

describe('viem', () => {
  it('reaches two networks through localhostFetch', async () => {
    const eth = createPublicClient({ transport: http(server.urls.ethereum, { fetchFn: localhostFetch }) })
    const polygon = createPublicClient({ transport: http(server.urls.polygon, { fetchFn: localhostFetch, batch: true }) })
    expect(await eth.getChainId()).toBe(1)
    expect(await eth.getBlockNumber({ cacheTime: 0 })).toBe(21n)
    const [chainId, head] = await Promise.all([polygon.getChainId(), polygon.getBlockNumber({ cacheTime: 0 })])
    expect([chainId, head]).toEqual([137, 7n])
  })

  it('sees the gateway refusals as HTTP errors', async () => {
    const bad = createPublicClient({
      transport: http(server.urls.ethereum!.replace(DEV_KEY, 'nope'), { fetchFn: localhostFetch, retryCount: 0 }),
    })
    await expect(bad.getChainId()).rejects.toMatchObject({ name: 'HttpRequestError', status: 401 })
  })
})

describe('ethers', () => {
  function provider(url: string): JsonRpcProvider {
    const req = new FetchRequest(url)
    req.getUrlFunc = FetchRequest.createGetUrlFunc({ agent: localhostAgent })
    return new JsonRpcProvider(req, undefined, { staticNetwork: true, batchMaxCount: 10 })
  }

  it('reaches two networks through localhostAgent, batching included', async () => {
    const eth = provider(server.urls.ethereum!)
    const base = provider(server.urls.base!)
    try {
      const [ethNet, ethHead, baseNet, baseHead] = await Promise.all([
        eth.getNetwork(),
        eth.getBlockNumber(),
        base.getNetwork(),
        base.getBlockNumber(),
      ])
      expect([ethNet.chainId, ethHead, baseNet.chainId, baseHead]).toEqual([1n, 21, 8453n, 3])
    } finally {
      eth.destroy()
      base.destroy()
    }
  })
})

describe('localhostLookup', () => {
  it('maps *.localhost to 127.0.0.1, in both callback forms', async () => {
    const one = await new Promise((resolve) =>
      localhostLookup('polygon-mainnet.localhost', {}, (_err, address, family) => resolve([address, family])),
    )
    expect(one).toEqual(['127.0.0.1', 4])
    const all = await new Promise((resolve) =>
      localhostLookup('a.b.localhost', { all: true }, (_err, addresses) => resolve(addresses)),
    )
    expect(all).toEqual([{ address: '127.0.0.1', family: 4 }])
  })
})

describe('localhostAgent', () => {
  it("drops an idle socket a second before the server's announced keep-alive timeout", async () => {
    // Node's own server announces `keep-alive: timeout=<keepAliveTimeout in s>`; at 2 s the agent
    // must let the socket go after 1 s, before the server closes it under a reused request.
    const other = createServer((_req, res) => res.end('ok'))
    other.keepAliveTimeout = 2_000
    let connections = 0
    other.on('connection', () => connections++)
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    const port = (other.address() as AddressInfo).port
    const url = `http://other.localhost:${port}/`
    try {
      const first = await localhostFetch(url)
      expect(first.headers.get('keep-alive')).toBe('timeout=2')
      expect(await first.text()).toBe('ok')
      const pooled = (): number => localhostAgent.freeSockets[`other.localhost:${port}:`]?.length ?? 0
      expect(pooled()).toBe(1)
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      expect(pooled()).toBe(0)
      expect(await (await localhostFetch(url)).text()).toBe('ok')
      expect(connections).toBe(2)
    } finally {
      other.closeAllConnections()
      await new Promise((resolve) => other.close(resolve))
    }
  })
})
