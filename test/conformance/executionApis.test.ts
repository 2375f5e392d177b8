/**
 * The execution-apis rpc-compat suite, whole: every fixture of every method folder of
 * ../shared/conformance/execution-apis/tests, replayed through the HTTP server on the hive test
 * chain and judged by hive's rules (test/support/hive.ts). A folder is run when the double serves
 * its method; what is not run is listed below with the reason, and a test keeps that list exact.
 *
 * Fixtures that change the chain (eth_sendRawTransaction) each run on a fork of their own. The
 * txpool_* fixtures read the pool a hive run leaves behind (the transactions the earlier fixtures
 * sent, none mined: hive's node has no consensus client): they run on a fork in manual mining mode
 * holding those transactions.
 */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Chain } from '../../src/chain/chain.ts'
import { isSupportedMethod } from '../../src/rpc/dispatch.ts'
import { hasSharedFixtures, HIVE_TESTS, hiveComparable, readHiveCases } from '../support/hive.ts'
import type { HiveCase } from '../support/hive.ts'
import { clientFor, hiveClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

/** Folders never run, and why. */
const SKIPPED: Readonly<Record<string, string>> = {
  testing_buildBlockV1: 'engine testing (builds a payload for a consensus client): not a method the hosted service serves',
}

/**
 * Methods of the suite the double does not serve yet (issue 14 builds them). A folder here whose
 * method the double serves fails the listing test: take it off the list, and its fixtures run.
 */
const NOT_SERVED_YET: readonly string[] = []

/** Methods whose fixtures change the chain: each fixture on a fork of its own. */
const MUTATING = new Set(['eth_sendRawTransaction'])

/** Methods whose fixtures read the pool a hive run leaves: on a fork holding it. */
const POOL_READERS = new Set(['txpool_content', 'txpool_contentFrom', 'txpool_status'])

/** The fixtures whose sends hive's run leaves in the pool, in the order hive runs them (by folder, then name). */
const POOL_SENDERS = ['eth_sendRawTransaction', 'testing_buildBlockV1']

const methods = hasSharedFixtures
  ? readdirSync(HIVE_TESTS)
      .filter((name) => statSync(join(HIVE_TESTS, name)).isDirectory())
      .sort()
  : []
const total = methods.reduce((n, m) => n + readHiveCases(m).length, 0)
const run = methods.filter((m) => !Object.hasOwn(SKIPPED, m) && isSupportedMethod(m))
const notRun = methods.filter((m) => !run.includes(m))

async function replay(rpc: RpcClient, c: HiveCase): Promise<void> {
  for (const x of c.exchanges) {
    const actual = await rpc.post(x.request)
    const { expected, actual: got } = hiveComparable(JSON.parse(x.response), actual as unknown as Record<string, unknown>, c.speconly)
    expect(got).toStrictEqual(expected)
  }
}

/** The raw transactions hive's run has sent (and not mined) by the time it reaches the txpool fixtures. */
function pooledByHive(): string[] {
  const raws: string[] = []
  for (const method of POOL_SENDERS) {
    for (const c of readHiveCases(method)) {
      for (const x of c.exchanges) {
        const request = JSON.parse(x.request) as { method: string; params: string[] }
        if (request.method === 'eth_sendRawTransaction') raws.push(request.params[0]!)
      }
    }
  }
  return raws
}

describe.skipIf(!hasSharedFixtures)('execution-apis conformance, every fixture (hive rules)', () => {
  let hive: RpcClient
  let pooled: RpcClient
  beforeAll(async () => {
    hive = await hiveClient()
    const fork: Chain = await hive.chain.fork('hive')
    fork.setMiningMode('manual')
    pooled = clientFor(fork)
    for (const raw of pooledByHive()) {
      const sent = await pooled.call('eth_sendRawTransaction', [raw])
      expect(sent.error, `hive's pool: ${raw.slice(0, 20)}...`).toBeUndefined()
    }
  })

  it(`runs ${run.length} of ${methods.length} method folders; skips only those listed, each with its reason`, () => {
    expect(total).toBe(232)
    const unlisted = notRun.filter((m) => !Object.hasOwn(SKIPPED, m) && !NOT_SERVED_YET.includes(m))
    expect(unlisted, 'methods of the suite neither served nor listed as skipped').toEqual([])
    const nowServed = NOT_SERVED_YET.filter((m) => isSupportedMethod(m))
    expect(nowServed, 'served now: take them off NOT_SERVED_YET').toEqual([])
  })

  for (const method of notRun) {
    const reason = SKIPPED[method] ?? 'not served by the double yet'
    for (const c of readHiveCases(method)) it.skip(`${method}/${c.name} (skipped: ${reason})`, () => {})
  }

  for (const method of run) {
    for (const c of readHiveCases(method)) {
      it(`${method}/${c.name}`, async () => {
        if (MUTATING.has(method)) await replay(clientFor(await hive.chain.fork('hive')), c)
        else await replay(POOL_READERS.has(method) ? pooled : hive, c)
      })
    }
  }
})

it.runIf(!hasSharedFixtures)('execution-apis conformance: skipped, ../shared/conformance is absent', () => {
  expect(hasSharedFixtures).toBe(false)
})
