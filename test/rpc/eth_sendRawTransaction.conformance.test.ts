/**
 * The execution-apis rpc-compat fixtures of eth_sendRawTransaction, replayed through the HTTP
 * server on the hive test chain under hive's rules. Each runs on its own fork of the chain, so a
 * fixture's transaction never meets another's.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { Chain } from '../../src/chain/chain.ts'
import { hasSharedFixtures, hiveComparable, readHiveCases } from '../support/hive.ts'
import { clientFor, hiveClient } from '../support/rpcClient.ts'

const method = 'eth_sendRawTransaction'

describe.skipIf(!hasSharedFixtures)(`${method}: execution-apis conformance (hive rules)`, () => {
  let hive: Chain
  beforeAll(async () => {
    hive = (await hiveClient()).chain
  })
  const cases = hasSharedFixtures ? readHiveCases(method) : []
  for (const c of cases) {
    it(`${c.method}/${c.name}`, async () => {
      const fork = await hive.fork('hive')
      const rpc = clientFor(fork)
      for (const x of c.exchanges) {
        const actual = await rpc.post(x.request)
        const { expected, actual: got } = hiveComparable(JSON.parse(x.response), actual as unknown as Record<string, unknown>, c.speconly)
        expect(got).toStrictEqual(expected)
        // Beyond the fixture: the transaction was mined at once, or (its nonce ahead of the
        // sender's, as hive sends these fixtures in one run) waits in the pool as geth queues it.
        const hash = (actual as { result: string }).result
        const receipt = (await rpc.call('eth_getTransactionReceipt', [hash])).result as { blockNumber: string } | null
        if (receipt) expect(BigInt(receipt.blockNumber)).toBe(hive.head.number + 1n)
        else expect(fork.pending.map((p) => p.hash)).toEqual([hash])
      }
    })
  }
})
