/**
 * A time limit for EVM executions, and turns for everyone else while one runs.
 *
 * EthereumJS runs opcodes through awaited promises that resolve at once: an execution never gives
 * the event loop a turn, so a call burning 2^24 gas held every other request for its whole run
 * (about 0.6 s on this machine; a batch of ten, 6 s). `guardVm` wraps a VM's handlers of JUMP and
 * JUMPI (every loop passes one) and of the calls and creations (recursion without loops): every
 * `CHECK_EVERY` of them, the execution under way reads the clocks, and
 * - past its budget (CPU time, see `ExecutionBudget`), throws `ExecutionTimeout` (geth's
 *   `--rpc.evmtimeout`: the caller answers `execution aborted (timeout = 5s)`, and must restore
 *   the VM, see `restoreVm`);
 * - past its slice (`sliceMs`, default 10 ms), waits for one turn of the event loop
 *   (`setImmediate`), in which other requests are read and answered.
 *
 * The wrapped handlers are marked async so that the interpreter awaits them; an execution without
 * a budget pays a property check per such opcode.
 */
import type { VM } from '@ethereumjs/vm'
import { wrapOpcodes } from './opcodeMap.ts'

/** geth's default `--rpc.evmtimeout`. */
export const DEFAULT_EVM_TIMEOUT_MS = 5000
/** How long an execution runs before it lets the event loop take a turn. */
export const DEFAULT_SLICE_MS = 10
/** Guarded opcodes between two reads of the clocks (a read of the CPU clock, a system call, costs about as much as ten JUMPs on the synchronous step path of ./interpreterPatch.ts). */
const CHECK_EVERY = 256

/** JUMP, JUMPI; CALL, CALLCODE, DELEGATECALL, STATICCALL; CREATE, CREATE2. */
const GUARDED_OPCODES = [0x56, 0x57, 0xf1, 0xf2, 0xf4, 0xfa, 0xf0, 0xf5]

/** The execution ran past its time limit. `message` is geth's. */
export class ExecutionTimeout extends Error {
  override readonly name = 'ExecutionTimeout'
  constructor(readonly timeoutMs: number) {
    super(`execution aborted (timeout = ${goDuration(timeoutMs)})`)
  }
}

/** A Go `time.Duration` as `%v` prints it: `5s`, `1.5s`, `500ms`, `1m30s`, `0s`. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s'
  if (ms < 1000) return `${ms}ms`
  const hours = Math.floor(ms / 3_600_000)
  const minutes = Math.floor((ms % 3_600_000) / 60_000)
  const seconds = (ms % 60_000) / 1000
  const s = Number.isInteger(seconds) ? String(seconds) : seconds.toFixed(3).replace(/0+$/, '')
  return `${hours > 0 ? `${hours}h` : ''}${hours > 0 || minutes > 0 ? `${minutes}m` : ''}${s}s`
}

/**
 * The time a request's executions may take: one for an eth_call, one for all the executions of an
 * eth_estimateGas. What counts is the CPU time of the executions themselves: not the time spent
 * waiting for their turn, nor the turns they give other requests, nor CPU the machine gives other
 * processes (a suite on a loaded CI machine gets the answers it gets on a quiet one; geth's limit
 * is wall time on a node that runs calls in parallel).
 */
export class ExecutionBudget {
  /** 0: no limit. */
  readonly timeoutMs: number
  /** 0: never yield. */
  readonly sliceMs: number
  /** CPU time used so far, in µs. */
  usedMicros = 0

  constructor(timeoutMs = DEFAULT_EVM_TIMEOUT_MS, sliceMs = DEFAULT_SLICE_MS) {
    this.timeoutMs = timeoutMs
    this.sliceMs = sliceMs
  }

  /** Throws once the budget is used up. */
  check(): void {
    if (this.timeoutMs !== 0 && this.usedMicros >= this.timeoutMs * 1000) throw new ExecutionTimeout(this.timeoutMs)
  }
}

/** The process's CPU time, in µs (the execution's own, between two turns of the event loop). */
function cpuMicros(): number {
  const { user, system } = process.cpuUsage()
  return user + system
}

