/** A JSON-RPC client for tests, on a chain loaded once per test file. */
import type { Chain } from '../../src/chain/chain.ts'
import { loadFixture } from '../../src/chain/loadFixture.ts'
import { execute, parseMessage } from '../../src/rpc/dispatch.ts'
import { HIVE_TESTS } from './hive.ts'

export interface RpcResponseJson {
  jsonrpc: '2.0'
  id: unknown
  result?: unknown
  error?: { code: number; message: string; data?: unknown }
}

export interface RpcClient {
  chain: Chain
  call(method: string, params?: unknown[]): Promise<RpcResponseJson>
}

export function clientFor(chain: Chain): RpcClient {
  let id = 0
  return {
    chain,
    async call(method, params = []) {
      const parsed = parseMessage({ jsonrpc: '2.0', id: ++id, method, params })
      if (!parsed.ok) throw new Error(`invalid request for ${method}`)
      return JSON.parse(JSON.stringify(await execute({ chain }, parsed.request))) as RpcResponseJson
    },
  }
}

export async function hiveClient(): Promise<RpcClient> {
  return clientFor(await loadFixture(HIVE_TESTS, { name: 'hive' }))
}
