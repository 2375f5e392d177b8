/**
 * Derives geth's tracing hooks (./hooks.ts) from one EVM's execution: transactions and frames
 * from EthereumJS's events, opcodes from wrappers around its handlers (./opcodeHooks.ts). Where
 * the two EVMs differ, the observer answers as geth:
 *
 * - a step is told before it runs and confirmed at the next event, with geth's error when it
 *   failed its gas or stack checks (geth logs such a step with the error, others without);
 * - a call's cost includes the gas it hands on (EthereumJS charges it later);
 * - a frame that runs off the end of its code gets geth's final `STOP` step, and an invalid
 *   opcode its step (EthereumJS stops before either);
 * - a call or creation that fails before opening a frame (call depth, balance) still gets its
 *   frame, as geth opens one, and SELFDESTRUCT gets geth's frame too;
 * - a frame's error is geth's name for the halt.
 *
 * The VM may be shared (a block's call VM): the observer is attached for one execution and
 * detached after it, and executions on a VM take turns.
 */
import type { EVMResult, Message } from '@ethereumjs/evm'
import type { TypedTransaction } from '@ethereumjs/tx'
import { bigIntToBytes, bytesToBigInt, bytesToHex, setLengthLeft } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { failedFrame, frameStart, gethError, memoryOf, memorySlice, returned, toWord } from './frames.ts'
import type { OpcodeStep, Tracer } from './hooks.ts'
import type { TraceBudget } from './limits.ts'
import { hookOpcodes, pendingCharge } from './opcodeHooks.ts'
import type { GasCharge, RunState } from './opcodeHooks.ts'
import { codeOf, createGas, EMPTY, FRAME_OPS, LOG_OPS, REFUSED, STACK_FAILURES, staticFee, TIME_CHECK_STEPS, txStartOf } from './observed.ts'
import type { FrameState, Pending } from './observed.ts'
import { isCallOp, isCreateOp, OP, opName, stackFailure } from './opcodes.ts'

export interface ObserveOptions {
  tracer: Tracer
  budget: TraceBudget
  coinbase: string
  /** geth's `log.Index` of the transaction's first log (the logs of earlier transactions in the block). */
  firstLogIndex: number
}

export class Observer {
  readonly #vm: VM
  readonly #tracer: Tracer
  readonly #budget: TraceBudget
  readonly #coinbase: string
  readonly #frames: FrameState[] = []
  readonly #addresses = new WeakMap<RunState, string>()
  #pending: Pending | undefined
  #logIndex: number
  #steps = 0
  /** A failure in an awaited listener, thrown at the next event. */
  #failure: unknown
  readonly #listeners: [string, unknown, 'vm' | 'evm'][]
  readonly #unhook: () => void
  /** The opcodes the tracer asked for, when it named them. */
  readonly #wanted: ReadonlySet<number>