/**
 * One execution under way: its budget, the CPU time when last counted, the end of its slice.
 *
 * Until its first check (after `CHECK_EVERY` jumps and calls) an execution's time is the wall time
 * since it started (`performance.now()`): most calls end before that check, and so never pay for
 * `process.cpuUsage()` (a getrusage system call: 7% of the CPU of a short `eth_call` in a profile).
 * Before that check the execution has not yielded a turn, so its wall time is its own, give or take
 * the microtasks of other requests run between its awaited steps.
 */
export interface ExecutionGuard {
  readonly budget: ExecutionBudget
  /** When the execution started (`performance.now()`). */
  readonly started: number
  /** The process's CPU time when last counted; undefined until the first check. */
  cpuMark: number | undefined
  sliceEnd: number
  steps: number
}

/** Starts an execution on `budget` (throws when it is used up). */
export function guardFor(budget: ExecutionBudget): ExecutionGuard {
  budget.check()
  const started = performance.now()
  const sliceEnd = budget.sliceMs === 0 ? Number.POSITIVE_INFINITY : started + budget.sliceMs
  return { budget, started, cpuMark: undefined, sliceEnd, steps: 0 }
}

/** Wall time since the execution started, in µs: its time until the first check. */
function sinceStart(guard: ExecutionGuard): number {
  return Math.round((performance.now() - guard.started) * 1000)
}

/** Counts the CPU time since the last count (the wall time since the start, at the first). */
function count(guard: ExecutionGuard): void {
  const first = guard.cpuMark === undefined ? sinceStart(guard) : 0
  const now = cpuMicros()
  guard.budget.usedMicros += guard.cpuMark === undefined ? first : now - guard.cpuMark
  guard.cpuMark = now
}

/** Ends an execution: its time is counted. */
export function endGuard(guard: ExecutionGuard): void {
  if (guard.cpuMark === undefined) guard.budget.usedMicros += sinceStart(guard)
  else count(guard)
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * Wraps `vm`'s guarded opcode handlers (whatever is in its opcode map now, wrappers included) to
 * check the guard `current()` answers: none, nothing is checked.
 */
export function guardVm(vm: VM, current: () => ExecutionGuard | undefined): void {
  wrapOpcodes(vm, GUARDED_OPCODES, (entry) => {
    const handler = entry.opHandler
    const check = async (guard: ExecutionGuard, args: unknown[]): Promise<unknown> => {
      count(guard)
      guard.budget.check()
      if (performance.now() >= guard.sliceEnd) {
        await turn()
        // What ran during the turn was other requests'.
        guard.cpuMark = cpuMicros()
        guard.sliceEnd = performance.now() + guard.budget.sliceMs
      }
      return handler(...args)
    }
    return {
      ...entry,
      opcodeInfo: Object.freeze({ ...entry.opcodeInfo, isAsync: true }),
      opHandler: (...args: unknown[]) => {
        const guard = current()
        if (guard !== undefined && ++guard.steps >= CHECK_EVERY) {
          guard.steps = 0
          return check(guard, args)
        }
        return handler(...args)
      },
    }
  })
}

/**
 * Puts a VM whose execution was cut short by `ExecutionTimeout` back as it was before: the error
 * went through the nested calls' frames without their rollbacks, so the state manager still has
 * their checkpoints (reverted down to `checkpoints`, the count before the execution), the journal
 * their entries and the transient storage their frames.
 */
export async function restoreVm(vm: VM, checkpoints: number): Promise<void> {
  const state = vm.stateManager as unknown as { _checkpointCount: number; revert(): Promise<void> }
  while (state._checkpointCount > checkpoints) await state.revert()
  const evm = vm.evm as unknown as { journal: { cleanJournal(): void }; transientStorage: { clear(): void; _indices: number[] } }
  evm.journal.cleanJournal()
  evm.transientStorage.clear()
  evm.transientStorage._indices = [0]
}

/** The state manager's checkpoint count (to restore to after a timeout). */
export function checkpointsOf(vm: VM): number {
  return (vm.stateManager as unknown as { _checkpointCount: number })._checkpointCount
}
