/**
 * geth's struct logger (`eth/tracers/logger`), the default tracer of debug_trace*: one entry per
 * opcode executed, in geth's legacy JSON, field for field: `pc`, `op`, `gas`, `gasCost`, `depth`,
 * `error` when the step failed before running, `stack` (unless `disableStack`), `returnData`
 * (with `enableReturnData`, when not empty), `memory` in 32-byte words (with `enableMemory`, when
 * not empty), `storage` (on SLOAD and SSTORE, the contract's slots read or written so far, unless
 * `disableStorage`), `refund` when not zero. `limit` stops logging once that many bytes are
 * logged, as geth's does. The result: `{gas, failed, returnValue, structLogs}`.
 *
 * Each entry is written as JSON when its step is confirmed, and its bytes charged to the budget.
 */
import { bytesToHex } from '@ethereumjs/util'
import type { FrameEnd, OpcodeStep, Tracer } from './hooks.ts'
import type { TraceBudget } from './limits.ts'
import { OP, opName } from './opcodes.ts'

export interface StructLoggerConfig {
  disableStack: boolean
  disableStorage: boolean
  enableMemory: boolean
  enableReturnData: boolean
  /** Bytes of log after which nothing more is logged; 0: no limit. */
  limit: number
}

const hex = (n: bigint): string => `0x${n.toString(16)}`
const word = (n: bigint): string => `0x${n.toString(16).padStart(64, '0')}`

export class StructLogger implements Tracer {
  readonly #config: StructLoggerConfig
  readonly #budget: TraceBudget
  readonly #logs: string[] = []
  #size = 0
  /** Slots seen per contract, as geth's logger keeps them (key and value as 32-byte words). */
  readonly #storage = new Map<string, Map<string, string>>()
  #pending: { step: OpcodeStep; memory: Uint8Array | undefined } | undefined
  #gasUsed = 0n
  #output: Uint8Array = new Uint8Array()
  #error: string | undefined

  constructor(config: StructLoggerConfig, budget: TraceBudget) {
    this.#config = config
    this.#budget = budget
  }

  get opcodes(): Tracer['opcodes'] {
    return { which: 'all', memory: this.#config.enableMemory }
  }

  onOpcode(step: OpcodeStep): void {
    if (this.#config.limit !== 0 && this.#size > this.#config.limit) return
    this.#pending = { step, memory: this.#config.enableMemory ? step.memory : undefined }
  }

  onOpcodeDone(error: string | undefined): void {
    const pending = this.#pending
    if (!pending) return
    this.#pending = undefined
    const entry = this.#entry(pending.step, this.#storageOf(pending.step), error, pending.memory)
    this.#budget.charge(entry.length + 1)
    this.#size += entry.length
    this.#logs.push(entry)
  }

  /** The contract's slots seen so far, on SLOAD (with the value read) and SSTORE (the value written). */
  #storageOf(step: OpcodeStep): Map<string, string> | undefined {
    if (this.#config.disableStorage || (step.op !== OP.SLOAD && step.op !== OP.SSTORE)) return undefined
    const top = step.stack.length - 1
    let slots = this.#storage.get(step.address)
    if (!slots) this.#storage.set(step.address, (slots = new Map()))
    if (step.op === OP.SLOAD && top >= 0) slots.set(word(step.stack[top]!), word(step.loaded ?? 0n))
    else if (step.op === OP.SSTORE && top >= 1) slots.set(word(step.stack[top]!), word(step.stack[top - 1]!))
    else return undefined
    return new Map(slots)
  }

  onExit(frame: FrameEnd): void {
    if (frame.depth !== 0) return
    this.#output = frame.output
    this.#error = frame.error
  }

  onTxEnd(end: { gasUsed: bigint }): void {
    this.#gasUsed = end.gasUsed
  }

  result(): string {
    const failed = this.#error !== undefined
    const returnValue = failed && this.#error !== 'execution reverted' ? '0x' : bytesToHex(this.#output)
    return `{"gas":${this.#gasUsed},"failed":${failed},"returnValue":"${returnValue}","structLogs":[${this.#logs.join(',')}]}`
  }

  #entry(step: OpcodeStep, storage: Map<string, string> | undefined, error: string | undefined, memory: Uint8Array | undefined): string {
    let out = `{"pc":${step.pc},"op":"${opName(step.op)}","gas":${step.gas},"gasCost":${step.cost},"depth":${step.depth}`
    if (error !== undefined) out += `,"error":${JSON.stringify(error)}`
    if (!this.#config.disableStack) out += `,"stack":[${step.stack.map((v) => `"${hex(v)}"`).join(',')}]`
    if (this.#config.enableReturnData && step.returnData.length > 0) out += `,"returnData":"${bytesToHex(step.returnData)}"`
    if (memory !== undefined && memory.length > 0) out += `,"memory":[${memoryWords(memory)}]`
    if (storage && storage.size > 0) out += `,"storage":{${[...storage].map(([k, v]) => `"${k}":"${v}"`).join(',')}}`
    if (step.refund !== 0n) out += `,"refund":${step.refund}`
    return `${out}}`
  }
}

function memoryWords(memory: Uint8Array): string {
  const words: string[] = []
  for (let i = 0; i < memory.length; i += 32) {
    const chunk = memory.subarray(i, i + 32)
    words.push(`"${bytesToHex(chunk.length === 32 ? chunk : setLengthRight(chunk))}"`)
  }
  return words.join(',')
}

function setLengthRight(chunk: Uint8Array): Uint8Array {
  const out = new Uint8Array(32)
  out.set(chunk)
  return out
}
