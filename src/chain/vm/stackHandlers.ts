/**
 * The fourth change to EthereumJS 10.1.3's interpreter (see ./interpreterPatch.ts and
 * patches/README.md changes 13 and 20): the handlers of the opcodes every loop runs (PUSH1-PUSH32,
 * JUMP, JUMPI, ADD, SUB) and CALLDATALOAD, with EthereumJS's effects and without its per-step
 * costs there:
 *
 * - PUSH asks `isActivatedEIP` twice (EIP-6800, EIP-7864) before it reads the pushed value;
 * - JUMP and JUMPI compare the destination with `getCodeSize()`, a new BigInt of the code's length,
 *   before they look it up in the jump table;
 * - JUMPI, ADD and SUB take their operands with `popN(2)`, a new array, and ADD and SUB reduce
 *   with `mod`, a BigInt division;
 * - CALLDATALOAD, which every call's dispatch runs (the selector, then each argument), reads the
 *   word through a hex string (`bytesToBigInt`) and shifts it by the bytes past the data's end.
 *
 * Each is a factory of EthereumJS's own handler: anything but the common case (a PUSH before the
 * jump analysis, a jump to a destination that is not a JUMPDEST, too few operands) is handed to
 * it as it stands, so its errors and messages are EthereumJS's.
 * Installed only where those EIPs are off (./fastHandlers.ts `installFastHandlers`).
 */

type Handler = (rs: StackRunState, common: unknown) => unknown

interface StackRunState {
  opCode: number
  programCounter: number
  shouldDoJumpAnalysis: boolean
  cachedPushes: Record<number, bigint>
  validJumps: Uint8Array
  stack: { readonly length: number; pop(): bigint; push(v: bigint): void }
  interpreter: { getCallData(): Uint8Array }
}

const TWO_POW256 = 1n << 256n

/** PUSH1-PUSH32 after the jump analysis: the value the analysis read (EthereumJS's expression). */
const push = (own: Handler): Handler => (rs, common) => {
  if (rs.shouldDoJumpAnalysis) return own(rs, common)
  rs.stack.push(rs.cachedPushes[rs.programCounter]!)
  rs.programCounter += rs.opCode - 0x5f
  return undefined
}

/**
 * A destination the jump table marks as a JUMPDEST is below the code's length, so it is a small
 * whole number and `Number(dest)` is exact; any other value (out of range, not a JUMPDEST, beyond
 * 2^53) is not marked, and EthereumJS's handler takes it.
 */
const jump = (own: Handler): Handler => (rs, common) => {
  const dest = rs.stack.pop()
  const at = Number(dest)
  if (rs.validJumps[at] === 1) {
    rs.programCounter = at
    return
  }
  rs.stack.push(dest)
  return own(rs, common)
}

const jumpi = (own: Handler): Handler => (rs, common) => {
  const stack = rs.stack
  if (stack.length < 2) return own(rs, common)
  const dest = stack.pop()
  const cond = stack.pop()
  if (cond === 0n) return
  const at = Number(dest)
  if (rs.validJumps[at] === 1) {
    rs.programCounter = at
    return
  }
  stack.push(cond)
  stack.push(dest)
  return own(rs, common)
}

/** Operands below 2^256: the sum is below 2^257 and the difference above -2^256, so one correction is `mod`. */
const add = (own: Handler): Handler => (rs, common) => {
  const stack = rs.stack
  if (stack.length < 2) return own(rs, common)
  const r = stack.pop() + stack.pop()
  stack.push(r >= TWO_POW256 ? r - TWO_POW256 : r)
  return undefined
}

const sub = (own: Handler): Handler => (rs, common) => {
  const stack = rs.stack
  if (stack.length < 2) return own(rs, common)
  const a = stack.pop()
  const r = a - stack.pop()
  stack.push(r < 0n ? r + TWO_POW256 : r)
  return undefined
}

/** One word of call data, read as a number through `words` (the bytes past the data's end are zeros). */
const word = new Uint8Array(32)
const words = new DataView(word.buffer)

/**
 * The 32 bytes of call data at the offset, zeros past its end, as a number: EthereumJS reads the
 * bytes there and shifts them left by the missing ones, which is the same number; an offset at or
 * past the end (EthereumJS: beyond the length, or an empty read) is 0.
 */
const calldataload = (own: Handler): Handler => (rs, common) => {
  const stack = rs.stack
  if (stack.length < 1) return own(rs, common)
  const data = rs.interpreter.getCallData()
  const pos = stack.pop()
  if (pos >= BigInt(data.length)) {
    stack.push(0n)
    return undefined
  }
  const at = Number(pos)
  const n = Math.min(32, data.length - at)
  if (n < 32) word.fill(0, n)
  word.set(data.subarray(at, at + n))
  stack.push((((((words.getBigUint64(0) << 64n) | words.getBigUint64(8)) << 64n) | words.getBigUint64(16)) << 64n) | words.getBigUint64(24))
  return undefined
}

/** By opcode: a factory of the handler from EthereumJS's own. */
export const STACK_OPS: ReadonlyMap<number, (own: Handler) => Handler> = new Map([
  [0x01, add],
  [0x03, sub],
  [0x35, calldataload],
  [0x56, jump],
  [0x57, jumpi],
  ...Array.from({ length: 32 }, (_, i) => [0x60 + i, push] as const),
])
