/**
 * The fourth change to EthereumJS 10.1.3's interpreter (see ./interpreterPatch.ts and
 * patches/README.md change 13): the handlers of the opcodes every loop runs (PUSH1-PUSH32, JUMP,
 * JUMPI, ADD, SUB), with EthereumJS's effects and without its per-step costs there:
 *
 * - PUSH asks `isActivatedEIP` twice (EIP-6800, EIP-7864) before it reads the pushed value;
 * - JUMP and JUMPI compare the destination with `getCodeSize()`, a new BigInt of the code's length,
 *   before they look it up in the jump table;
 * - JUMPI, ADD and SUB take their operands with `popN(2)`, a new array, and ADD and SUB reduce
 *   with `mod`, a BigInt division.
 *
 * Each is a factory of EthereumJS's own handler: anything but the common case (a PUSH before the
 * jump analysis, a jump to a destination that is not a JUMPDEST, too few operands) is handed to
 * it as it stands, so its errors and messages are EthereumJS's. Installed only where those EIPs are
 * off (./fastHandlers.ts `installFastHandlers`).
 */

type Handler = (rs: StackRunState, common: unknown) => unknown

interface StackRunState {
  opCode: number
  programCounter: number
  shouldDoJumpAnalysis: boolean
  cachedPushes: Record<number, bigint>
  validJumps: Uint8Array
  stack: { readonly length: number; pop(): bigint; push(v: bigint): void }
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

/** By opcode: a factory of the handler from EthereumJS's own. */
export const STACK_OPS: ReadonlyMap<number, (own: Handler) => Handler> = new Map([
  [0x01, add],
  [0x03, sub],
  [0x56, jump],
  [0x57, jumpi],
  ...Array.from({ length: 32 }, (_, i) => [0x60 + i, push] as const),
])
