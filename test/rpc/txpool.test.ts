/**
 * txpool_content, txpool_contentFrom, txpool_status and txpool_inspect over the double's pool, on
 * the default ethereum fixture in manual mining mode: a sender's transactions that follow its state
 * nonce without a gap are pending, the others queued, as geth splits them; filling the gap moves
 * them, mining empties the pool. On the hive chain, a blob transaction counts in the status but is
 * not listed, as geth's blob pool answers.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { toChecksumAddress } from '@ethereumjs/util'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Chain, ChainSnapshot } from '../../src/chain/chain.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { account, signed1559, signedLegacy } from '../chain/txSigning.ts'
import { hasSharedFixtures, HIVE_TESTS } from '../support/hive.ts'
import { clientFor, hiveClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const FIXTURE = new URL('../../fixtures/ethereum', import.meta.url).pathname
const alice = account('alice').address
const bob = account('bob').address
type Tx = { hash: string; nonce: string; blockHash: null; gasPrice: string }
type Content = { pending: Record<string, Record<string, Tx>>; queued: Record<string, Record<string, Tx>> }

describe('txpool_* on the default fixture, manual mining', () => {
  let chain: Chain
  let rpc: RpcClient
  let start: ChainSnapshot
  let nonce: bigint
  beforeAll(async () => {
    chain = await loadFixture(FIXTURE, { name: 'ethereum', clock: { now: () => 0 } })
    chain.setMiningMode('manual')
    rpc = clientFor(chain)
    start = chain.snapshot()
  })
  beforeEach(async () => {
    await chain.restore(start)
    nonce = BigInt((await rpc.call('eth_getTransactionCount', [alice])).result as string)
  })
  const result = (method: string, params: unknown[] = []) => rpc.result(method, params)
  const send = async (raw: string) => (await result('eth_sendRawTransaction', [raw])) as string

  it('is empty with nothing pooled', async () => {
    expect(await result('txpool_content')).toEqual({ pending: {}, queued: {} })
    expect(await result('txpool_status')).toEqual({ pending: '0x0', queued: '0x0' })
    expect(await result('txpool_inspect')).toEqual({ pending: {}, queued: {} })
    expect(await result('txpool_contentFrom', [alice])).toEqual({ pending: {}, queued: {} })
  })

  it('splits pending from queued by the nonce gap, and moves them when the gap fills', async () => {
    const first = await send(signed1559(chain, 'alice', { nonce, to: bob, value: 1n }))
    const third = await send(signed1559(chain, 'alice', { nonce: nonce + 2n, to: bob, value: 3n }))
    const bobs = await send(signedLegacy(chain, 'bob', { nonce: BigInt((await result('eth_getTransactionCount', [bob])) as string), to: alice, value: 7n }))
    const A = toChecksumAddress(alice)
    const B = toChecksumAddress(bob)
    let content = (await result('txpool_content')) as Content
    expect(Object.keys(content.pending).sort()).toEqual([A, B].sort())
    expect(Object.keys(content.pending[A]!)).toEqual([nonce.toString()])
    expect(content.pending[A]![nonce.toString()]).toEqual(await result('eth_getTransactionByHash', [first]))
    expect(content.pending[A]![nonce.toString()]).toMatchObject({ hash: first, blockHash: null, blockNumber: null, transactionIndex: null })
    expect(content.queued).toEqual({ [A]: { [(nonce + 2n).toString()]: expect.objectContaining({ hash: third }) } })
    expect(Object.values(content.pending[B]!).map((t) => t.hash)).toEqual([bobs])
    expect(await result('txpool_status')).toEqual({ pending: '0x2', queued: '0x1' })
    expect(await result('txpool_contentFrom', [alice])).toEqual({ pending: content.pending[A], queued: content.queued[A] })

    const inspect = (await result('txpool_inspect')) as { pending: Record<string, Record<string, string>> }
    expect(inspect.pending[A]![nonce.toString()]).toBe(`${toChecksumAddress(bob)}: 1 wei + 21000 gas × 10000000000 wei`)

    await send(signed1559(chain, 'alice', { nonce: nonce + 1n, to: bob, value: 2n }))
    content = (await result('txpool_content')) as Content
    expect(Object.keys(content.pending[A]!).sort()).toEqual([0n, 1n, 2n].map((d) => (nonce + d).toString()).sort())
    expect(content.queued).toEqual({})
    expect(await result('txpool_status')).toEqual({ pending: '0x4', queued: '0x0' })

    await chain.mine()
    expect(await result('txpool_status')).toEqual({ pending: '0x0', queued: '0x0' })
  })

  it('refuses a bad address', async () => {
    expect((await rpc.call('txpool_contentFrom', ['0x12'])).error).toEqual({ code: -32602, message: 'invalid argument 0: hex string has length 2, want 40 for common.Address' })
  })
})

describe.skipIf(!hasSharedFixtures)('txpool_* with a blob transaction (hive chain)', () => {
  it('counts it in txpool_status, lists it nowhere, as geth’s blob pool does', async () => {
    const fork = await (await hiveClient()).chain.fork('hive')
    fork.setMiningMode('manual')
    const rpc = clientFor(fork)
    const line = readFileSync(join(HIVE_TESTS, 'eth_sendRawTransaction/send-blob-tx.io'), 'utf8').split('\n').find((l) => l.startsWith('>> '))!
    const sent = await rpc.post(line.slice(3))
    expect(sent.error).toBeUndefined()
    expect((await rpc.call('txpool_status')).result).toEqual({ pending: '0x1', queued: '0x0' })
    expect((await rpc.call('txpool_content')).result).toEqual({ pending: {}, queued: {} })
    expect(fork.pending).toHaveLength(1)
  })
})
