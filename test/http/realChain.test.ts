/**
 * The gateway in front of the real method table and a real fixture chain (the execution-apis
 * chain in ../shared): every request of the five methods' conformance cases answered through
 * HTTP exactly as `execute` answers it, and charged exactly its price.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createPublicClient, http } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Chain } from '../../src/chain/chain.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { methodCost } from '../../src/gateway/credits.ts'
import { localhostFetch } from '../../src/http/client.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { execute, parseMessage } from '../../src/rpc/dispatch.ts'
import { HIVE_TESTS, hasSharedFixtures } from '../support/hive.ts'

const KEY = '0123456789abcdef0123456789abcdef'
const METHODS = ['eth_blockNumber', 'eth_getStorageAt', 'eth_getTransactionByBlockNumberAndIndex', 'eth_getBlockReceipts', 'eth_estimateGas']

function requestsOf(method: string): string[] {
  const dir = join(HIVE_TESTS, method)
  return readdirSync(dir)
    .filter((f) => f.endsWith('.io'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter((l) => l.startsWith('>> '))
    .map((l) => l.slice(3))
}

describe.runIf(hasSharedFixtures)('real chain behind the gateway', () => {
  let chain: Chain
  let server: RunningServer

  beforeAll(async () => {
    chain = await loadFixture(HIVE_TESTS, { name: 'ethereum' })
    server = await startServer({
      chains: { ethereum: chain, sepolia: chain },
      keys: [{ key: KEY, networks: ['ethereum', 'sepolia'] }],
      config: { serviceHost: 'localhost', networks: {}, keys: [] },
      port: 0,
    })
  })
  afterAll(async () => {
    await server?.close()
  })

  it.each(METHODS)('%s: HTTP answers as execute does, charged its price', async (method) => {
    for (const body of requestsOf(method)) {
      const before = server.gateway.balance(KEY)!
      const res = await localhostFetch(server.urls.ethereum!, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
      const parsed = parseMessage(JSON.parse(body))
      if (!parsed.ok) throw new Error(`bad fixture request ${body}`)
      const expected = await execute({ chain }, parsed.request)
      expect(res.status, body).toBe(200)
      expect(await res.text(), body).toBe(JSON.stringify(expected))
      expect(before - server.gateway.balance(KEY)!, body).toBe(methodCost(method))
    }
  })

  it('viem reads the head from two networks of one server', async () => {
    for (const url of [server.urls.ethereum!, server.urls.sepolia!]) {
      const client = createPublicClient({ transport: http(url, { fetchFn: localhostFetch }) })
      expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(chain.head.number)
      expect(BigInt(await client.getChainId())).toBe(chain.chainId)
    }
  })

  it('an unknown method of the real table: 400, -32601, 160 credits', async () => {
    const before = server.gateway.balance(KEY)!
    const res = await localhostFetch(server.urls.ethereum!, {
      method: 'POST',
      body: '{"jsonrpc":"2.0","id":3,"method":"web3_sha4","params":[]}',
    })
    expect(res.status).toBe(400)
    expect(await res.text()).toBe('{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"The method web3_sha4 does not exist/is not available"}}')
    expect(before - server.gateway.balance(KEY)!).toBe(160)
  })
})
