/**
 * The reorg control through the wire (`POST /_double/networks/:name/reorg`, createApp with the
 * control routes, the ethereum fixture in manual mining): what reads see after it, what filters
 * hand over (removed logs, the new branch's hashes, the transactions back in the pool), and the
 * refusals, each naming its field.
 */
import request from 'supertest'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Chain } from '../../src/chain/chain.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { createApp } from '../../src/http/app.ts'
import type { GatewayApp } from '../../src/http/app.ts'
import { account, signed1559 } from '../chain/txSigning.ts'

const FIXTURE = new URL('../../fixtures/ethereum', import.meta.url).pathname
const KEY = '0123456789abcdef0123456789abcdef'
const COUNTER = '0x00000000000000000000000000000000c0c0c0c0'
const INCREMENT = '0xd09de08a'

describe('POST /_double/networks/:name/reorg', () => {
  let app: GatewayApp
  let chain: Chain
  let snapshot: string
  const rpc = async (method: string, params: unknown[] = []) => {
    const res = await request(app).post(`/v3/${KEY}`).set('Host', 'ethereum-mainnet.localhost').send({ jsonrpc: '2.0', id: 1, method, params })
    expect(res.status).toBe(200)
    expect(res.body.error, `${method}: ${JSON.stringify(res.body.error)}`).toBeUndefined()
    return res.body.result
  }
  const reorg = (body: unknown, network = 'ethereum') => request(app).post(`/_double/networks/${network}/reorg`).send(body as object)
  const increment = async (from = 'bob') => {
    const nonce = BigInt(await rpc('eth_getTransactionCount', [account(from).address, 'pending']))
    return rpc('eth_sendRawTransaction', [signed1559(chain, from, { nonce, to: COUNTER, data: INCREMENT, gasLimit: 100_000n })]) as Promise<string>
  }
  const mine = async () => (await request(app).post('/_double/networks/ethereum/mine')).body as { number: number; hash: string }

  beforeAll(async () => {
    chain = await loadFixture(FIXTURE, { name: 'ethereum', miningMode: 'manual' })
    app = createApp({ networks: { ethereum: chain }, keys: [{ key: KEY, networks: ['ethereum'] }], clock: { now: () => Date.parse('2030-01-01T00:00:00Z') }, control: true })
    snapshot = (await request(app).post('/_double/snapshots').send({})).body.id
  })
  beforeEach(async () => {
    await request(app).post(`/_double/snapshots/${snapshot}/restore`)
  })

  it('replaces the head with the same transactions: reads move to the new block, filters get the removed log, then the new one, and the new hash', async () => {
    const logs = await rpc('eth_newFilter', [{ address: COUNTER }])
    const blocks = await rpc('eth_newBlockFilter')
    const pending = await rpc('eth_newPendingTransactionFilter')
    const hash = await increment()
    const old = await mine()
    const [oldLog] = await rpc('eth_getFilterChanges', [logs])
    await rpc('eth_getFilterChanges', [blocks])
    await rpc('eth_getFilterChanges', [pending])
    const res = await reorg({ depth: 1 })
    expect(res.status).toBe(200)
    const added = res.body.added[0]
    expect(res.body).toEqual({
      network: 'ethereum',
      ancestor: { number: old.number - 1, hash: expect.any(String) },
      removed: [{ number: old.number, hash: old.hash, timestamp: expect.any(Number), transactions: [hash] }],
      added: [{ number: old.number, hash: expect.not.stringMatching(old.hash), timestamp: expect.any(Number), transactions: [hash] }],
      pooled: [],
      dropped: [],
    })
    expect((await rpc('eth_getBlockByNumber', ['latest', false])).hash).toBe(added.hash)
    expect(await rpc('eth_getBlockByHash', [old.hash, false])).toBeNull()
    expect((await rpc('eth_getTransactionReceipt', [hash])).blockHash).toBe(added.hash)
    const [newLog] = await rpc('eth_getLogs', [{ blockHash: added.hash }])
    expect(await rpc('eth_getFilterChanges', [logs])).toEqual([{ ...oldLog, removed: true }, newLog])
    expect(newLog).toMatchObject({ removed: false, blockHash: added.hash, transactionHash: hash })
    expect(await rpc('eth_getFilterChanges', [blocks])).toEqual([added.hash])
    expect(await rpc('eth_getFilterChanges', [pending])).toEqual([])
  })

  it('with empty blocks: the receipt is gone, the transaction pending again (and seen by pending filters), the nonce and state back', async () => {
    const bob = account('bob').address
    const nonceBefore = await rpc('eth_getTransactionCount', [bob, 'latest'])
    const countBefore = await rpc('eth_getStorageAt', [COUNTER, '0x0', 'latest'])
    const hash = await increment()
    await mine()
    const pending = await rpc('eth_newPendingTransactionFilter')
    const logs = await rpc('eth_newFilter', [{ address: COUNTER }])
    const res = await reorg({ depth: 1, transactions: 'empty' })
    expect(res.body.pooled).toEqual([hash])
    expect(await rpc('eth_getTransactionReceipt', [hash])).toBeNull()
    expect(await rpc('eth_getTransactionByHash', [hash])).toMatchObject({ hash, blockHash: null })
    expect(await rpc('eth_getTransactionCount', [bob, 'latest'])).toBe(nonceBefore)
    expect(await rpc('eth_getTransactionCount', [bob, 'pending'])).not.toBe(nonceBefore)
    expect(await rpc('eth_getStorageAt', [COUNTER, '0x0', 'latest'])).toBe(countBefore)
    expect(await rpc('eth_getFilterChanges', [pending])).toEqual([hash])
    const removed = await rpc('eth_getFilterChanges', [logs])
    expect(removed).toEqual([expect.objectContaining({ transactionHash: hash, removed: true })])
    expect((await request(app).get('/_double/networks/ethereum')).body.pending).toBe(1)
  })

  it('drops a named transaction for good', async () => {
    const hash = await increment()
    await mine()
    const res = await reorg({ depth: 1, drop: [hash.toUpperCase().replace('0X', '0x')] })
    expect(res.body).toMatchObject({ pooled: [], dropped: [hash], added: [{ transactions: [] }] })
    expect(await rpc('eth_getTransactionByHash', [hash])).toBeNull()
  })

  it('is a library call too: control.reorg(network, input)', async () => {
    await mine()
    const info = await app.gateway.control.reorg('ethereum', { depth: 1, transactions: 'empty' })
    expect(info.added).toHaveLength(1)
    expect((await rpc('eth_getBlockByNumber', ['latest', false])).hash).toBe(info.added[0]!.hash)
  })

  it('refuses with 400 naming the field, 404 for an unknown network; nothing changes', async () => {
    const head = (await rpc('eth_getBlockByNumber', ['latest', false])).hash
    const refused = async (body: unknown, message: string | RegExp) => {
      const res = await reorg(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.error.message).toMatch(message)
    }
    await refused({ depth: 2 }, /^depth: must be an integer from 1 to 1 \(head 6, safe 5: a reorg never replaces a safe or finalized block\), got 2$/)
    await refused({}, 'depth: must be a number of blocks, got nothing')
    await refused({ depth: '1' }, 'depth: must be a number of blocks, got "1"')
    await refused({ depth: 1, deep: true }, 'deep: unknown field (allowed: depth, length, transactions, drop)')
    await refused({ depth: 1, length: 5000 }, 'length: must be an integer from 1 to 1024, got 5000')
    await refused({ depth: 1, transactions: 'some' }, /^transactions: must be "same", "empty", or a list/)
    await refused({ depth: 1, transactions: [['0xzz']] }, 'transactions[0][0]: must be a raw transaction in hex (0x...), got "0xzz"')
    await refused({ depth: 1, transactions: [['0x02f8']] }, /^transactions\[0\]\[0\]: /)
    await refused({ depth: 1, drop: ['0x12'] }, 'drop[0]: must be a transaction hash (0x and 64 hex digits), got "0x12"')
    await refused({ depth: 1, drop: [`0x${'cd'.repeat(32)}`] }, /^drop\[0\]: 0xcdcd.* is not a transaction of the replaced blocks 6 to 6$/)
    expect((await reorg({ depth: 1 }, 'optimism')).status).toBe(404)
    expect((await rpc('eth_getBlockByNumber', ['latest', false])).hash).toBe(head)
  })
})
