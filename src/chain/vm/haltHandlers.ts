/**
 * A change to EthereumJS 10.1.3's interpreter (see ./interpreterPatch.ts and patches/README.md
 * change 19): STOP and RETURN end the frame without a throw. EthereumJS's handlers end it by
 * throwing an `EVMError` of `STOP` (`trap`, and `finish` for RETURN), which its run loop catches
 * and treats as no error; V8 unwinds the stack for each, about 4 µs a throw here, once per frame.
 * In ./interpreterPatch.ts's loop (which marks its run state `halted: false`), these set `halted`
 * and the loop ends the frame as its catch of `STOP` would; under EthereumJS's own loop (no mark)
 * and with too few operands, EthereumJS's own handler runs as it stands.
 */

type Handler = (rs: HaltRunState, common: unknown) => unknown

interface HaltRunState {
  /** Set by the patched loop: false while it runs the frame, true once STOP or RETURN ended it. */
  halted?: boolean
  stack: { readonly length: number; pop(): bigint }
  memory: { read(offset: number, size: number): Uint8Array }
  interpreter: { _result: { returnValue?: Uint8Array } }
}

const stop = (own: Handler): Handler => (rs, common) => {
  if (rs.halted !== false) return own(rs, common)
  rs.halted = true
  return undefined
}

/** EthereumJS's RETURN (`popN(2)`, the memory read, `finish`) with `finish`'s throw left out. */
const ret = (own: Handler): Handler => (rs, common) => {
  if (rs.halted !== false || rs.stack.length < 2) return own(rs, common)
  const offset = rs.stack.pop()
  const length = rs.stack.pop()
  rs.interpreter._result.returnValue = length === 0n ? new Uint8Array(0) : rs.memory.read(Number(offset), Number(length))
  rs.halted = true
  return undefined
}

/** By opcode: a factory of the handler from EthereumJS's own. */
export const HALT_OPS: ReadonlyMap<number, (own: Handler) => Handler> = new Map([
  [0x00, stop],
  [0xf3, ret],
])