  constructor(vm: VM, opts: ObserveOptions) {
    this.#vm = vm
    this.#tracer = opts.tracer
    this.#budget = opts.budget
    this.#coinbase = opts.coinbase
    this.#logIndex = opts.firstLogIndex
    const awaited =
      <T,>(fn: (data: T) => Promise<void>) =>
      (data: T, resolve: () => void) => {
        this.#checks()
        fn(data).then(resolve, (err: unknown) => {
          this.#failure = err
          resolve()
        })
      }
    this.#listeners = [
      ['beforeTx', awaited((tx: TypedTransaction) => this.#txStart(tx)), 'vm'],
      ['afterTx', awaited((r: { totalGasSpent: bigint }) => this.#txEnd(r)), 'vm'],
      ['beforeMessage', awaited((m: Message) => this.#enter(m)), 'evm'],
      ['afterMessage', awaited((r: EVMResult) => this.#exit(r)), 'evm'],
    ]
    for (const [name, fn, on] of this.#listeners) this.#emitter(on).on(name, fn)
    const wanted = this.#tracer.opcodes
    this.#wanted = new Set(wanted?.which === 'all' ? [] : (wanted?.which ?? []))
    const ops = wanted?.which === 'all' ? 'all' : new Set([...FRAME_OPS, ...LOG_OPS, ...this.#wanted])
    const asyncOps = new Set([OP.SELFDESTRUCT, ...(wanted?.async && wanted.which !== 'all' ? wanted.which : [])])
    this.#unhook = hookOpcodes(vm, { ops, asyncOps }, {
      step: (rs, op, charge) => this.#step(rs, op, charge),
      failed: (_rs, error) => {
        if (!this.#pending) return
        if (STACK_FAILURES.has(error)) this.#pending.error = error
        else this.#pending.ran = true
      },
      refused: () => {},
      ran: (rs) => {
        if (this.#pending) this.#pending.ran = true
        const frame = this.#frames[this.#frames.length - 1]
        if (frame) frame.gasAfter = rs.gasLeft
      },
    })
  }

  /** Stops observing; the VM is left as it was. */
  detach(): void {
    this.#unhook()
    for (const [name, fn, on] of this.#listeners) this.#emitter(on).off(name, fn)
  }

  /** A failure of an awaited listener not yet thrown. */
  get failure(): unknown {
    return this.#failure
  }

  /** The VM's or its EVM's event emitter (listeners are untyped here: each is paired with its event above). */
  #emitter(on: 'vm' | 'evm'): { on(name: string, fn: unknown): void; off(name: string, fn: unknown): void } {
    return (on === 'vm' ? this.#vm.events : this.#vm.evm.events!) as unknown as { on(name: string, fn: unknown): void; off(name: string, fn: unknown): void }
  }

  #checks(): void {
    if (this.#failure !== undefined) throw this.#failure
    this.#budget.checkTime()
  }

  async #txStart(tx: TypedTransaction): Promise<void> {
    await this.#tracer.onTxStart?.(txStartOf(this.#vm, tx, this.#coinbase))
  }

  async #txEnd(result: { totalGasSpent: bigint }): Promise<void> {
    this.#settle()
    await this.#tracer.onTxEnd?.({ gasUsed: result.totalGasSpent })
  }

  async #enter(message: Message): Promise<void> {
    const parent = this.#frames[this.#frames.length - 1]
    // The step that opened this frame ran.
    if (this.#pending) this.#confirm(undefined)
    if (parent) parent.entered = true
    const start = frameStart(message, parent ? (parent.lastOp ?? OP.CALL) : undefined)
    this.#frames.push({ start, message, lastOp: undefined, gasAfter: message.gasLimit, logs: 0, entered: false })
    this.#tracer.onEnter?.(start)
  }

  async #exit(result: EVMResult): Promise<void> {
    const frame = this.#frames[this.#frames.length - 1]!
    const exec = result.execResult
    const halt = exec.exceptionError?.error
    const rs = exec.runState
    // A creation's address is known once it ran.
    if (frame.start.to === '') frame.start.to = (result.createdAddress ?? frame.message.to)?.toString() ?? ''
    const pending = this.#pending?.frame === frame ? this.#pending : undefined
    let error: string | undefined
    if (halt === undefined || halt === 'code store out of gas') {
      // Before Homestead, a creation that cannot pay for its code succeeds without it (geth: not reverted).
      this.#settle()
    } else if (pending?.error !== undefined) {
      // The opcode's own stack check failed: geth logs its step with the error.
      error = stackFailure(pending.step.op, pending.step.stack.length) ?? pending.error
      this.#settle(error)
    } else {
      this.#settle()
      error = await this.#haltError(frame, rs, halt, pending)
    }
    if (halt === undefined && rs) await this.#finalStop(frame, rs)
    const output = halt === 'code store out of gas' && pending?.step.op === OP.RETURN ? returned(pending.step) : exec.returnValue.slice()
    this.#tracer.onExit?.({ depth: frame.start.depth, output, gasUsed: exec.executionGasUsed, error })
    this.#frames.pop()
    const parent = this.#frames[this.#frames.length - 1]
    if (halt !== undefined && halt !== 'code store out of gas') this.#logIndex -= frame.logs
    else if (parent) parent.logs += frame.logs
  }

  #step(rs: RunState, op: number, charge: GasCharge): void | Promise<void> {
    if (++this.#steps % TIME_CHECK_STEPS === 0) this.#budget.checkTime()
    this.#settle()
    return this.#begin(rs, op, charge)
  }

  #begin(rs: RunState, op: number, charge: GasCharge): void | Promise<void> {
    const frame = this.#frames[this.#frames.length - 1]!
    // A call's own cost with the gas it hands on, as geth charges it.
    const cost = isCallOp(op) ? charge.cost + (rs.messageGasLimit ?? 0n) : charge.cost
    const step = this.#stepOf(rs, op, rs.programCounter - 1, charge.gasBefore, cost, charge.words)
    frame.lastOp = op
    frame.entered = false
    const told = this.#wants(op)
    const pending: Pending = { step, frame, rs, told, calleeGas: isCallOp(op) ? rs.messageGasLimit : undefined }
    this.#pending = pending
    if (op === OP.SELFDESTRUCT && !frame.message.isStatic) {
      return this.#vm.evm.stateManager.getAccount(rs.env.address).then(async (account) => {
        pending.selfdestructs = account?.balance ?? 0n
        if (told) await this.#tracer.onOpcode?.(step)
      })
    }
    return told ? this.#tracer.onOpcode?.(step) : undefined
  }

  /** Whether the tracer asked to be told of `op` (the observer watches calls, creations and logs for itself). */
  #wants(op: number): boolean {
    const which = this.#tracer.opcodes?.which
    return which === 'all' || (which !== undefined && this.#wanted.has(op))
  }

  #stepOf(rs: RunState, op: number, pc: number, gas: bigint, cost: bigint, words: bigint): OpcodeStep {
    let address = this.#addresses.get(rs)
    if (address === undefined) this.#addresses.set(rs, (address = rs.env.address.toString()))
    const wantsMemory = this.#tracer.opcodes?.memory === true || isCallOp(op) || isCreateOp(op) || op === OP.RETURN || (op >= OP.LOG0 && op <= OP.LOG4)
    return {
      pc,
      op,
      gas,
      cost,
      depth: rs.env.depth + 1,
      stack: rs.stack.getStack(),
      memory: wantsMemory ? memoryOf(rs.memory._store, Number(words) * 32) : EMPTY,
      address,
      returnData: rs.returnBytes,
      refund: rs.gasRefund,
      state: this.#vm.evm.stateManager,
    }
  }

  /**
   * geth's error for a frame that halted after its last confirmed step: a creation whose RETURN
   * ran could not store its code; an opcode refused before its handler (gas, stack, an invalid
   * opcode, a static frame's write) gets the step geth logs for it, when every step is traced.
   */
  async #haltError(frame: FrameState, rs: RunState | undefined, halt: string, pending: Pending | undefined): Promise<string> {
    const isCreate = frame.start.type === 'CREATE' || frame.start.type === 'CREATE2'
    if (halt === 'out of gas' && isCreate && pending?.step.op === OP.RETURN) return 'contract creation code storage out of gas'
    if (rs && REFUSED.has(halt)) {
      if (this.#tracer.opcodes?.which === 'all') return this.#refusedStep(frame, rs, halt)
      const code = codeOf(frame)
      const op = [code[rs.programCounter - 1], code[rs.programCounter]].find((o) => o !== undefined && stackFailure(o, rs.stack.getStack().length) !== undefined)
      if (STACK_FAILURES.has(halt) && op !== undefined) return stackFailure(op, rs.stack.getStack().length)!
      if (halt === 'invalid opcode') return `invalid opcode: ${opName(code[rs.programCounter] ?? OP.INVALID)}`
    }
    return gethError(halt, pending?.step.op)
  }

  /** geth's step for the opcode that failed before its handler ran; answers geth's error for it. */
  async #refusedStep(frame: FrameState, rs: RunState, halt: string): Promise<string> {
    const code = codeOf(frame)
    const pc = rs.programCounter
    const op = pc < code.length ? code[pc]! : OP.STOP
    const charge = pendingCharge(rs)
    const invalid = halt === 'invalid opcode'
    const cost = invalid ? 0n : (charge?.cost ?? staticFee(this.#vm, op))
    const gas = invalid ? rs.gasLeft : (charge?.gasBefore ?? frame.gasAfter)
    const step = this.#stepOf(rs, op, pc, gas, cost, charge?.words ?? rs.memoryWordCount)
    if (op === OP.SLOAD && step.stack.length > 0) {
      // geth reads the slot as the step starts; the frame's writes are undone by now, so this is the frame's starting value.
      step.loaded = bytesToBigInt(await this.#vm.evm.stateManager.getStorage(rs.env.address, setLengthLeft(bigIntToBytes(step.stack.at(-1)!), 32)))
    }
    frame.lastOp = op
    const told = this.#wants(op)
    this.#pending = { step, frame, rs, told }
    if (told) await this.#tracer.onOpcode?.(step)
    if (invalid || halt === 'static state change') {
      // geth finds these as the opcode runs: its step carries no error.
      this.#confirm(undefined)
      return invalid ? `invalid opcode: ${opName(op)}` : gethError(halt, op)
    }
    const error = STACK_FAILURES.has(halt) ? (stackFailure(op, step.stack.length) ?? halt) : halt
    this.#confirm(error)
    return error
  }

  /**
   * Confirms the pending step (it ran, or failed with `error` before running), and gives a call
   * that ran without opening a frame (call depth, balance: EthereumJS opens none) geth's frame.
   */
  #settle(error?: string): void {
    const pending = this.#pending
    if (!pending) return
    this.#confirm(error)
    const { step, frame } = pending
    if (error !== undefined || frame.entered || !(isCallOp(step.op) || isCreateOp(step.op))) return
    const failed = failedFrame(step, frame.start.value, isCallOp(step.op) ? (pending.calleeGas ?? 0n) : createGas(this.#vm, step))
    this.#tracer.onEnter?.(failed)
    const reason = step.depth > 1024 ? 'max call depth exceeded' : 'insufficient balance for transfer'
    this.#tracer.onExit?.({ depth: failed.depth, output: new Uint8Array(), gasUsed: 0n, error: reason })
  }

  #confirm(error: string | undefined): void {
    const pending = this.#pending!
    this.#pending = undefined
    const { step, frame } = pending
    if (error === undefined && step.op === OP.SLOAD && pending.rs && step.loaded === undefined) step.loaded = pending.rs.stack.getStack().at(-1)
    if (pending.told) this.#tracer.onOpcodeDone?.(error)
    if (error !== undefined) return
    if (pending.selfdestructs !== undefined && step.stack.length > 0) {
      const beneficiary = toWord(step.stack[step.stack.length - 1]!).subarray(12)
      this.#tracer.onEnter?.({ depth: step.depth, type: 'SELFDESTRUCT', from: step.address, to: bytesToHex(beneficiary), input: new Uint8Array(), gas: 0n, value: pending.selfdestructs })
      this.#tracer.onExit?.({ depth: step.depth, output: new Uint8Array(), gasUsed: 0n, error: undefined })
    } else if (step.op >= OP.LOG0 && step.op <= OP.LOG4) {
      const s = step.stack
      const top = s.length - 1
      const topics = Array.from({ length: step.op - OP.LOG0 }, (_, i) => toWord(s[top - 2 - i]!))
      frame.logs++
      this.#tracer.onLog?.({ address: step.address, topics, data: memorySlice(step.memory, s[top]!, s[top - 1]!), index: this.#logIndex++ })
    }
  }

  /** geth's last step of a frame that ran off the end of its code: `STOP`, costing nothing. */
  async #finalStop(frame: FrameState, rs: RunState): Promise<void> {
    const code = frame.message.code
    if (this.#tracer.opcodes?.which !== 'all' || !(code instanceof Uint8Array) || code.length === 0 || frame.lastOp === undefined) return
    if (frame.lastOp === OP.STOP || frame.lastOp === OP.RETURN || frame.lastOp === OP.SELFDESTRUCT) return
    const step = this.#stepOf(rs, OP.STOP, rs.programCounter, rs.gasLeft, 0n, rs.memoryWordCount)
    await this.#tracer.onOpcode?.(step)
    this.#tracer.onOpcodeDone?.(undefined)
  }
}
