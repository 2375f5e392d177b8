import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { fixtureBook } from '../support/fixtureBook.ts'
import { fixtureClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'
import { TEST_KEY } from '../support/rpcClient.ts'

const method = 'eth_getBlockReceipts'
const book = fixtureBook('ethereum')
type Receipt = Record<string, unknown> & { logs: { logIndex: string; transactionIndex: string }[] }

describe(method, () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await fixtureClient('ethereum')
  })

  it('returns every receipt of a block in order, with block-wide log indexes and exact fields', async () => {
    const receipts = (await rpc.call(method, ['0x2'])).result as Receipt[]
    const inBlock = book.transactions.filter((t) => t.block === 2)
    expect(receipts.map((r) => r.transactionHash)).toStrictEqual(inBlock.map((t) => t.hash))
    expect(receipts.map((r) => r.type)).toStrictEqual(['0x0', '0x1', '0x2', '0x2'])
    const logIndexes = receipts.flatMap((r) => r.logs.map((l) => l.logIndex))
    expect(logIndexes).toStrictEqual(logIndexes.map((_, i) => `0x${i.toString(16)}`))
    for (const r of receipts) {
      expect(Object.keys(r).sort()).toStrictEqual(
        ['blockHash', 'blockNumber', 'contractAddress', 'cumulativeGasUsed', 'effectiveGasPrice', 'from', 'gasUsed', 'logs', 'logsBloom', 'status', 'to', 'transactionHash', 'transactionIndex', 'type'].sort(),
      )
    }
  })

  it('gives the created address of a contract creation and status 0 for a reverted transaction', async () => {
    const block1 = (await rpc.call(method, ['0x1'])).result as Receipt[]
    expect(block1[0]!.contractAddress).toBe(book.address('token'))
    expect(block1[0]!.to).toBeNull()
    const block4 = (await rpc.call(method, ['0x4'])).result as Receipt[]
    expect(block4.map((r) => r.status)).toStrictEqual(book.transactions.filter((t) => t.block === 4).map((t) => `0x${t.status}`))
  })

  it('takes a hex or decimal number, a tag or a hash; pending answers as latest', async () => {
    const latest = (await rpc.call(method, ['latest'])).result
    expect(latest).toStrictEqual((await rpc.call(method, ['pending'])).result)
    expect(latest).toStrictEqual((await rpc.call(method, ['0x6'])).result)
    expect(latest).toStrictEqual((await rpc.call(method, [6])).result)
    expect(latest).toStrictEqual((await rpc.call(method, ['6'])).result)
    expect(latest).toStrictEqual((await rpc.call(method, [rpc.chain.head.hash])).result)
    expect((await rpc.call(method, ['finalized'])).result).toStrictEqual((await rpc.call(method, ['0x4'])).result)
    expect((await rpc.call(method, ['safe'])).result).toStrictEqual((await rpc.call(method, ['0x5'])).result)
    expect((await rpc.call(method, ['earliest'])).result).toStrictEqual([])
  })

  it('is written on the wire as JSON.stringify writes it, its content-length the bytes sent (a body in parts)', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 'r"1', method, params: ['latest'] })
    const res = await request(rpc.app).post(`/v3/${TEST_KEY}`).set('Host', `${rpc.chain.name}-mainnet.localhost`).set('Content-Type', 'application/json').send(body)
    expect(res.status).toBe(200)
    expect(res.text).toBe(JSON.stringify(JSON.parse(res.text)))
    expect(JSON.parse(res.text)).toMatchObject({ jsonrpc: '2.0', id: 'r"1' })
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text))
  })

  it('answers null for a future block or an unknown hash, -32602 for bad params', async () => {
    expect((await rpc.call(method, ['0x7'])).result).toBeNull()
    expect((await rpc.call(method, [`0x${'12'.repeat(32)}`])).result).toBeNull()
    expect((await rpc.call(method, [])).error?.code).toBe(-32602)
    expect((await rpc.call(method, ['0xq'])).error?.code).toBe(-32602)
    expect((await rpc.call(method, [-1])).error?.code).toBe(-32602)
  })
})
