/**
 * The system calls a Prague block makes after its transactions (EIP-7002's withdrawal queue,
 * EIP-7251's consolidation queue: `runBlock` calls each contract from the system address), answered
 * from the last block's run when nothing they read has changed.
 *
 * Each call runs ~80 opcodes that read the queue's four slots and store what they hold again when
 * the queue is empty: a full EVM call (a frame, its memory, checkpoints) per contract per block,
 * a third of mining an empty block. An execution is a function of what it reads: a contract's run
 * that used only the stack, memory, its calldata, caller and value, and its own storage, with no
 * step listener, gives the same return data and the same stores whenever its code and the slots it
 * read hold the same values. Such a run is kept (per VM and contract); the next call from the same
 * caller with the same gas whose code and read slots match stores the run's final values and
 * answers its result without executing. Anything else executes, and the run is kept when it
 * qualifies. `runBlock` reads only the result's return data and puts the system account back
 * itself, so the state after the block is the same, root for root.
 *
 * Of the run's final values, only those that differ from what their slot held when the run read it
 * are stored again: with the read slots matching, the others are in the state already. An empty
 * queue's run stores back every slot it read (geth's `SetState` of an unchanged value does nothing
 * either), so a kept run of it writes nothing: no state-manager writes, and no written slots for the
 * block's flush.
 */
import type { EVMResult } from '@ethereumjs/evm'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, bytesToUnprefixedHex, equalsBytes, unpadBytes } from '@ethereumjs/util'
import type { Address } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'

/** Opcodes whose outcome depends only on the stack, memory, calldata, caller, value, own code and own storage. */
const PURE = new Set([
  'STOP', 'ADD', 'MUL', 'SUB', 'DIV', 'SDIV', 'MOD', 'SMOD', 'ADDMOD', 'MULMOD', 'EXP', 'SIGNEXTEND',
  'LT', 'GT', 'SLT', 'SGT', 'EQ', 'ISZERO', 'AND', 'OR', 'XOR', 'NOT', 'BYTE', 'SHL', 'SHR', 'SAR', 'KECCAK256',
  'ADDRESS', 'CALLER', 'CALLVALUE', 'CALLDATALOAD', 'CALLDATASIZE', 'CALLDATACOPY', 'CODESIZE', 'CODECOPY',
  'POP', 'MLOAD', 'MSTORE', 'MSTORE8', 'SLOAD', 'SSTORE', 'JUMP', 'JUMPI', 'PC', 'MSIZE', 'JUMPDEST', 'MCOPY', 'RETURN',
])
const isPure = (name: string) => PURE.has(name) || /^(PUSH|DUP|SWAP)\d+$/.test(name)

type RunCallOpts = { caller?: Address; to?: Address; gasLimit?: bigint; message?: unknown; data?: Uint8Array; value?: bigint }

/**
 * A kept run: the code it ran, the first value of each slot it read, the last of each it stored
 * where that differs from the value read (or the slot was not read), its result.
 */
interface KeptRun {
  code: Uint8Array
  /** The contract's and each read slot's cache keys (unprefixed hex), with the slot, the value read, and that value as the storage cache holds it (RLP). */
  held: { address: string; slots: [string, Uint8Array, Uint8Array, Uint8Array][] }
  writes: Map<string, [Uint8Array, Uint8Array]>
  result: EVMResult
}

const kept = new WeakMap<VM, Map<string, KeptRun>>()

/** Runs `run` (a `runBlock` of `vm`) with the system calls answered from kept runs where they can be. */
export async function keepingSystemCalls<T>(vm: VM, systemAddress: Address, run: () => Promise<T>): Promise<T> {
  const evm = vm.evm
  const runCall = evm.runCall
  let runs = kept.get(vm)
  if (runs === undefined) kept.set(vm, (runs = new Map()))
  const byContract = runs
  evm.runCall = async (opts: RunCallOpts) => {
    const { caller, to } = opts
    const plain = opts.message === undefined && opts.data === undefined && (opts.value ?? 0n) === 0n
    if (!plain || caller === undefined || to === undefined || !caller.equals(systemAddress) || evm.events === undefined || evm.events.listenerCount('step') > 0) {
      return runCall.call(evm, opts as Parameters<typeof runCall>[0])
    }
    const key = `${to.toString()}:${opts.gasLimit}`
    const known = byContract.get(key)
    if (known !== undefined && (await stillHolds(vm, to, known))) {
      for (const [slot, value] of known.writes.values()) await vm.stateManager.putStorage(to, slot, value)
      return known.result
    }
    const { result, run: recorded } = await recordedRun(vm, to, () => runCall.call(evm, opts as Parameters<typeof runCall>[0]))
    if (recorded !== undefined) byContract.set(key, recorded)
    else byContract.delete(key)
    return result
  }
  try {
    return await run()
  } finally {
    evm.runCall = runCall
  }
}

