/**
 * Steps of EthereumJS's interpreter as a tracer needs them, from wrappers around the opcode
 * handlers of one EVM, installed for one execution and removed after. EthereumJS's own `step`
 * event builds an object (memory and stack copied, lookups, an awaited emit) for every opcode
 * whether or not it is wanted: several times the cost of executing the opcode. A wrapper sees the
 * interpreter's state directly and only for the opcodes asked for.
 *
 * The interpreter runs an opcode as: gas handler (dynamic gas), gas charged, program counter
 * moved, handler. So `step` is told from the handler's wrapper, with the gas charged added back;
 * an opcode refused by its gas or stack checks before its handler ran is told as `refused`, and
 * one whose handler threw a stack failure as `failed`.
 */
import type { Address } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'

/** What the tracers read of EthereumJS's interpreter state (its `RunState`, which the package does not export). */
export interface RunState {
  programCounter: number
  gasLeft: bigint
  gasRefund: bigint
  memoryWordCount: bigint
  /** The gas a call or creation is about to hand on, set by its gas handler. */
  messageGasLimit?: bigint
  stack: { getStack(): bigint[] }
  memory: { _store: Uint8Array }
  /** What the frame's last call returned. */
  returnBytes: Uint8Array
  env: { address: Address; depth: number }
}

interface Entry {
  opcodeInfo: { code: number; feeBigInt: bigint; isAsync: boolean; dynamicGas: boolean }
  opHandler: (rs: RunState, common: unknown) => unknown
  gasHandler?: (rs: RunState, gas: bigint, common: unknown) => bigint | Promise<bigint>
}

/** What a frame's gas handler found for the opcode about to run. */
export interface GasCharge {
  cost: bigint
  gasBefore: bigint
  /** Memory words before the opcode expanded memory. */
  words: bigint
}

export interface StepSink {
  /** The opcode passed its gas checks and is about to run. May answer a promise only for `async` opcodes. */
  step(rs: RunState, op: number, charge: GasCharge): void | Promise<void>
  /** Its handler threw: the EVM's error (a stack failure is geth's check before running). */
  failed(rs: RunState, error: string): void
  /** Its gas handler threw (out of gas, stack): no `step`. */
  refused(rs: RunState, op: number, charge: GasCharge, error: string): void
  /** Its handler finished. */
  ran(rs: RunState): void
}

export interface HookOptions {
  /** The opcodes to watch ('all', or a list). */
  ops: 'all' | ReadonlySet<number>
  /** Opcodes whose `step` is awaited. */
  asyncOps: ReadonlySet<number>
}

/**
 * The charge of the opcode about to run, per frame, keyed by the frame's stack: the state a
 * frame's result carries is a copy of its interpreter state, with the same stack.
 */
const charges = new WeakMap<object, GasCharge>()

/** What the last gas handler of a frame found, if its opcode has not run yet (it failed on gas). */
export function pendingCharge(rs: RunState): GasCharge | undefined {
  return charges.get(rs.stack)
}

/** Installs the wrappers; returns what removes them. */
export function hookOpcodes(vm: VM, options: HookOptions, sink: StepSink): () => void {
  // Element access: the opcode table is internal to the EVM; the interpreter looks handlers up in it.
  const map = (vm.evm as unknown as { _opcodeMap: Entry[] })._opcodeMap
  const saved = [...map]
  for (let op = 0; op < map.length; op++) {
    const entry = map[op]
    if (!entry || entry.opcodeInfo.code !== op) continue
    if (options.ops !== 'all' && !options.ops.has(op)) continue
    map[op] = wrap(entry, op, options.asyncOps.has(op), sink)
  }
  return () => {
    for (let op = 0; op < saved.length; op++) map[op] = saved[op]!
  }
}

function wrap(entry: Entry, op: number, awaited: boolean, sink: StepSink): Entry {
  const info = entry.opcodeInfo
  const opcodeInfo = awaited && !info.isAsync ? (Object.freeze(Object.assign(Object.create(Object.getPrototypeOf(info) as object), info, { isAsync: true })) as Entry['opcodeInfo']) : info
  const gasHandler = entry.gasHandler
  const wrappedGas =
    gasHandler && info.dynamicGas
      ? async (rs: RunState, gas: bigint, common: unknown): Promise<bigint> => {
          const before = { gasBefore: rs.gasLeft, words: rs.memoryWordCount }
          try {
            const cost = await gasHandler(rs, gas, common)
            charges.set(rs.stack, { cost, ...before })
            return cost
          } catch (err) {
            const error = evmError(err)
            if (error !== undefined) {
              charges.set(rs.stack, { cost: gas, ...before })
              sink.refused(rs, op, { cost: gas, ...before }, error)
            }
            throw err
          }
        }
      : gasHandler
  const handler = entry.opHandler
  const opHandler = (rs: RunState, common: unknown): unknown => {
    const charge = charges.get(rs.stack) ?? { cost: info.feeBigInt, gasBefore: rs.gasLeft + info.feeBigInt, words: rs.memoryWordCount }
    charges.delete(rs.stack)
    const told = sink.step(rs, op, charge)
    if (told instanceof Promise) return told.then(() => run(handler, rs, common, sink))
    return run(handler, rs, common, sink)
  }
  return { ...entry, opcodeInfo, gasHandler: wrappedGas as Entry['gasHandler'], opHandler }
}

/** Runs the original handler, telling how it ended (sync or async, as the handler is). */
function run(handler: Entry['opHandler'], rs: RunState, common: unknown, sink: StepSink): unknown {
  let result: unknown
  try {
    result = handler(rs, common)
  } catch (err) {
    const error = evmError(err)
    if (error !== undefined) sink.failed(rs, error)
    throw err
  }
  if (result instanceof Promise) {
    return result.then(
      (value) => {
        sink.ran(rs)
        return value
      },
      (err: unknown) => {
        const error = evmError(err)
        if (error !== undefined) sink.failed(rs, error)
        throw err
      },
    )
  }
  sink.ran(rs)
  return result
}

function evmError(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && (err as { errorType?: string }).errorType === 'EVMError' ? (err as { error: string }).error : undefined
}
