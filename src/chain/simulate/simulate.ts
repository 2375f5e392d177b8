/**
 * eth_simulateV1, as geth's `simulator` runs it: blocks on top of a base block, in order.
 *
 * 1. `sanitizeChain`: each block's number (the previous + 1 unless overridden, strictly
 *    increasing: -38020) and timestamp (the previous + 12 unless overridden, strictly increasing:
 *    -38021); a gap between numbers is filled with empty blocks 12 seconds apart; at most 256
 *    blocks past the base (-38026).
 * 2. `makeHeaders`: each header from the previous one (coinbase, gas limit, difficulty, zero after
 *    the Merge) and the block's overrides.
 * 3. Each block in turn (./simBlock.ts) on one state of the simulation's own, over an overlay of
 *    the chain's database, so that the chain never sees it.
 */
import type { ChainReader } from '../blocks/chainReader.ts'
import type { BlockRecord } from '../blocks/types.ts'
import { openSimulation, runSimulatedBlock } from './simBlock.ts'
import type { SimHeader } from './simBlock.ts'
import { SimulateError } from './types.ts'
import type { SimBlockInput, SimulatedBlock, SimulateOptions } from './types.ts'

/** geth's limits. */
export const MAX_SIMULATE_BLOCKS = 256
export const MAX_CALLS_PER_BLOCK = 5000
export const MAX_TOTAL_CALLS = 10000
const TIMESTAMP_INCREMENT = 12n

export async function simulate(chain: ChainReader, base: BlockRecord, opts: SimulateOptions): Promise<SimulatedBlock[]> {
  if (opts.blocks.length === 0) throw new SimulateError('invalidParams', 'empty input')
  if (opts.blocks.length > MAX_SIMULATE_BLOCKS) throw new SimulateError('clientLimitExceeded', 'too many blocks')
  let total = 0
  for (const block of opts.blocks) {
    if (block.calls.length > MAX_CALLS_PER_BLOCK) throw new SimulateError('clientLimitExceeded', `too many calls in block: ${block.calls.length} > ${MAX_CALLS_PER_BLOCK}`)
    total += block.calls.length
    if (total > MAX_TOTAL_CALLS) throw new SimulateError('clientLimitExceeded', `too many calls: ${total} > ${MAX_TOTAL_CALLS}`)
  }
  const blocks = sanitizeChain(base, opts.blocks)
  const sim = await openSimulation(chain, base)
  const budget = { remaining: opts.gasCap === 0n ? (1n << 64n) - 1n : opts.gasCap }
  const results: SimulatedBlock[] = []
  const hashes = new Map<bigint, Uint8Array>()
  let parent = base.block
  let header: SimHeader = { coinbase: base.block.header.coinbase, gasLimit: base.block.header.gasLimit, difficulty: base.block.header.difficulty }
  for (const block of blocks) {
    const result = await runSimulatedBlock(chain, sim, { input: block, header, parent, hashes, budget, opts })
    results.push(result)
    parent = result.record.block
    header = { coinbase: parent.header.coinbase, gasLimit: parent.header.gasLimit, difficulty: parent.header.difficulty }
    hashes.set(parent.header.number, parent.hash())
  }
  return results
}

/** geth's `sanitizeChain`: numbers and timestamps set and checked, gaps filled with empty blocks. */
function sanitizeChain(base: BlockRecord, blocks: readonly SimBlockInput[]): SimBlockInput[] {
  const out: SimBlockInput[] = []
  let prevNumber = base.number
  let prevTime = base.timestamp
  for (const block of blocks) {
    const o = { ...block.blockOverrides }
    const number = o.number ?? prevNumber + 1n
    o.number = number
    if (number <= prevNumber) throw new SimulateError('blockNumberInvalid', `block numbers must be in order: ${number} <= ${prevNumber}`)
    if (number - base.number > BigInt(MAX_SIMULATE_BLOCKS)) throw new SimulateError('clientLimitExceeded', 'too many blocks')
    for (let n = prevNumber + 1n; n < number; n++) {
      prevTime += TIMESTAMP_INCREMENT
      out.push({ blockOverrides: { number: n, time: prevTime, withdrawals: [] }, calls: [] })
    }
    prevNumber = number
    if (o.time === undefined) o.time = prevTime + TIMESTAMP_INCREMENT
    else if (o.time <= prevTime) throw new SimulateError('blockTimestampInvalid', `block timestamps must be in order: ${o.time} <= ${prevTime}`)
    prevTime = o.time
    o.withdrawals ??= []
    out.push({ ...block, blockOverrides: o })
  }
  return out
}
