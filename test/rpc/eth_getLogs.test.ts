/**
 * eth_getLogs on the hive chain (383 logs: 57 without topics, 270 with one, 56 with two, the
 * latter all from the emit contract): address and topic filters as geth matches them, block
 * ranges and tags, and geth's errors.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { hasSharedFixtures } from '../support/hive.ts'
import { hiveClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

interface Log {
  address: string
  topics: string[]
  blockNumber: string
  blockHash: string
  logIndex: string
  transactionIndex: string
}

const EMIT = '0x7dcd17433742f4c0ca53122ab541d0ba67fc27df'
const EMIT_TOPIC = '0x00000000000000000000000000000000000000000000000000000000656d6974'
/** The emit contract's log in block 4 (the execution-apis fixtures use it). */
const BLOCK4_TOPIC1 = '0x95b7276947f6331672b0c63eca28c1d39f25286d5e2793d6a487837ff1475ba0'
const BLOCK4_HASH = '0x98f797a6af91ea770ab3a99d89c17a3a46d14c76db6bb711b18156a3493d2c94'

describe.skipIf(!hasSharedFixtures)('eth_getLogs', () => {
  let rpc: RpcClient
  let all: Log[]
  beforeAll(async () => {
    rpc = await hiveClient()
    all = (await rpc.call('eth_getLogs', [{ fromBlock: 'earliest', toBlock: 'latest' }])).result as Log[]
  })
  const logs = async (filter: Record<string, unknown>): Promise<Log[]> => {
    const res = await rpc.call('eth_getLogs', [{ fromBlock: 'earliest', ...filter }])
    if (res.error) throw new Error(JSON.stringify(res.error))
    return res.result as Log[]
  }
  const error = async (filter: unknown) => (await rpc.call('eth_getLogs', [filter])).error

  describe('what is returned', () => {
    it('every log of the chain, in block and log-index order, as the receipts hold them', async () => {
      expect(all).toHaveLength(383)
      const fromReceipts: Log[] = []
      for (let n = 0n; n <= rpc.chain.head.number; n++) {
        const receipts = (await rpc.call('eth_getBlockReceipts', [`0x${n.toString(16)}`])).result as { logs: Log[] }[]
        for (const r of receipts) fromReceipts.push(...r.logs)
      }
      expect(all).toEqual(fromReceipts)
    })

    it('defaults to the head block alone', async () => {
      const head = `0x${rpc.chain.head.number.toString(16)}`
      const res = await rpc.call('eth_getLogs', [{}])
      expect(res.result).toEqual(all.filter((l) => l.blockNumber === head))
    })

    it('an empty result is [] (never null)', async () => {
      expect(await logs({ address: '0x00000000000000000000000000000000000000ff' })).toEqual([])
    })
  })

  describe('addresses', () => {
    it('one address, in any case', async () => {
      const expected = all.filter((l) => l.address === EMIT)
      expect(expected).toHaveLength(56)
      expect(await logs({ address: EMIT })).toEqual(expected)
      expect(await logs({ address: EMIT.toUpperCase().replace('0X', '0x') })).toEqual(expected)
    })

    it('a list matches any of its addresses; an empty list matches all', async () => {
      const other = '0x882e7e5d12617c267a72948e716f231fa79e6d51'
      expect(await logs({ address: [EMIT, other] })).toEqual(all.filter((l) => l.address === EMIT || l.address === other))
      expect(await logs({ address: [] })).toEqual(all)
    })
  })

  describe('topics', () => {
    it('a hash at a position must equal the log’s topic there', async () => {
      expect(await logs({ topics: [EMIT_TOPIC] })).toEqual(all.filter((l) => l.topics[0] === EMIT_TOPIC))
      const both = await logs({ topics: [EMIT_TOPIC, BLOCK4_TOPIC1] })
      expect(both.map((l) => [l.blockNumber, l.logIndex])).toEqual([['0x4', '0x0']])
    })

    it('a list of hashes at a position matches any of them (OR)', async () => {
      const a = all.find((l) => l.topics.length === 1)!.topics[0]!
      const res = await logs({ topics: [[a, EMIT_TOPIC]] })
      expect(res).toEqual(all.filter((l) => l.topics[0] === a || l.topics[0] === EMIT_TOPIC))
      expect(res.length).toBe(57)
    })

    it('null, [] or a null among alternatives is a wildcard for its position', async () => {
      const expected = all.filter((l) => l.topics[1] === BLOCK4_TOPIC1)
      expect(await logs({ topics: [null, BLOCK4_TOPIC1] })).toEqual(expected)
      expect(await logs({ topics: [[], [BLOCK4_TOPIC1]] })).toEqual(expected)
      expect(await logs({ topics: [[EMIT_TOPIC, null], BLOCK4_TOPIC1] })).toEqual(expected)
    })

    it('a log with fewer topics than the filter has positions never matches, even wildcards', async () => {
      expect(await logs({ topics: [null] })).toEqual(all.filter((l) => l.topics.length >= 1))
      expect(await logs({ topics: [null, null] })).toEqual(all.filter((l) => l.topics.length >= 2))
      expect(await logs({ topics: [null, null, null] })).toEqual([])
      expect(await logs({ topics: [] })).toEqual(all)
    })

    it('address and topics together must both match', async () => {
      expect(await logs({ address: '0x882e7e5d12617c267a72948e716f231fa79e6d51', topics: [EMIT_TOPIC] })).toEqual([])
    })
  })

  describe('blocks', () => {
    it('a range is inclusive at both ends', async () => {
      expect(await logs({ fromBlock: '0x4', toBlock: '0x5' })).toEqual(all.filter((l) => l.blockNumber === '0x4' || l.blockNumber === '0x5'))
    })

    it('blockHash names one block', async () => {
      const res = (await rpc.call('eth_getLogs', [{ blockHash: BLOCK4_HASH }])).result as Log[]
      expect(res).toEqual(all.filter((l) => l.blockHash === BLOCK4_HASH))
    })

    it('tags resolve: earliest, latest, safe and finalized (the head here)', async () => {
      const head = `0x${rpc.chain.head.number.toString(16)}`
      const atHead = all.filter((l) => l.blockNumber === head)
      expect(await logs({ fromBlock: 'safe', toBlock: 'finalized' })).toEqual(atHead)
      expect(await logs({ fromBlock: 'latest' })).toEqual(atHead)
    })
  })

  describe('errors, as geth', () => {
    it('a range past the head: -32602', async () => {
      expect(await error({ fromBlock: '0x1', toBlock: '0x100' })).toEqual({ code: -32602, message: 'block range extends beyond current head block' })
      expect(await error({ fromBlock: '0x100' })).toEqual({ code: -32602, message: 'block range extends beyond current head block' })
    })

    it('a reversed range: -32602, also once tags are resolved', async () => {
      expect(await error({ fromBlock: '0x5', toBlock: '0x3' })).toEqual({ code: -32602, message: 'invalid block range params' })
      expect(await error({ fromBlock: 'latest', toBlock: '0x3' })).toEqual({ code: -32602, message: 'invalid block range params' })
    })

    it('pending logs are refused, an unknown block hash is unknown', async () => {
      expect(await error({ fromBlock: 'pending' })).toEqual({ code: -32000, message: 'pending logs are not supported' })
      expect(await error({ blockHash: `0x${'11'.repeat(32)}` })).toEqual({ code: -32000, message: 'unknown block' })
    })

    it('malformed filters: -32602 with geth’s words', async () => {
      const bad = async (filter: unknown) => (await error(filter))?.message
      expect(await bad({ blockHash: BLOCK4_HASH, toBlock: '0x4' })).toBe(
        'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other',
      )
      expect(await bad({ topics: [null, null, null, null, null] })).toBe('invalid argument 0: exceed max topics')
      expect(await bad({ topics: [5] })).toBe('invalid argument 0: invalid topic(s)')
      expect(await bad({ topics: [[EMIT_TOPIC, 5]] })).toBe('invalid argument 0: invalid topic(s)')
      expect(await bad({ topics: ['0x12'] })).toBe('invalid argument 0: hex has invalid length 1 after decoding; expected 32 for topic')
      expect(await bad({ address: '0x1234' })).toBe('invalid argument 0: invalid address: hex has invalid length 2 after decoding; expected 20 for address')
      expect(await bad({ address: [EMIT, 5] })).toBe('invalid argument 0: non-string address at index 1')
      expect(await bad({ address: [EMIT, 'xyz'] })).toBe('invalid argument 0: invalid address at index 1: hex string without 0x prefix')
      expect(await bad({ address: 5 })).toBe('invalid argument 0: invalid addresses in query')
      expect(await bad({ fromBlock: 'newest' })).toBe('invalid argument 0: hex string without 0x prefix')
      expect(await bad('latest')).toBe('invalid argument 0: json: cannot unmarshal string into Go value of type filters.input')
      expect((await rpc.call('eth_getLogs', [])).error).toEqual({ code: -32602, message: 'missing value for required argument 0' })
    })
  })
})
