/**
 * eth_feeHistory, ported from geth's `eth/gasprice/feehistory.go`: for each block of the range,
 * its base fee, gas used ratio, blob base fee and blob gas used ratio, plus the base fees of the
 * block after the last; and, when percentiles are asked for, the effective tip at each percentile
 * of the block's gas (transactions sorted by tip, weighted by the gas each used).
 *
 * Blocks before London count a base fee of 0, blocks before Cancun a blob base fee of 0 and a blob
 * ratio of 0. As geth does, the "next" blob base fee is computed with the block's own fork rules.
 * `pending` names the head: the double mines at once, so there is no pending block apart from it.
 */
import type { ChainReader } from '../blocks/chainReader.ts'
import type { BlockRecord, BlockSelector } from '../blocks/types.ts'
import { effectiveTip } from './gasPrice.ts'
import { toQuantity } from '../../encoding/hex.ts'

/** geth's `FullNodeGPO.MaxHeaderHistory` and `MaxBlockHistory`: longer requests are cut to this. */
export const MAX_FEE_HISTORY = 1024n
/** geth's `maxQueryLimit`: at most this many percentiles. */
export const MAX_PERCENTILES = 100
/** London's first base fee (`params.InitialBaseFee`). */
const INITIAL_BASE_FEE = 1_000_000_000n

/** A request geth refuses, in its words (code -32000 on the wire). */
export class FeeHistoryError extends Error {
  override readonly name = 'FeeHistoryError'
}

/** geth's `feeHistoryResult`, in its field order; `null` ratios when no block could be returned. */
export interface FeeHistoryJson {
  oldestBlock: string
  reward?: string[][]
  baseFeePerGas?: string[]
  gasUsedRatio: number[] | null
  baseFeePerBlobGas?: string[]
  blobGasUsedRatio?: number[]
}

/** Go's `%f`. */
function goFloat(p: number): string {
  return p.toFixed(6)
}

export function feeHistory(chain: ChainReader, count: bigint, end: BlockSelector, percentiles: readonly number[] | undefined): FeeHistoryJson {
  const empty: FeeHistoryJson = { oldestBlock: '0x0', gasUsedRatio: null }
  if (count < 1n) return empty
  const wanted = percentiles ?? []
  if (wanted.length > MAX_PERCENTILES) {
    throw new FeeHistoryError(`invalid reward percentile: over the query limit ${MAX_PERCENTILES}`)
  }
  if (count > MAX_FEE_HISTORY) count = MAX_FEE_HISTORY
  wanted.forEach((p, i) => {
    if (p < 0 || p > 100) throw new FeeHistoryError(`invalid reward percentile: ${goFloat(p)}`)
    if (i > 0 && p <= wanted[i - 1]!) {
      throw new FeeHistoryError(`invalid reward percentile: #${i - 1}:${goFloat(wanted[i - 1]!)} >= #${i}:${goFloat(p)}`)
    }
  })

  const head = chain.head.number
  let last: bigint
  if (end.kind === 'number') {
    if (end.number > head) throw new FeeHistoryError(`request beyond head block: requested ${end.number}, head ${head}`)
    last = end.number
  } else {
    const record = chain.resolve(end)
    if (!record) return empty
    last = record.number
  }
  const available = last - chain.genesis.number + 1n
  if (count > available) count = available
  const oldest = last + 1n - count

  const reward: string[][] = []
  const baseFees: string[] = []
  const gasUsedRatio: number[] = []
  const blobBaseFees: string[] = []
  const blobGasUsedRatio: number[] = []
  for (let n = oldest; n <= last; n++) {
    const record = chain.byNumber(n)!
    const fees = blockFees(chain, record, wanted)
    baseFees.push(toQuantity(fees.baseFee))
    blobBaseFees.push(toQuantity(fees.blobBaseFee))
    gasUsedRatio.push(fees.gasUsedRatio)
    blobGasUsedRatio.push(fees.blobGasUsedRatio)
    if (fees.reward) reward.push(fees.reward.map(toQuantity))
    if (n === last) {
      baseFees.push(toQuantity(fees.nextBaseFee))
      blobBaseFees.push(toQuantity(fees.nextBlobBaseFee))
    }
  }
  return {
    oldestBlock: toQuantity(oldest),
    ...(wanted.length > 0 ? { reward } : {}),
    baseFeePerGas: baseFees,
    gasUsedRatio,
    baseFeePerBlobGas: blobBaseFees,
    blobGasUsedRatio,
  }
}

interface BlockFees {
  baseFee: bigint
  nextBaseFee: bigint
  blobBaseFee: bigint
  nextBlobBaseFee: bigint
  gasUsedRatio: number
  blobGasUsedRatio: number
  reward?: bigint[]
}

/** geth's `processBlock`. */
function blockFees(chain: ChainReader, record: BlockRecord, percentiles: readonly number[]): BlockFees {
  const header = record.block.header
  const fees: BlockFees = {
    baseFee: header.baseFeePerGas ?? 0n,
    nextBaseFee: nextBaseFee(chain, record),
    blobBaseFee: 0n,
    nextBlobBaseFee: 0n,
    gasUsedRatio: Number(header.gasUsed) / Number(header.gasLimit),
    blobGasUsedRatio: 0,
  }
  if (header.excessBlobGas !== undefined) {
    fees.blobBaseFee = header.getBlobGasPrice()
    fees.nextBlobBaseFee = header.calcNextBlobGasPrice(header.common)
  }
  if (header.blobGasUsed !== undefined) {
    const max = header.common.getBlobGasSchedule().maxBlobGasPerBlock
    if (max !== 0n) fees.blobGasUsedRatio = Number(header.blobGasUsed) / Number(max)
  }
  if (percentiles.length === 0) return fees

  const txs = record.block.transactions
  if (txs.length === 0) {
    fees.reward = percentiles.map(() => 0n)
    return fees
  }
  const sorted = txs
    .map((tx, i) => ({ reward: effectiveTip(tx, header.baseFeePerGas), gasUsed: BigInt(record.receipts[i]!.gasUsed as string) }))
    .sort((a, b) => (a.reward < b.reward ? -1 : a.reward > b.reward ? 1 : 0))
  let index = 0
  let sumGasUsed = sorted[0]!.gasUsed
  fees.reward = percentiles.map((p) => {
    const threshold = BigInt(Math.trunc((Number(header.gasUsed) * p) / 100))
    while (sumGasUsed < threshold && index < sorted.length - 1) {
      index++
      sumGasUsed += sorted[index]!.gasUsed
    }
    return sorted[index]!.reward
  })
  return fees
}

/**
 * The base fee of the block after `record` (geth's `CalcBaseFee` on its header): read from that
 * block where the chain has it, computed for the head; London's initial base fee across the fork.
 */
export function nextBaseFee(chain: ChainReader, record: BlockRecord): bigint {
  const child = chain.byNumber(record.number + 1n)
  if (child) return child.block.header.baseFeePerGas ?? 0n
  const header = record.block.header
  if (header.baseFeePerGas !== undefined) return header.calcNextBaseFee()
  const next = chain.common.getHardforkBy({ blockNumber: record.number + 1n, timestamp: record.timestamp })
  return chain.common.hardforkGteHardfork(next, 'london') ? INITIAL_BASE_FEE : 0n
}
