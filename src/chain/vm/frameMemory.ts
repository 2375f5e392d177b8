/**
 * Change 14 to EthereumJS 10.1.3 (patches/README.md), applied with the interpreter's
 * (./interpreterPatch.ts, ./frameResult.ts): a frame's memory starts empty and grows to what the
 * code touches, not from an 8 KiB buffer allocated for every frame.
 *
 * EthereumJS's `Memory` constructor allocates `new Uint8Array(8192)` and `extend` grows it by
 * whole 8 KiB steps (`concatBytes(store, new Uint8Array(expandBy))`: two allocations). Every call
 * frame makes one, and most use a few hundred bytes (a token's `balanceOf` or `transfer` stays
 * under 0x100). A typed array that large lives outside V8's heap (malloc'd, zero-filled): every
 * `eth_call` and `eth_estimateGas` runs at least one frame, so under the bench's load of distinct
 * ones these dead buffers piled up between collections (`arrayBuffers` 30 MiB before a full GC)
 * and grew glibc's heap, which keeps what it once held (the bench's server: the brk heap 8 -> 42
 * MiB of resident memory after its load).
 *
 * Here a frame's interpreter is made with a memory whose store is empty (`interpreterFor`, the
 * fields of EthereumJS's `Interpreter` constructor in its order), and `Memory.prototype.extend`
 * grows the store to at least twice its length (256 bytes at first), never more than 8 KiB past
 * what is asked, in one allocation. The store's length is never observable (MSIZE and gas read
 * `memoryWordCount`; a read past the store zero-fills through `extend`, as before).
 */
import { EthereumJSErrorWithoutCode } from '@ethereumjs/util'

/** EthereumJS's growth step, the most a store grows past what is asked. */
const STEP = 8192
const FIRST = 256
const EMPTY = new Uint8Array(0)

interface MemoryLike {
  _store: Uint8Array
}

/** EthereumJS's `extend`, growing by doubling: the same bytes, zeros past what was written. */
function extend(this: MemoryLike, offset: number, size: number): void {
  if (size === 0) return
  const wanted = Math.ceil((offset + size) / 32) * 32
  const store = this._store
  if (wanted <= store.length) return
  const grown = new Uint8Array(Math.min(Math.max(wanted, store.length * 2, FIRST), wanted + STEP))
  grown.set(store)
  this._store = grown
}

type Ctor = { prototype: object }

/** The classes a frame's interpreter is made of, read off one (./interpreterPatch.ts's probe). */
export interface FrameClasses {
  Interpreter: Ctor
  Memory: Ctor
  Stack: new () => unknown
}

let classes: FrameClasses | undefined

/** The classes read off EthereumJS's interpreter, once the change is in (tests make interpreters both ways). */
export const frameClasses = (): FrameClasses | undefined => classes

/** EthereumJS's own `Memory.prototype.extend`, once the change is in (tests compare the two). */
export let ethereumjsExtend: ((offset: number, size: number) => void) | undefined

/** Puts the change into EthereumJS's `Memory` and keeps the classes for `interpreterFor`. */
export function patchFrameMemory(found: FrameClasses): void {
  classes = found
  const proto = found.Memory.prototype as { extend: typeof extend }
  ethereumjsExtend = proto.extend
  proto.extend = extend
}

/** EthereumJS's `new Interpreter(...)`, field for field, with an empty memory. */
export function interpreterFor(
  evm: { common: { consensusType(): string }; _optsCached: { cliqueSigner?: unknown } },
  stateManager: unknown,
  blockchain: unknown,
  env: { gasRefund?: bigint; initialLogs?: unknown[] },
  gasLeft: bigint,
  journal: unknown,
  performanceLogs: unknown,
  profilerOpts: unknown,
): object {
  const { Interpreter, Memory, Stack } = classes!
  const memory = Object.create(Memory.prototype) as MemoryLike
  memory._store = EMPTY
  const it = Object.create(Interpreter.prototype) as Record<string, unknown>
  it.opDebuggers = {}
  it._evm = evm
  it._stateManager = stateManager
  it.common = evm.common
  if (evm.common.consensusType() === 'poa' && evm._optsCached.cliqueSigner === undefined) {
    throw EthereumJSErrorWithoutCode('Must include cliqueSigner function if clique/poa is being used for consensus type')
  }
  it._runState = {
    programCounter: 0,
    opCode: 0xfe,
    memory,
    memoryWordCount: 0n,
    highestMemCost: 0n,
    stack: new Stack(),
    code: new Uint8Array(0),
    validJumps: Uint8Array.from([]),
    cachedPushes: {},
    stateManager,
    blockchain,
    env,
    shouldDoJumpAnalysis: true,
    interpreter: it,
    gasRefund: env.gasRefund,
    gasLeft,
    stateGasSpilled: 0n,
    returnBytes: new Uint8Array(0),
  }
  it.journal = journal
  it._env = env
  it._result = { logs: env.initialLogs ? [...env.initialLogs] : [], returnValue: undefined, selfdestruct: new Map() }
  it.profilerOpts = profilerOpts
  it.performanceLogger = performanceLogs
  return it
}
