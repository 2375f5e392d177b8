/**
 * The hooks a tracer implements: geth's tracing hooks (`core/tracing`), as the observer
 * (./observer.ts) derives them from EthereumJS's events, with geth's conventions: frame depths
 * from 0 (the transaction's own call), opcode depths from 1, gas and costs as geth's interpreter
 * counts them, errors in geth's words.
 */
import type { StateManagerInterface } from '@ethereumjs/common'
import type { TraceBudget } from './limits.ts'

/** A frame's kind, by the opcode that opened it (the transaction's own: CALL or CREATE). */
export type FrameType = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2' | 'SELFDESTRUCT'

export interface TxStart {
  /** Lowercase addresses. `to` is undefined for a creation. */
  from: string
  to: string | undefined
  gasLimit: bigint
  coinbase: string
  /** Authorities of an EIP-7702 transaction, recovered. */
  authorities: string[]
  /** The state as the transaction starts (before its gas is bought). */
  state: StateManagerInterface
  /** The forks the block runs under (SELFDESTRUCT's EIP-6780, EIP-7702 delegations). */
  cancun: boolean
  prague: boolean
}

export interface FrameStart {
  depth: number
  type: FrameType
  from: string
  /** The callee; for a creation, the new contract's address. */
  to: string
  input: Uint8Array
  gas: bigint
  /** Absent for STATICCALL. */
  value: bigint | undefined
}

export interface FrameEnd {
  depth: number
  output: Uint8Array
  gasUsed: bigint
  /** geth's name of the failure (`execution reverted`, `out of gas`, ...). */
  error: string | undefined
}

export interface OpcodeStep {
  pc: number
  op: number
  /** Gas left before the opcode, and what it costs (a call's includes the gas it hands on). */
  gas: bigint
  cost: bigint
  /** geth's depth: 1 for the transaction's own frame. */
  depth: number
  /** Bottom first. */
  stack: readonly bigint[]
  /** Before any expansion the opcode makes. */
  memory: Uint8Array
  address: string
  /** What the frame's last call returned. */
  returnData: Uint8Array
  refund: bigint
  state: StateManagerInterface
  /** For SLOAD, once confirmed: the value it read. */
  loaded?: bigint
}

export interface LogEntry {
  address: string
  topics: Uint8Array[]
  data: Uint8Array
  /** Position of the log in the block (geth's `log.Index`). */
  index: number
}

export interface Tracer {
  /**
   * The opcodes `onOpcode` is told of (default: none; the observer follows frames and logs by
   * itself), whether `onOpcode` returns a promise to await for them (only with a list: awaiting
   * every opcode costs), and whether steps carry memory (calls, creations and logs always do).
   */
  readonly opcodes?: { which: 'all' | readonly number[]; async?: boolean; memory?: boolean }
  onTxStart?(tx: TxStart): void | Promise<void>
  onEnter?(frame: FrameStart): void
  onExit?(frame: FrameEnd): void
  /** Before the opcode runs. */
  onOpcode?(step: OpcodeStep): void | Promise<void>
  /**
   * The opcode just given to `onOpcode` failed before running (geth logs such a step with its
   * error: out of gas, a stack check), or, with `undefined`, ran.
   */
  onOpcodeDone?(error: string | undefined): void
  onLog?(log: LogEntry): void
  onTxEnd?(end: { gasUsed: bigint }): void | Promise<void>
  /** The result, as JSON text. */
  result(): string
}

/** Makes a tracer for one transaction, with the budget the whole request shares. */
export type TracerFactory = (budget: TraceBudget) => Tracer
