// The spec of the README's vitest recipe, run by test/e2e/package.test.ts in a fresh project
// where the packed tarball is installed, beside the recipe's own files (vitest.config.ts,
// test/rpcUrl.ts and test/head.spec.ts, taken from docs/test-runners.md as written). One run has
// GATEWAY_DOUBLE_ISOLATE=ethereum and GATEWAY_DOUBLE_NETWORK_PORTS=0, the other the page's
// test/globalSetup.ts (isolate: ['ethereum'], networkPorts: 0) listed instead.
import { createPublicClient, http } from 'viem'
import { localhostFetch } from 'gateway-double'
import { gatewayDouble } from 'gateway-double/testing/vitest'
import { describe, expect, it } from 'vitest'

const { urls, devKey, origin, portUrls } = gatewayDouble()

describe('gateway-double from the installed package', () => {
  it('serves the default networks from the globalSetup', async () => {
    expect(Object.keys(urls).sort()).toEqual(['base', 'ethereum', 'polygon'])
    expect(devKey).toBe('deadbeefdeadbeefdeadbeefdeadbeef')
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const client = createPublicClient({ transport: http(urls.base, { fetchFn: localhostFetch }) })
    expect(await client.getChainId()).toBe(8453)
  })

  it('RPC_URL, set by the setupFile, is this worker’s own fork of ethereum', async () => {
    expect(process.env.RPC_URL).toMatch(/^http:\/\/ethereum-w\d+-mainnet\.localhost:\d+\/v3\//)
    const client = createPublicClient({ transport: http(process.env.RPC_URL, { fetchFn: localhostFetch }) })
    expect(await client.getChainId()).toBe(1)
    expect(await client.getBlockNumber()).toBe(6n)
  })

  it('each network also answers on its own port, to a plain fetch whatever the Host', async () => {
    expect(Object.keys(portUrls).sort()).toEqual(['base', 'ethereum', 'polygon'])
    const res = await fetch(portUrls.polygon!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    })
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x89' })
  })
})
