/**
 * Frames as geth's tracers see them: who calls whom for each kind of call (a DELEGATECALL is
 * from the contract whose code delegates, to the code's address; CALLCODE likewise to the code),
 * the frame geth opens for a call or creation that fails before running (beyond the call depth,
 * or a value the caller cannot afford: EthereumJS opens none and pushes 0), and geth's names of
 * EVM halts.
 */
import type { Message } from '@ethereumjs/evm'
import { bytesToHex } from '@ethereumjs/util'
import { GETH_HALT_NAMES } from '../execution/gethErrors.ts'
import type { FrameStart, FrameType, OpcodeStep } from './hooks.ts'
import { OP, opName } from './opcodes.ts'

const TYPES: Record<number, FrameType> = {
  [OP.CALL]: 'CALL',
  [OP.CALLCODE]: 'CALLCODE',
  [OP.DELEGATECALL]: 'DELEGATECALL',
  [OP.STATICCALL]: 'STATICCALL',
  [OP.CREATE]: 'CREATE',
  [OP.CREATE2]: 'CREATE2',
}

/** The frame `message` opens, made by the parent's opcode `opener` (none: the transaction's own). */
export function frameStart(message: Message, opener: number | undefined): FrameStart {
  const type: FrameType = opener !== undefined ? (TYPES[opener] ?? 'CALL') : message.to ? 'CALL' : 'CREATE'
  let from = message.caller.toString()
  // A creation's address is filled in once it ran.
  let to = message.to?.toString() ?? ''
  if (type === 'DELEGATECALL') {
    from = message.to!.toString()
    to = message.codeAddress.toString()
  } else if (type === 'CALLCODE') {
    to = message.codeAddress.toString()
  }
  return { depth: message.depth, type, from, to, input: message.data.slice(), gas: message.gasLimit, value: type === 'STATICCALL' ? undefined : message.value }
}

/** geth's name of an EVM halt (EthereumJS's error, and the opcode that halted). */
export function gethError(halt: string, op: number | undefined): string {
  if (halt === 'invalid opcode') return `invalid opcode: ${opName(op ?? OP.INVALID)}`
  if (halt.startsWith('invalid JUMP')) return 'invalid jump destination'
  return GETH_HALT_NAMES[halt] ?? halt
}

/** `size` bytes of memory from `offset`, zero past its end. */
export function memorySlice(memory: Uint8Array, offset: bigint, size: bigint): Uint8Array {
  const out = new Uint8Array(Number(size))
  out.set(memory.subarray(Number(offset), Number(offset + size)))
  return out
}

/**
 * The frame's memory as geth shows it: `length` bytes (its words times 32), zeros past the store.
 * A call's output area is charged (the words counted) before the callee's answer is written, and
 * only as much as it returned is: the store grows only as far as it is written (src/chain/vm/frameMemory.ts).
 */
export function memoryOf(store: Uint8Array, length: number): Uint8Array {
  if (store.length >= length) return store.slice(0, length)
  const out = new Uint8Array(length)
  out.set(store)
  return out
}

/** What a RETURN step returns: its memory range. */
export function returned(step: OpcodeStep): Uint8Array {
  const s = step.stack
  return memorySlice(step.memory, s[s.length - 1]!, s[s.length - 2]!)
}

/** A stack word as 32 bytes. */
export function toWord(n: bigint): Uint8Array {
  const hex = n.toString(16).padStart(64, '0')
  return Uint8Array.from(hex.match(/../g)!.map((b) => Number.parseInt(b, 16)))
}

const STIPEND = 2300n

/** The frame of the call or creation `step` made, with `gas` handed on (a call's before its stipend). */
export function failedFrame(step: OpcodeStep, callerValue: bigint | undefined, gas: bigint): FrameStart {
  const s = step.stack
  const at = (i: number): bigint => s[s.length - 1 - i] ?? 0n
  const slice = (offset: bigint, size: bigint): Uint8Array => memorySlice(step.memory, offset, size)
  const base = { depth: step.depth, from: step.address }
  switch (step.op) {
    case OP.CREATE:
    case OP.CREATE2:
      return { ...base, type: step.op === OP.CREATE ? 'CREATE' : 'CREATE2', to: '', input: slice(at(1), at(2)), gas, value: at(0) }
    case OP.CALL:
    case OP.CALLCODE: {
      const value = at(2)
      const type: FrameType = step.op === OP.CALL ? 'CALL' : 'CALLCODE'
      return { ...base, type, to: address(at(1)), input: slice(at(3), at(4)), gas: value > 0n ? gas + STIPEND : gas, value }
    }
    case OP.DELEGATECALL:
      return { ...base, type: 'DELEGATECALL', to: address(at(1)), input: slice(at(2), at(3)), gas, value: callerValue }
    default:
      return { ...base, type: 'STATICCALL', to: address(at(1)), input: slice(at(2), at(3)), gas, value: undefined }
  }
}

function address(word: bigint): string {
  return bytesToHex(Uint8Array.from((word & ((1n << 160n) - 1n)).toString(16).padStart(40, '0').match(/../g)!.map((b) => Number.parseInt(b, 16))))
}