/**
 * Whether the contract's code and read slots hold what the kept run read. What the state's caches
 * hold is what `getCode` and `getStorage` would answer, so it is compared where it lies (an LRU
 * peek: nothing moved, put or noted), with keys made once per kept run: through the state manager
 * (its hooks, each key's hex made twice, each value's RLP decoded) the check was most of what a kept
 * call still cost. What the caches lack is read through the state manager.
 */
async function stillHolds(vm: VM, to: Address, run: KeptRun): Promise<boolean> {
  const state = vm.stateManager
  const caches = (state as unknown as { _caches?: StateCaches })._caches
  const code = caches?.code?._lruCache?.peek(run.held.address)?.code
  if (!equalsBytes(code !== undefined && code.length > 0 ? code : await state.getCode(to), run.code)) return false
  const slots = caches?.storage?._lruCache?.peek(run.held.address)
  for (const [hex, slot, value, encoded] of run.held.slots) {
    const held = slots?.get(hex)
    if (held !== undefined ? !equalsBytes(held, encoded) : !equalsBytes(await state.getStorage(to, slot), value)) return false
  }
  return true
}

/** The parts of EthereumJS 10.1.3's caches (LRU-backed, the chain's) that `stillHolds` reads. */
interface StateCaches {
  code?: { _lruCache?: { peek(key: string): { code?: Uint8Array } | undefined } }
  storage?: { _lruCache?: { peek(key: string): Map<string, Uint8Array> | undefined } }
}

/** The cache keys of a kept run's reads, for `stillHolds`. */
function heldKeys(to: Address, reads: Map<string, [Uint8Array, Uint8Array]>): KeptRun['held'] {
  const slots = [...reads.values()].map(([slot, value]): [string, Uint8Array, Uint8Array, Uint8Array] => [bytesToUnprefixedHex(slot), slot, value, RLP.encode(value)])
  return { address: bytesToUnprefixedHex(to.bytes), slots }
}

/** Executes the call, noting its opcodes and its own storage's reads and stores; the run when it can be kept. */
async function recordedRun(vm: VM, to: Address, call: () => Promise<EVMResult>): Promise<{ result: EVMResult; run?: KeptRun }> {
  const state = vm.stateManager
  const reads = new Map<string, [Uint8Array, Uint8Array]>()
  const stores = new Map<string, [Uint8Array, Uint8Array]>()
  let pure = true
  const own = (address: Address) => address.equals(to)
  const getStorage = state.getStorage.bind(state)
  const putStorage = state.putStorage.bind(state)
  state.getStorage = async (address, slot) => {
    const value = await getStorage(address, slot)
    const hex = bytesToHex(slot)
    if (!own(address)) pure = false
    else if (!reads.has(hex) && !stores.has(hex)) reads.set(hex, [slot, value])
    return value
  }
  state.putStorage = async (address, slot, value) => {
    if (!own(address)) pure = false
    else stores.set(bytesToHex(slot), [slot, value])
    return putStorage(address, slot, value)
  }
  const step = (event: { opcode: { name: string } }, next?: () => void) => {
    if (!isPure(event.opcode.name)) pure = false
    next?.()
  }
  const events = vm.evm.events!
  events.on('step', step)
  try {
    const code = await state.getCode(to)
    const result = await call()
    const kept = pure && result.execResult.exceptionError === undefined
    return kept ? { result, run: { code, held: heldKeys(to, reads), writes: changedSlots(reads, stores), result } } : { result }
  } finally {
    events.off('step', step)
    delete (state as { getStorage?: unknown }).getStorage
    delete (state as { putStorage?: unknown }).putStorage
  }
}

/** The stores whose value is not the one their slot held when first read (compared without leading zeros, as slots hold them). */
function changedSlots(reads: Map<string, [Uint8Array, Uint8Array]>, stores: Map<string, [Uint8Array, Uint8Array]>): Map<string, [Uint8Array, Uint8Array]> {
  const changed = new Map<string, [Uint8Array, Uint8Array]>()
  for (const [hex, store] of stores) {
    const read = reads.get(hex)
    if (read === undefined || !equalsBytes(unpadBytes(read[1]), unpadBytes(store[1]))) changed.set(hex, store)
  }
  return changed
}
