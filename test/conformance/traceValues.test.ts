/**
 * The execution-apis fixtures of debug_trace* hold geth's own traces of the hive chain. Hive
 * checks only their schema (`speconly`); here every value is compared too: each struct log step
 * (pc, op, gas, cost, depth, stack, memory, storage, return data) as geth logged it.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { hasSharedFixtures, readHiveCases } from '../support/hive.ts'
import { hiveClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const METHODS = ['debug_traceBlockByHash', 'debug_traceBlockByNumber', 'debug_traceTransaction']

describe.skipIf(!hasSharedFixtures)('debug_trace* fixtures, every value as geth traced it', () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await hiveClient()
  })
  for (const c of hasSharedFixtures ? METHODS.flatMap(readHiveCases) : []) {
    it(`${c.method}/${c.name}`, async () => {
      for (const x of c.exchanges) {
        const expected = JSON.parse(x.response) as { result?: unknown; error?: { code: number } }
        const actual = await rpc.post(x.request)
        if (expected.error) expect(actual.error?.code).toBe(expected.error.code)
        else expect(actual.result).toStrictEqual(expected.result)
      }
    })
  }
})
