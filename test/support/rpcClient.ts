/**
 * A JSON-RPC client for tests that goes the user's way: over HTTP (supertest) into a fresh app,
 * `POST /v3/<key>` with the network's Host, for one chain loaded once per test file.
 */
import request from 'supertest'
import type { Chain } from '../../src/chain/chain.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { createApp } from '../../src/http/app.ts'
import type { GatewayApp } from '../../src/http/app.ts'
import { HIVE_TESTS } from './hive.ts'

export const TEST_KEY = 'aaaabbbbccccddddeeeeffff00001111'

export interface RpcResponseJson {
  jsonrpc: '2.0'
  id: unknown
  result?: unknown
  error?: { code: number; message: string; data?: unknown }
}

export interface RpcClient {
  chain: Chain
  app: GatewayApp
  /** Posts one request; resolves to the parsed response body. */
  call(method: string, params?: unknown[]): Promise<RpcResponseJson>
  /** Posts one request; resolves to its result, or throws naming the method and the error object. */
  result<T = unknown>(method: string, params?: unknown[]): Promise<T>
  /** Posts a raw body; resolves to the parsed response body. */
  post(body: string): Promise<RpcResponseJson>
}

export function clientFor(chain: Chain): RpcClient {
  const app = createApp({
    networks: { [chain.name]: chain },
    keys: [{ key: TEST_KEY, networks: [chain.name], dailyCredits: 1_000_000_000 }],
  })
  let id = 0
  const post = async (body: string): Promise<RpcResponseJson> => {
    const res = await request(app)
      .post(`/v3/${TEST_KEY}`)
      .set('Host', `${chain.name}-mainnet.localhost`)
      .set('Content-Type', 'application/json')
      .send(body)
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.text}`)
    return JSON.parse(res.text) as RpcResponseJson
  }
  const call = (method: string, params: unknown[] = []) => post(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }))
  return {
    chain,
    app,
    post,
    call,
    result: async <T,>(method: string, params: unknown[] = []): Promise<T> => {
      const res = await call(method, params)
      if (res.error) throw new Error(`${method}: ${JSON.stringify(res.error)}`)
      return res.result as T
    },
  }
}

export async function hiveClient(): Promise<RpcClient> {
  return clientFor(await loadFixture(HIVE_TESTS, { name: 'hive' }))
}

/** A client on one of the default fixture chains in fixtures/. */
export async function fixtureClient(network: 'ethereum' | 'polygon' | 'base'): Promise<RpcClient> {
  return clientFor(await loadFixture(new URL(`../../fixtures/${network}`, import.meta.url).pathname, { name: network }))
}
