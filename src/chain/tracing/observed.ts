/**
 * What the observer (./observer.ts) keeps per frame and per pending step, the opcodes it watches,
 * and what it reads of the VM outside any step: a transaction's start, an opcode's static fee, the
 * gas a creation hands on.
 */
import type { Message } from '@ethereumjs/evm'
import type { TypedTransaction } from '@ethereumjs/tx'
import { eoaCode7702RecoverAuthority } from '@ethereumjs/util'
import type { EOACode7702AuthorizationListBytesItem } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import type { FrameStart, OpcodeStep, TxStart } from './hooks.ts'
import type { RunState } from './opcodeHooks.ts'
import { OP } from './opcodes.ts'

export interface FrameState {
  start: FrameStart
  message: Message
  lastOp: number | undefined
  /** Gas left after the frame's last opcode ran (its start gas before any). */
  gasAfter: bigint
  /** Logs emitted in the frame and its finished children (dropped if it fails). */
  logs: number
  /** A child frame opened since the frame's last step. */
  entered: boolean
}

export interface Pending {
  step: OpcodeStep
  frame: FrameState
  rs: RunState | undefined
  /** A stack failure of the opcode's handler (geth's check before running). */
  error?: string
  /** For SELFDESTRUCT outside a static frame: the balance it sends. */
  selfdestructs?: bigint
  /** For a call: the gas it hands on (before any stipend). */
  calleeGas?: bigint
  /** Whether the tracer was told of it (it asked for this opcode). */
  told: boolean
  /** Its handler ran (it may have ended the frame: STOP, RETURN, REVERT, a bad jump...). */
  ran?: boolean
}

/** The opcodes the observer itself watches: frames open from them. */
// RETURN too: a creation that failed storing its code is told by its RETURN having run.
export const FRAME_OPS = [OP.CALL, OP.CALLCODE, OP.DELEGATECALL, OP.STATICCALL, OP.CREATE, OP.CREATE2, OP.SELFDESTRUCT, OP.RETURN]
export const LOG_OPS = [0xa0, 0xa1, 0xa2, 0xa3, 0xa4]
export const STACK_FAILURES = new Set(['stack underflow', 'stack overflow'])
/** Halts found before an opcode's handler runs (so with no step from its wrapper). */
export const REFUSED = new Set(['out of gas', 'stack underflow', 'stack overflow', 'invalid opcode', 'static state change'])
/** How often (in steps) the deadline is checked. */
export const TIME_CHECK_STEPS = 1024

export const EMPTY = new Uint8Array()

export function codeOf(frame: FrameState): Uint8Array {
  return frame.message.code instanceof Uint8Array ? frame.message.code : EMPTY
}

/** What the tracer is told as a transaction starts: its EIP-7702 authorities as geth recovers them. */
export function txStartOf(vm: VM, tx: TypedTransaction, coinbase: string): TxStart {
  const authorities: string[] = []
  for (const item of (tx as { authorizationList?: EOACode7702AuthorizationListBytesItem[] }).authorizationList ?? []) {
    // A tuple whose signature does not recover is skipped, as geth skips it.
    try {
      authorities.push(eoaCode7702RecoverAuthority(item).toString())
    } catch {}
  }
  return {
    from: tx.getSenderAddress().toString(),
    to: tx.to?.toString(),
    gasLimit: tx.gasLimit,
    coinbase,
    authorities,
    state: vm.evm.stateManager,
    cancun: vm.common.gteHardfork('cancun'),
    prague: vm.common.gteHardfork('prague'),
  }
}

/** An opcode's static fee in the VM's fork. */
export function staticFee(vm: VM, op: number): bigint {
  const entry = (vm.evm as unknown as { _opcodeMap: { opcodeInfo: { feeBigInt: bigint } }[] })._opcodeMap[op]
  return entry?.opcodeInfo.feeBigInt ?? 0n
}

/** The gas a creation hands on: all but a 64th of what is left after its cost (EIP-150). */
export function createGas(vm: VM, step: OpcodeStep): bigint {
  const left = step.gas - step.cost
  return vm.common.gteHardfork('tangerineWhistle') ? left - left / 64n : left
}
