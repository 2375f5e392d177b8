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

/** The read methods real clients call (issue 5). */
const READ_METHODS = [
  'eth_call',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getBalance',
  'eth_getCode',
  'eth_getTransactionCount',
  'eth_feeHistory',
  'eth_getLogs',
  'eth_getBlockTransactionCountByNumber',
  'eth_getBlockTransactionCountByHash',
  'eth_syncing',
]

/**
 * Fixtures of READ_METHODS that are not run, each with the reason (docs/methods.md lists them). None:
 * every fixture of these methods passes; the pool-dependent ones belong to other methods.
 */
const EXCLUDED: Readonly<Record<string, string>> = {}

describe.skipIf(!hasSharedFixtures)('execution-apis conformance (hive rules)', () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await hiveClient()
  })

  const cases = hasSharedFixtures ? METHODS.flatMap(readHiveCases) : []
  it('covers the 22 fixtures of the six methods', () => {
    expect(cases).toHaveLength(22)
  })
  const readCases = hasSharedFixtures ? READ_METHODS.flatMap(readHiveCases) : []
  const runReadCases = readCases.filter((c) => !Object.hasOwn(EXCLUDED, `${c.method}/${c.name}`))
  it(`covers the ${readCases.length} fixtures of the read methods, ${Object.keys(EXCLUDED).length} excluded`, () => {
    expect(readCases).toHaveLength(65)
    expect(runReadCases).toHaveLength(readCases.length - Object.keys(EXCLUDED).length)
  })
  for (const c of [...cases, ...runReadCases]) {
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
