/**
 * What eth_simulateV1 takes and gives, parsed: blocks of calls with their overrides, and per
 * block the sealed block (as a record) with each call's outcome.
 */
import type { BlockRecord } from '../blocks/types.ts'
import type { CallArgs } from '../execution/callArgs.ts'
import type { BlockOverrides, StateOverride } from '../execution/overrides.ts'
import type { ExecutionBudget } from '../vm/executionGuard.ts'

export interface SimBlockInput {
  blockOverrides?: BlockOverrides
  stateOverrides?: StateOverride
  calls: CallArgs[]
}

export interface SimulateOptions {
  blocks: SimBlockInput[]
  traceTransfers: boolean
  validation: boolean
  /** The RPC gas cap, a budget shared by every call of the request (0: none). */
  gasCap: bigint
  /**
   * The time the whole simulation may take (geth's --rpc.evmtimeout covers all its calls), its
   * executions letting other requests take turns (../vm/executionGuard.ts).
   */
  budget?: ExecutionBudget
}

export interface SimLog {
  address: Uint8Array
  topics: Uint8Array[]
  data: Uint8Array
  /** Index among the block's logs, counted as geth's tracer counts (dropped logs included). */
  logIndex: number
  transactionHash: Uint8Array
  transactionIndex: number
}

export interface SimCallResult {
  returnData: Uint8Array
  logs: SimLog[]
  gasUsed: bigint
  maxUsedGas: bigint
  status: 0 | 1
  /** A revert (with its data) or another halt (with geth's name for it). */
  error?: { kind: 'revert'; data: Uint8Array } | { kind: 'halt'; message: string }
}

export interface SimulatedBlock {
  /** The sealed block, its transactions and receipts rendered as for any block. */
  record: BlockRecord
  calls: SimCallResult[]
}

/**
 * How geth classifies a failure that stops the whole simulation (`txValidationError` and the
 * simulator's own errors); the JSON-RPC layer gives each its code.
 */
export type SimulateErrorKind =
  | 'nonceTooHigh'
  | 'nonceTooLow'
  | 'baseFeeTooLow'
  | 'intrinsicGas'
  | 'insufficientFunds'
  | 'blockGasLimitReached'
  | 'blockNumberInvalid'
  | 'blockTimestampInvalid'
  | 'maxInitCodeSizeExceeded'
  | 'clientLimitExceeded'
  | 'invalidParams'
  | 'internal'
  | 'server'

export class SimulateError extends Error {
  override readonly name = 'SimulateError'
  readonly kind: SimulateErrorKind
  constructor(kind: SimulateErrorKind, message: string) {
    super(message)
    this.kind = kind
  }
}
