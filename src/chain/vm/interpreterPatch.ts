/**
 * Three changes to EthereumJS 10.1.3's interpreter, applied at run time when `@ethereumjs/evm` is
 * first imported (./vmLibraries.ts), with a fourth to its frames' results (./frameResult.ts), a fifth to
 * their memory (./frameMemory.ts) and a sixth to how a call hands its message to a frame (./executeCall.ts). Each is written up as it would be offered upstream in
 * patches/README.md, with the figures. None changes what an execution computes.
 *
 * 1. `Common.isActivatedEIP` answers from a table indexed by EIP number instead of scanning the
 *    active EIPs' array (`Array.includes`): the interpreter asks it on every step (EIP-6800 and
 *    EIP-7864 in `runStep`) and the gas and opcode handlers many times more.
 * 2. `Interpreter.run` runs a step synchronously when nothing in it waits: an opcode with a fixed
 *    gas price whose handler returns no promise, with no step listener, no debug logging, no
 *    profiler. EthereumJS's `run` awaits an `async runStep` for every opcode, a promise and a
 *    microtask turn each; here a step that waits (a dynamic gas price: EthereumJS's gas handlers
 *    are all async) waits on its handler's promise only. A step listener, debug logging or a
 *    pending EIP-7928 call output send the step through EthereumJS's own `runStep`, and EOF code,
 *    the binary-tree (EIP-7864, EIP-6800) paths and the profiler through its own `run`. The jump-destination analysis of a
 *    code is kept per EVM opcode table and code (./codeAnalysis.ts) instead of made per frame, and a
 *    frame of a code analysed before reads it from its first step, not from its first jump
 *    (patches/README.md change 20).
 * 3. The memory and storage opcodes' handlers without EthereumJS's byte padding by array spread and
 *    with synchronous gas prices where the price is arithmetic (./fastHandlers.ts), and PUSH, JUMP,
 *    JUMPI, ADD, SUB and CALLDATALOAD without their per-step costs (./stackHandlers.ts), put in each EVM's
 *    opcode table as `EVM.getActiveOpcodes` builds it.
 *
 * Why at run time and not with patch-package: a patch-package patch is applied by the installing
 * project's own `postinstall`, so it reaches this repository's `node_modules` and not a user's,
 * where gateway-double is a dependency and EthereumJS is installed (and hoisted, shared with the
 * user's other packages) by the user's package manager. The same code, applied here to the
 * classes EthereumJS exports or that its objects reach, runs wherever gateway-double runs. It is
 * applied only to the exact version it was written against (checked from the package's
 * package.json); any other version runs unpatched.
 */
import { Common } from '@ethereumjs/common'
import { createEVM, EVM, EVMError } from '@ethereumjs/evm'
import { EthereumJSErrorWithoutCode } from '@ethereumjs/util'
import { codeAnalysis, keptAnalysis } from './codeAnalysis.ts'
import { ethereumjsVersion } from './ethereumjsVersion.ts'
import type { Analysis, OpEntry } from './codeAnalysis.ts'
import { installFastHandlers } from './fastHandlers.ts'
import { patchFrameMemory } from './frameMemory.ts'
import type { FrameClasses } from './frameMemory.ts'
import { patchFrameResult } from './frameResult.ts'
import { patchExecuteCall } from './executeCall.ts'

/** The EthereumJS version these changes were written against. */
export const PATCHED_VERSION = '10.1.3'

/** The EIPs active on a Common, as a table, for the `_activatedEIPsCache` array it was made from. */
interface EipTable {
  readonly list: readonly number[]
  readonly active: Uint8Array
}

const EIP_TABLE = Symbol('gateway-double.eipTable')

type CommonWithTable = Common & { _activatedEIPsCache: number[]; [EIP_TABLE]?: EipTable }

/** `Common.prototype.isActivatedEIP`: the same answer as `_activatedEIPsCache.includes(eip)`. */
function isActivatedEIP(this: CommonWithTable, eip: number): boolean {
  const list = this._activatedEIPsCache
  let table = this[EIP_TABLE]
  // EthereumJS replaces the array (never changes it in place) when the hardfork or EIPs change.
  if (table === undefined || table.list !== list) {
    const active = new Uint8Array(Math.max(0, ...list) + 1)
    for (const n of list) active[n] = 1
    table = { list, active }
    this[EIP_TABLE] = table
  }
  return table.active[eip] === 1
}

