/**
 * The execution-apis rpc-compat fixtures of our methods, replayed through the HTTP server on the
 * hive test chain, and judged by hive's rules.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { hasSharedFixtures, hiveComparable, readHiveCases } from '../support/hive.ts'
import { hiveClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const METHODS = [
  'eth_blockNumber',
  'eth_chainId',
  'eth_getStorageAt',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getBlockReceipts',
  'eth_estimateGas',
]

describe.skipIf(!hasSharedFixtures)('execution-apis conformance (hive rules)', () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await hiveClient()
  })

  const cases = hasSharedFixtures ? METHODS.flatMap(readHiveCases) : []
  it('covers the 22 fixtures of the six methods', () => {
    expect(cases).toHaveLength(22)
  })
  for (const c of cases) {
    it(`${c.method}/${c.name}`, async () => {
      for (const x of c.exchanges) {
        const actual = await rpc.post(x.request)
        const { expected, actual: got } = hiveComparable(JSON.parse(x.response), actual as unknown as Record<string, unknown>, c.speconly)
        expect(got).toStrictEqual(expected)
      }
    })
  }
})

it.runIf(!hasSharedFixtures)('execution-apis conformance: skipped, ../shared/conformance is absent', () => {
  expect(hasSharedFixtures).toBe(false)
})
