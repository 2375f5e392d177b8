import { renderBlock } from '../../chain/blocks/renderBlock.ts'
import { simulate } from '../../chain/simulate/simulate.ts'
import { SimulateError } from '../../chain/simulate/types.ts'
import type { SimCallResult, SimulatedBlock, SimulateErrorKind } from '../../chain/simulate/types.ts'
import { toData, toQuantity } from '../../encoding/hex.ts'
import { revertMessage } from '../../encoding/revert.ts'
import { LATEST, stateRecord } from '../blocks.ts'
import { SimulationError } from '../errors.ts'
import { defineMethod, executionBudget } from '../method.ts'
import { optional } from '../params.ts'
import { simulateOptions } from '../simulateParams.ts'
import { blockNumberOrHash } from '../validators.ts'

/** The hosted service simulates at most 16 block state calls per request (its documented limit). */
export const MAX_BLOCK_STATE_CALLS = 16

/**
 * geth's RPC gas cap (`--rpc.gascap`, 50,000,000 by default): the budget every call of one
 * simulation shares. The service documents no cap for eth_simulateV1; geth's default is what the
 * execution-apis fixtures pin (each call's default gas is what the block and this budget leave).
 */
export const SIMULATE_GAS_CAP = 50_000_000n

/** geth's codes (internal/ethapi/errors.go). */
const CODES: Record<SimulateErrorKind, number> = {
  nonceTooLow: -38010,
  nonceTooHigh: -38011,
  baseFeeTooLow: -38012,
  intrinsicGas: -38013,
  insufficientFunds: -38014,
  blockGasLimitReached: -38015,
  blockNumberInvalid: -38020,
  blockTimestampInvalid: -38021,
  maxInitCodeSizeExceeded: -38025,
  clientLimitExceeded: -38026,
  invalidParams: -32602,
  internal: -32603,
  server: -32000,
}

/** A call's error inside a result: code 3 with the revert data, or -32015 (geth's `errCodeVMError`). */
function callJson(call: SimCallResult, block: { hash: string; number: string; timestamp: string }): Record<string, unknown> {
  const out: Record<string, unknown> = {
    returnData: toData(call.returnData),
    logs: call.logs.map((log) => ({
      address: toData(log.address),
      topics: log.topics.map(toData),
      data: toData(log.data),
      blockNumber: block.number,
      transactionHash: toData(log.transactionHash),
      transactionIndex: toQuantity(log.transactionIndex),
      blockHash: block.hash,
      blockTimestamp: block.timestamp,
      logIndex: toQuantity(log.logIndex),
      removed: false,
    })),
    gasUsed: toQuantity(call.gasUsed),
    maxUsedGas: toQuantity(call.maxUsedGas),
    status: toQuantity(call.status),
  }
  if (call.error?.kind === 'revert') out.error = { message: revertMessage(call.error.data), code: 3, data: toData(call.error.data) }
  else if (call.error?.kind === 'halt') out.error = { message: call.error.message, code: -32015 }
  return out
}

function blockJson(sim: SimulatedBlock, fullTransactions: boolean): Record<string, unknown> {
  const block = renderBlock(sim.record, fullTransactions)
  const where = { hash: block.hash, number: block.number as string, timestamp: block.timestamp as string }
  const out: Record<string, unknown> = { ...block, calls: sim.calls.map((c) => callJson(c, where)) }
  return Object.fromEntries(Object.keys(out).sort().map((k) => [k, out[k]]))
}

/**
 * Simulates blocks of calls on top of a block's state (default `latest`), as geth's
 * eth_simulateV1 does (chain/simulate/): each block with its header and state overrides, built as
 * geth builds it, the calls' results, logs and (`traceTransfers`) ether transfers as ERC-7528
 * logs. geth's limits (256 blocks, 5,000 calls a block, 10,000 in all) and the service's own
 * (16 block state calls) answer -38026; a call geth refuses ends the simulation with its code
 * (-38010 nonce too low ... -38025). The whole simulation has the time limit of one eth_call
 * (geth's --rpc.evmtimeout, 5 s): past it, -32603 `execution aborted (timeout = 5s)`, as geth's
 * simulator answers. Nothing simulated reaches the chain.
 */
export const eth_simulateV1 = defineMethod({
  name: 'eth_simulateV1',
  params: [simulateOptions, optional(blockNumberOrHash, LATEST)],
  async run([opts, selector], { chain, execution }) {
    if (opts.blocks.length > MAX_BLOCK_STATE_CALLS) {
      throw new SimulationError(CODES.clientLimitExceeded, `too many block state calls: ${opts.blocks.length} > ${MAX_BLOCK_STATE_CALLS}`)
    }
    const base = stateRecord(chain, selector)
    try {
      const blocks = await simulate(chain, base, {
        blocks: opts.blocks,
        traceTransfers: opts.traceTransfers,
        validation: opts.validation,
        gasCap: SIMULATE_GAS_CAP,
        budget: executionBudget(execution),
      })
      return blocks.map((b) => blockJson(b, opts.returnFullTransactions))
    } catch (err) {
      if (err instanceof SimulateError) throw new SimulationError(CODES[err.kind], err.message)
      throw err
    }
  },
})
