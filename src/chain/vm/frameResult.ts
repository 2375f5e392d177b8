/**
 * Change 8 to EthereumJS 10.1.3 (patches/README.md), applied with the interpreter's
 * (./interpreterPatch.ts): `EVM.runInterpreter` makes a frame result's `runState` when it is
 * read, not when the frame ends.
 *
 * EthereumJS ends every frame with `runState: { ...interpreterRes.runState, ...result,
 * ...interpreter._env }`: about 45 properties copied into a new object, whose shapes differ
 * frame by frame, so V8's copy takes its slow path. Nothing reads it on a call's way back (the
 * callers read `exceptionError`, `returnValue`, the gas); a halt's opcode and the tracers do,
 * rarely. Here `runState` is an accessor of the result that makes the same object the first time
 * it is read (and keeps it: a second read answers the same object, as before); assigning it
 * replaces it. The frame's interpreter is done when the result is made, so the object made later
 * holds what the eager copy held. It stays an own enumerable property, so a spread of the result
 * (EthereumJS's `{ ...result, ...OOGResult(gas) }`) copies it as a value, as before.
 *
 * Everything else is EthereumJS's `runInterpreter` as it is, in its order (its interpreter made by
 * ./frameMemory.ts's `interpreterFor`, change 14, with an empty memory). An EVM without a block
 * set (`_block`; `runCall` and `runCode` always set one) runs EthereumJS's own.
 */
import { Account, createZeroAddress } from '@ethereumjs/util'
import type { Address } from '@ethereumjs/util'
import { EVM, EVMError } from '@ethereumjs/evm'
import { interpreterFor } from './frameMemory.ts'

const REVERT = EVMError.errorMessages.REVERT
const INVALID_EOF_FORMAT = EVMError.errorMessages.INVALID_EOF_FORMAT

interface FrameMessage {
  to?: Address
  caller?: Address
  data?: Uint8Array
  value?: bigint
  code?: unknown
  isStatic?: boolean
  isCreate?: boolean
  depth?: number
  codeAddress?: Address
  gasRefund?: bigint
  chargeCodeAccesses?: unknown
  blobVersionedHashes?: Uint8Array[]
  accessWitness?: { commit(): void }
  createdAddresses?: Set<string>
  selfdestruct?: Map<string, Uint8Array>
  gasLimit: bigint
}

interface InterpreterResult {
  runState: { gasLeft: bigint; gasRefund: bigint; stateGasSpilled: bigint }
  exceptionError: EVMError | undefined
}

interface FrameInterpreter {
  _result: { returnValue?: Uint8Array; selfdestruct?: unknown; createdAddresses?: unknown; logs: unknown[] }
  _env: object
  run(code: unknown, opts: object): Promise<InterpreterResult>
}

interface EvmThis {
  stateManager: { getAccount(address: Address): Promise<Account | undefined> }
  blockchain: unknown
  journal: unknown
  performanceLogger: unknown
  _optsCached: { profiler?: unknown }
  _tx: { gasPrice: bigint; origin?: Address }
  _block: unknown
}

type RunInterpreter = (this: EvmThis, message: FrameMessage, opts?: { initialLogs?: unknown[] }) => Promise<unknown>