interface RunState {
  programCounter: number
  opCode: number
  code: Uint8Array
  validJumps: Uint8Array
  cachedPushes: Record<number, bigint>
  shouldDoJumpAnalysis: boolean
  gasLeft: bigint
  env: { accessWitness?: { commit(): void; revert(): void } }
  eip7928PostTargetCallOog?: unknown
  eip8037BurnLeftoverAfterCreateHaltOntoAlive?: boolean
  /** Set by ./haltHandlers.ts's STOP and RETURN when they end the frame (false while it runs). */
  halted?: boolean
}

interface InterpreterThis {
  _runState: RunState
  _evm: { DEBUG: boolean; events: { listenerCount(name: string): number }; _opcodeMap: OpEntry[] }
  common: Common
  profilerOpts?: { enabled?: boolean }
  runStep(entry: OpEntry | undefined): Promise<void>
  useGas(gas: bigint, context: unknown): void
  lookupOpInfo(op: number): OpEntry
  _getValidJumpDestinations(code: Uint8Array): Analysis
}

type RunResult = { runState: RunState; exceptionError: EVMError | undefined }
type Run = (this: InterpreterThis, code: Uint8Array, opts?: { pc?: number }) => Promise<RunResult>

const STOP = EVMError.errorMessages.STOP
const OUT_OF_GAS = EVMError.errorMessages.OUT_OF_GAS
const INVALID_OPCODE = EVMError.errorMessages.INVALID_OPCODE
const EVM_ERROR_TYPE = new EVMError(STOP).errorType

const commitWitness = (state: RunState) => () => state.env.accessWitness?.commit()

/**
 * One step as EthereumJS's `runStep` takes it, synchronously when it can: undefined when the step
 * is done, a promise when it waits (on a dynamic gas price, whose handlers are all async, or an
 * async opcode handler; with a step listener or a pending EIP-7928 call output, EthereumJS's own
 * `runStep` takes the step).
 */
function step(self: InterpreterThis, entry: OpEntry | undefined): Promise<void> | undefined {
  const state = self._runState
  const op = entry ?? self.lookupOpInfo(state.opCode)
  const info = op.opcodeInfo
  if (state.eip7928PostTargetCallOog !== undefined || self._evm.DEBUG || self._evm.events.listenerCount('step') > 0) {
    return self.runStep(op)
  }
  if (info.dynamicGas) {
    // A price, or a promise of one (EthereumJS's handlers; ./fastHandlers.ts answers at once where it can).
    const gas = op.gasHandler!(state, info.feeBigInt, self.common) as bigint | Promise<bigint>
    if (typeof gas === 'bigint') return execute(self, state, op, gas)
    return gas.then((price) => execute(self, state, op, price))
  }
  return execute(self, state, op, info.feeBigInt)
}

/** The rest of a step once its gas price is known: charged, then the opcode's handler run. */
function execute(self: InterpreterThis, state: RunState, op: OpEntry, gas: bigint): Promise<void> | undefined {
  const info = op.opcodeInfo
  if (info.isInvalid) throw new EVMError(INVALID_OPCODE)
  self.useGas(gas, info)
  state.programCounter++
  const result = op.opHandler(state, self.common)
  // EthereumJS awaits only the handlers its table marks async.
  if (info.isAsync && result instanceof Promise) return result.then(commitWitness(state))
  state.env.accessWitness?.commit()
  return undefined
}

