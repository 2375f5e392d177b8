/**
 * The fee reads: geth's gas price oracle (eth_maxPriorityFeePerGas, eth_gasPrice) and
 * eth_feeHistory. The hive chain pins the shapes and values of real blocks (every tip there is
 * 1 wei, under geth's 2 wei ignore price); the default ethereum fixture, whose tips differ block
 * by block, pins the oracle's percentile; small synthetic chains pin the sampling and reward
 * rules that neither chain exercises.
 */
import { join } from 'node:path'
import { createAddressFromString } from '@ethereumjs/util'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Chain } from '../../src/chain/chain.ts'
import type { BlockRecord } from '../../src/chain/blocks/types.ts'
import { feeHistory } from '../../src/chain/fees/feeHistory.ts'
import { suggestTipCap } from '../../src/chain/fees/gasPrice.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { hasSharedFixtures } from '../support/hive.ts'
import { clientFor, hiveClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const GWEI = 1_000_000_000n
const COINBASE = '0x00000000000000000000000000000000000000c0'

interface FakeTx {
  from: string
  maxFeePerGas: bigint
  maxPriorityFeePerGas: bigint
  gasUsed?: bigint
}

/**
 * A chain of post-London blocks with just what the oracle and the fee history read: per block a
 * base fee, gas used and limit, and its transactions (sender, fee caps, gas used).
 */
function fakeChain(blocks: { baseFee: bigint; gasUsed?: bigint; txs: FakeTx[] }[]): Chain {
  const records = blocks.map((b, i) => {
    const gasUsed = b.gasUsed ?? b.txs.reduce((sum, tx) => sum + (tx.gasUsed ?? 21000n), 0n)
    const header = {
      coinbase: createAddressFromString(COINBASE),
      baseFeePerGas: b.baseFee,
      gasUsed,
      gasLimit: 30_000_000n,
      calcNextBaseFee: () => b.baseFee,
    }
    return {
      number: BigInt(i),
      hash: `0x${i.toString(16).padStart(64, '0')}`,
      timestamp: BigInt(i * 12),
      block: { header, transactions: b.txs.map((tx) => ({ maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas })) },
      transactions: b.txs.map((tx) => ({ from: tx.from, hash: '0x' })),
      receipts: b.txs.map((tx) => ({ gasUsed: `0x${(tx.gasUsed ?? 21000n).toString(16)}`, logs: [] })),
    } as unknown as BlockRecord
  })
  return {
    head: records[records.length - 1],
    genesis: records[0],
    byNumber: (n: bigint) => records[Number(n)],
    resolve: () => records[records.length - 1],
  } as unknown as Chain
}

const ALICE = '0x00000000000000000000000000000000000000a1'
const tipTx = (tip: bigint, from = ALICE, gasUsed?: bigint): FakeTx => ({ from, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: tip, gasUsed })

describe('the gas price oracle (geth’s SuggestTipCap)', () => {
  it('takes the 3 lowest tips of each of the last 20 blocks and answers their 60th percentile', () => {
    // 21 blocks after genesis: only the last 20 count; each gives its three lowest tips
    const blocks = [{ baseFee: GWEI, txs: [] as FakeTx[] }]
    for (let i = 1; i <= 21; i++) blocks.push({ baseFee: GWEI, txs: [tipTx(BigInt(i) * GWEI), tipTx(BigInt(i) * GWEI + 1n), tipTx(BigInt(i) * GWEI + 2n), tipTx(1000n * GWEI)] })
    // samples: blocks 2..21, 3 each = 60; index (60 - 1) * 60 / 100 = 35 -> block 13's third tip
    expect(suggestTipCap(fakeChain(blocks))).toBe(13n * GWEI + 2n)
  })

  it('skips tips under 2 wei and the coinbase’s own transactions; an empty block counts the start price', () => {
    const chain = fakeChain([
      { baseFee: GWEI, txs: [] },
      { baseFee: GWEI, txs: [tipTx(1n), tipTx(5n * GWEI, COINBASE)] },
    ])
    // nothing sampled from block 1: one sample of the start price, 0.001 gwei
    expect(suggestTipCap(chain)).toBe(1_000_000n)
  })

  it('a block with a single sample pulls in one more older block', () => {
    const blocks = [{ baseFee: GWEI, txs: [] as FakeTx[] }]
    for (let i = 1; i <= 30; i++) blocks.push({ baseFee: GWEI, txs: [tipTx(BigInt(i) * GWEI)] })
    // 20 blocks asked for; each answers one tip, so older ones join until 40 samples or genesis:
    // blocks 1..30 all sampled, index (30 - 1) * 60 / 100 = 17 -> 18 gwei
    expect(suggestTipCap(fakeChain(blocks))).toBe(18n * GWEI)
  })

  it('a new head reads only its own block again: the answer is the one a fresh reader gives', () => {
    const blocks = [{ baseFee: GWEI, txs: [] as FakeTx[] }]
    for (let i = 1; i <= 60; i++) blocks.push({ baseFee: GWEI, txs: i % 7 === 0 ? [] : [tipTx(BigInt((i * 37) % 50) * GWEI + 2n), ...(i % 3 === 0 ? [tipTx(BigInt(i) * GWEI)] : [])] })
    const all = fakeChain(blocks) as unknown as { byNumber(n: bigint): BlockRecord; head: BlockRecord }
    let reads = 0
    for (let n = 0n; n <= 60n; n++) {
      const record = all.byNumber(n)
      const block = record.block
      Object.defineProperty(record, 'block', { get: () => (reads++, block) })
    }
    const growing = { ...all, head: all.byNumber(20n) }
    suggestTipCap(growing as unknown as Chain)
    for (let n = 21n; n <= 60n; n++) {
      growing.head = all.byNumber(n)
      reads = 0
      const tip = suggestTipCap(growing as unknown as Chain)
      expect(reads).toBeLessThanOrEqual(2)
      expect(tip).toBe(suggestTipCap(fakeChain(blocks.slice(0, Number(n) + 1))))
    }
  })

  it('never suggests more than 500 gwei', () => {
    expect(suggestTipCap(fakeChain([{ baseFee: GWEI, txs: [] }, { baseFee: GWEI, txs: [tipTx(900n * GWEI)] }]))).toBe(500n * GWEI)
  })

  it('on the default ethereum fixture: the 60th percentile of its 17 samples', async () => {
    const rpc = clientFor(await loadFixture(join(import.meta.dirname, '../../fixtures/ethereum')))
    // tips by block 6..1: 45393796 x3, 51834405 x3, 59146756 x3, 67398759 x3, 76918666 x3, 87500000 x2
    expect((await rpc.call('eth_maxPriorityFeePerGas')).result).toBe(`0x${(67398759).toString(16)}`)
    const baseFee = rpc.chain.head.block.header.baseFeePerGas!
    expect((await rpc.call('eth_gasPrice')).result).toBe(`0x${(baseFee + 67398759n).toString(16)}`)
  })
})

describe('eth_feeHistory rewards (geth’s processBlock)', () => {
  it('sorts by tip and picks, per percentile, the tip at which the cumulative gas reaches it', () => {
    const chain = fakeChain([
      { baseFee: GWEI, txs: [] },
      { baseFee: GWEI, txs: [tipTx(3n, ALICE, 50_000n), tipTx(1n, ALICE, 30_000n), tipTx(2n, ALICE, 20_000n)] },
    ])
    // by tip: 1 (30k gas, cumulative 30k), 2 (20k, 50k), 3 (50k, 100k) of 100k
    const res = feeHistory(chain, 1n, { kind: 'number', number: 1n }, [0, 30, 31, 50, 51, 100])
    expect(res.reward).toEqual([['0x1', '0x1', '0x2', '0x2', '0x3', '0x3']])
  })

  it('a block without transactions rewards 0 at every percentile', () => {
    const chain = fakeChain([{ baseFee: GWEI, txs: [] }, { baseFee: GWEI, txs: [] }])
    expect(feeHistory(chain, 1n, { kind: 'number', number: 1n }, [10, 90]).reward).toEqual([['0x0', '0x0']])
  })
})

describe.skipIf(!hasSharedFixtures)('on the hive chain', () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await hiveClient()
  })
  const q = (n: bigint) => `0x${n.toString(16)}`
  const header = (n: bigint) => rpc.chain.byNumber(n)!.block.header

  it('every tip is 1 wei, under the ignore price: the oracle answers its start price, 0.001 gwei', async () => {
    expect((await rpc.call('eth_maxPriorityFeePerGas')).result).toBe('0xf4240')
    expect((await rpc.call('eth_gasPrice')).result).toBe(q(header(0x36n).baseFeePerGas! + 1_000_000n))
  })

  it('feeHistory: per block base fee, gas ratio, blob fee and blob ratio, plus the next block’s fees', async () => {
    const res = (await rpc.call('eth_feeHistory', ['0x3', 'latest', [10, 50, 90]])).result as Record<string, unknown>
    expect(Object.keys(res)).toEqual(['oldestBlock', 'reward', 'baseFeePerGas', 'gasUsedRatio', 'baseFeePerBlobGas', 'blobGasUsedRatio'])
    expect(res.oldestBlock).toBe('0x34')
    expect(res.reward).toEqual([['0x1', '0x1', '0x1'], ['0x1', '0x1', '0x1'], ['0x1', '0x1', '0x1']])
    const head = header(0x36n)
    expect(res.baseFeePerGas).toEqual([q(header(0x34n).baseFeePerGas!), q(header(0x35n).baseFeePerGas!), q(head.baseFeePerGas!), q(head.calcNextBaseFee())])
    expect(res.gasUsedRatio).toEqual([0x34n, 0x35n, 0x36n].map((n) => Number(header(n).gasUsed) / Number(header(n).gasLimit)))
    expect(res.baseFeePerBlobGas).toEqual(['0x1', '0x1', '0x1', '0x1'])
    // block 0x35 carries one blob (131072 gas) under BPO1's maximum of 15 blobs
    expect(res.blobGasUsedRatio).toEqual([0, 1 / 15, 0])
  })

  it('feeHistory across London: 0 base fee before it, London’s initial fee next; no reward without percentiles', async () => {
    const res = (await rpc.call('eth_feeHistory', [2, '0x1a'])).result
    expect(res).toEqual({
      oldestBlock: '0x19',
      baseFeePerGas: ['0x0', '0x0', '0x3b9aca00'],
      gasUsedRatio: [0x19n, 0x1an].map((n) => Number(header(n).gasUsed) / Number(header(n).gasLimit)),
      baseFeePerBlobGas: ['0x0', '0x0', '0x0'],
      blobGasUsedRatio: [0, 0],
    })
  })

  it('feeHistory block counts: decimal or hex, cut at genesis, 0 gives geth’s empty answer', async () => {
    expect(((await rpc.call('eth_feeHistory', ['10', '0x3'])).result as { oldestBlock: string }).oldestBlock).toBe('0x0')
    expect(((await rpc.call('eth_feeHistory', ['0xa', '0x3'])).result as { gasUsedRatio: number[] }).gasUsedRatio).toHaveLength(4)
    expect((await rpc.call('eth_feeHistory', ['0x0', 'latest'])).result).toEqual({ oldestBlock: '0x0', gasUsedRatio: null })
  })

  it('feeHistory errors, in geth’s words', async () => {
    const err = async (params: unknown[]) => (await rpc.call('eth_feeHistory', params)).error
    expect(await err(['0x1', '0x100'])).toEqual({ code: -32000, message: 'request beyond head block: requested 256, head 54' })
    expect(await err(['0x1', 'latest', [101]])).toEqual({ code: -32000, message: 'invalid reward percentile: 101.000000' })
    expect(await err(['0x1', 'latest', [50, 10]])).toEqual({ code: -32000, message: 'invalid reward percentile: #0:50.000000 >= #1:10.000000' })
    expect(await err(['0x1', 'latest', Array.from({ length: 101 }, (_, i) => i)])).toEqual({
      code: -32000,
      message: 'invalid reward percentile: over the query limit 100',
    })
    expect(await err(['x1', 'latest'])).toEqual({ code: -32602, message: 'invalid argument 0: invalid hex or decimal integer "x1"' })
    expect(await err(['0x1'])).toEqual({ code: -32602, message: 'missing value for required argument 1' })
    expect(await err(['0x1', 'latest', ['50']])).toEqual({ code: -32602, message: 'invalid argument 2: json: cannot unmarshal string into Go value of type float64' })
  })
})