function lazyRunInterpreter(original: RunInterpreter): RunInterpreter {
  return async function runInterpreter(this: EvmThis, message: FrameMessage, opts: { initialLogs?: unknown[] } = {}) {
    if (this._block === undefined) return original.call(this, message, opts)
    let contract = await this.stateManager.getAccount(message.to ?? createZeroAddress())
    if (!contract) contract = new Account()
    const env = {
      address: message.to ?? createZeroAddress(),
      caller: message.caller ?? createZeroAddress(),
      callData: message.data ?? Uint8Array.from([0]),
      callValue: message.value ?? 0n,
      code: message.code,
      isStatic: message.isStatic ?? false,
      isCreate: message.isCreate ?? false,
      depth: message.depth ?? 0,
      gasPrice: this._tx.gasPrice,
      origin: this._tx.origin ?? message.caller ?? createZeroAddress(),
      block: this._block,
      contract,
      codeAddress: message.codeAddress,
      gasRefund: message.gasRefund,
      chargeCodeAccesses: message.chargeCodeAccesses,
      blobVersionedHashes: message.blobVersionedHashes ?? [],
      accessWitness: message.accessWitness,
      createdAddresses: message.createdAddresses,
      initialLogs: opts.initialLogs,
    }
    // EthereumJS's `new Interpreter(...)` with an empty memory (./frameMemory.ts).
    const interpreter = interpreterFor(this as never, this.stateManager, this.blockchain, env, message.gasLimit, this.journal, this.performanceLogger, this._optsCached.profiler) as FrameInterpreter
    if (message.selfdestruct) interpreter._result.selfdestruct = message.selfdestruct
    if (message.createdAddresses) interpreter._result.createdAddresses = message.createdAddresses
    const interpreterRes = await interpreter.run(message.code, opts)
    let result = interpreter._result
    let gasUsed = message.gasLimit - interpreterRes.runState.gasLeft
    if (interpreterRes.exceptionError) {
      const error = interpreterRes.exceptionError.error
      if (error !== REVERT && error !== INVALID_EOF_FORMAT) gasUsed = message.gasLimit
      // Clear the result on error: EthereumJS's `{ ...result, logs: [], selfdestruct, createdAddresses }`, by assignment (see below).
      const cleared = copyOf(result) as typeof result
      cleared.logs = []
      cleared.selfdestruct = new Map()
      cleared.createdAddresses = new Set()
      result = cleared
    }
    message.accessWitness?.commit()
    const frameState = interpreterRes.runState
    // EthereumJS's `{ ...result, runState, exceptionError, ... }`, its keys in its order (the
    // literal this replaced put `runState` last). Made by assignment: on Node 20 a literal that
    // adds properties after a spread, or an accessor with closures of its own, takes V8's slow
    // path with new hidden classes per frame (~12 µs a frame in a micro-benchmark, ~3 µs this
    // way). `runState`'s getter and setter are shared by every frame's result.
    const out = copyOf(result)
    Object.defineProperty(out, 'runState', RUN_STATE)
    out.exceptionError = interpreterRes.exceptionError
    out.gas = frameState?.gasLeft
    out.executionGasUsed = gasUsed
    out.gasRefund = frameState.gasRefund
    out.stateGasSpilled = frameState.stateGasSpilled
    out.returnValue = result.returnValue ?? new Uint8Array(0)
    frames.set(out, { state: frameState, result, env: interpreter._env, runState: undefined })
    return out
  }
}

/** A plain object's own properties, in order, copied onto a new one (`{ ...o }`), ready to take more without V8's slow path. */
function copyOf(o: object): Record<string, unknown> {
  const copy: Record<string, unknown> = {}
  for (const key in o) copy[key] = (o as Record<string, unknown>)[key]
  return copy
}

/** What a frame result's `runState` is made of, and the object once made (or assigned). */
interface FrameParts {
  state: object
  result: object
  env: object
  runState: object | undefined
}

/** Each frame result's parts, for its `runState` accessor (weakly: they go with the result). */
const frames = new WeakMap<object, FrameParts>()

const RUN_STATE: PropertyDescriptor = {
  get(this: object): object {
    const parts = frames.get(this)!
    return (parts.runState ??= { ...parts.state, ...parts.result, ...parts.env })
  },
  set(this: object, value: object) {
    frames.get(this)!.runState = value
  },
  enumerable: true,
  configurable: true,
}

/** EthereumJS's own `runInterpreter`, once the change is in (tests compare the two). */
export let ethereumjsRunInterpreter: unknown

/** Puts the change into `EVM.prototype` (once, from ./interpreterPatch.ts, after ./frameMemory.ts's). */
export function patchFrameResult(): void {
  const proto = EVM.prototype as unknown as { runInterpreter: RunInterpreter }
  ethereumjsRunInterpreter = proto.runInterpreter
  proto.runInterpreter = lazyRunInterpreter(proto.runInterpreter)
}