/** `Interpreter.prototype.run` for legacy (non-EOF) code without the binary tree or profiler. */
async function fastRun(this: InterpreterThis, code: Uint8Array, opts: { pc?: number }): Promise<RunResult> {
  const state = this._runState
  state.code = code
  state.programCounter = opts.pc ?? state.programCounter
  const pc = state.programCounter
  if (pc !== 0 && (pc < 0 || pc >= code.length)) throw EthereumJSErrorWithoutCode('Internal error: program counter not in range')
  let err: EVMError | undefined
  let cached: (OpEntry | undefined)[] | undefined
  // A code analysed before (a token's, call after call) is read from its analysis from the first
  // step, not only from the first jump on (./codeAnalysis.ts `keptAnalysis`: the same entries and values).
  const known = state.shouldDoJumpAnalysis ? keptAnalysis(this, code) : undefined
  if (known !== undefined) {
    state.validJumps = known.jumps
    state.cachedPushes = known.pushes
    state.shouldDoJumpAnalysis = false
    cached = known.opcodesCached
  }
  // STOP and RETURN end the frame by setting this, not by throwing STOP (./haltHandlers.ts).
  state.halted = false
  while (state.programCounter < code.length) {
    const at = state.programCounter
    let entry: OpEntry | undefined
    if (cached === undefined) {
      const opCode = code[at]!
      // The analysis runs at the first jump, as EthereumJS's does.
      if (opCode === 0x56 || opCode === 0x57 || opCode === 0x5e) {
        const { jumps, pushes, opcodesCached } = codeAnalysis(this, code)
        state.validJumps = jumps
        state.cachedPushes = pushes
        state.shouldDoJumpAnalysis = false
        cached = opcodesCached
      }
      state.opCode = opCode
    } else {
      entry = cached[at]!
      state.opCode = entry.opcodeInfo.code
    }
    try {
      const waiting = step(this, entry)
      if (waiting !== undefined) await waiting
      if (state.halted) {
        // As the catch below takes a thrown STOP.
        state.env.accessWitness?.revert()
        break
      }
    } catch (e) {
      state.env.accessWitness?.revert()
      if (!('errorType' in (e as object) && (e as EVMError).errorType === EVM_ERROR_TYPE)) throw e
      if ((e as EVMError).error !== STOP) err = e as EVMError
      break
    }
  }
  if (err === undefined && state.eip8037BurnLeftoverAfterCreateHaltOntoAlive === true && state.gasLeft > 0n) {
    state.gasLeft = 0n
    err = new EVMError(OUT_OF_GAS)
  }
  return { runState: state, exceptionError: err }
}

function patchedRun(original: Run): Run {
  return function run(this: InterpreterThis, code: Uint8Array, opts: { pc?: number } = {}): Promise<RunResult> {
    const common = this.common
    if (this.profilerOpts?.enabled === true || (code[0] === 0xef && common.isActivatedEIP(3540)) || common.isActivatedEIP(7864) || common.isActivatedEIP(6800)) {
      return original.call(this, code, opts)
    }
    return fastRun.call(this, code, opts)
  }
}

/**
 * The interpreter's class, and its memory's and stack's. They are not among the package's
 * exports: a throwaway EVM runs a STOP whose handler, for that EVM only, reads the classes off
 * the interpreter running it and its run state.
 */
async function interpreterClasses(): Promise<FrameClasses & { Interpreter: { prototype: { run: Run } } }> {
  const evm = await createEVM()
  type ProbeState = { interpreter: object; memory: object; stack: object }
  const map = (evm as unknown as { _opcodeMap: { opHandler: (state: ProbeState, common: unknown) => unknown }[] })._opcodeMap
  const stop = map[0x00]!
  let found: (FrameClasses & { Interpreter: { prototype: { run: Run } } }) | undefined
  const classOf = (o: object) => Object.getPrototypeOf(o).constructor
  map[0x00] = {
    ...stop,
    opHandler: (state, common) => {
      found = { Interpreter: classOf(state.interpreter), Memory: classOf(state.memory), Stack: classOf(state.stack) }
      return stop.opHandler(state, common)
    },
  }
  await evm.runCode({ code: Uint8Array.of(0x00), gasLimit: 100_000n })
  if (found === undefined) throw new Error('EthereumJS ran no STOP: its interpreter is not where this change expects it')
  return found
}

let applied: boolean | undefined

/**
 * Applies the changes once (to the installed EthereumJS, if it is the version they were written
 * for). Answers whether they are in effect.
 */
export async function patchInterpreter(): Promise<boolean> {
  if (applied !== undefined) return applied
  applied = false
  if (ethereumjsVersion('@ethereumjs/evm') !== PATCHED_VERSION || ethereumjsVersion('@ethereumjs/common') !== PATCHED_VERSION) return false
  const frameClasses = await interpreterClasses()
  const Interpreter = frameClasses.Interpreter
  Common.prototype.isActivatedEIP = isActivatedEIP as Common['isActivatedEIP']
  Interpreter.prototype.run = patchedRun(Interpreter.prototype.run)
  patchFrameMemory(frameClasses)
  patchFrameResult()
  patchExecuteCall()
  // EthereumJS builds an EVM's opcode table here, at construction and at every change of hardfork.
  const evmProto = EVM.prototype as unknown as { getActiveOpcodes(this: EVM): unknown }
  const getActiveOpcodes = evmProto.getActiveOpcodes
  evmProto.getActiveOpcodes = function (this: EVM) {
    const opcodes = getActiveOpcodes.call(this)
    const evm = this as unknown as { _opcodeMap: Parameters<typeof installFastHandlers>[0]; common: Common }
    installFastHandlers(evm._opcodeMap, evm.common)
    return opcodes
  }
  applied = true
  return true
}
