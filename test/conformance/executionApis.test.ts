/**
 * The execution-apis rpc-compat fixtures of our methods, replayed through the HTTP server on the
 * hive test chain, and judged by hive's rules.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { Chain } from '../../src/chain/chain.ts'
import { loadFixture } from '../../src/chain/loadFixture.ts'
import { execute, parseMessage } from '../../src/rpc/dispatch.ts'
import { hasSharedFixtures, hiveComparable, HIVE_TESTS, readHiveCases } from '../support/hive.ts'

const METHODS = [
  'eth_blockNumber',
  'eth_chainId',
  'eth_getStorageAt',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getBlockReceipts',
  'eth_estimateGas',
]

describe.skipIf(!hasSharedFixtures)('execution-apis conformance (hive rules)', () => {
  let chain: Chain
  beforeAll(async () => {
    chain = await loadFixture(HIVE_TESTS, { name: 'hive' })
  })

  async function send(body: string): Promise<Record<string, unknown>> {
    const parsed = parseMessage(JSON.parse(body))
    if (!parsed.ok) throw new Error('fixture request is invalid')
    return JSON.parse(JSON.stringify(await execute({ chain }, parsed.request)))
  }

  const cases = hasSharedFixtures ? METHODS.flatMap(readHiveCases) : []
  it('covers the 22 fixtures of the six methods', () => {
    expect(cases).toHaveLength(22)
  })
  for (const c of cases) {
    it(`${c.method}/${c.name}`, async () => {
      for (const x of c.exchanges) {
        const actual = await send(x.request)
        const { expected, actual: got } = hiveComparable(JSON.parse(x.response), actual, c.speconly)
        expect(got).toStrictEqual(expected)
      }
    })
  }
})

it.runIf(!hasSharedFixtures)('execution-apis conformance: skipped, ../shared/conformance is absent', () => {
  expect(hasSharedFixtures).toBe(false)
})
