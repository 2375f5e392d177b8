/**
 * geth's callTracer (`eth/tracers/native/call.go`): the tree of call frames of a transaction.
 * Each frame: `from`, `gas`, `gasUsed`, `to` (dropped for a failed creation), `input`, `output`
 * (the return data, or on a revert the revert data), `error` (geth's name of the halt),
 * `revertReason` (an `Error(string)` or `Panic(uint256)` revert, decoded), `calls`, `logs` (with
 * `withLog`: address, topics, data, the log's index in the block and its `position` among the
 * frame's calls; logs of failed frames are dropped), `value` (absent for STATICCALL), `type`. The
 * top frame's `gas` is the transaction's gas limit and its `gasUsed` the receipt's. `onlyTopCall`
 * keeps the top frame alone.
 */
import { bytesToHex } from '@ethereumjs/util'
import { unpackRevert } from '../../encoding/revert.ts'
import type { FrameEnd, FrameStart, LogEntry, Tracer, TxStart } from './hooks.ts'
import type { TraceBudget } from './limits.ts'

export interface CallTracerConfig {
  onlyTopCall: boolean
  withLog: boolean
}

interface CallFrame {
  start: FrameStart
  gasUsed: bigint
  output?: Uint8Array
  error?: string
  revertReason?: string
  calls: CallFrame[]
  logs: LogEntry[]
  positions: number[]
}

/** Bytes charged per frame and per log, besides their data (a bound on the tree, not its exact size). */
const FRAME_BYTES = 256
const LOG_BYTES = 128

export class CallTracer implements Tracer {
  readonly #config: CallTracerConfig
  readonly #budget: TraceBudget
  readonly #stack: CallFrame[] = []
  #root: CallFrame | undefined
  #gasLimit = 0n
  #depth = 0

  constructor(config: CallTracerConfig, budget: TraceBudget) {
    this.#config = config
    this.#budget = budget
  }

  onTxStart(tx: TxStart): void {
    this.#gasLimit = tx.gasLimit
  }

  onEnter(start: FrameStart): void {
    this.#depth = start.depth
    if (this.#config.onlyTopCall && start.depth > 0) return
    this.#budget.charge(FRAME_BYTES + start.input.length * 2)
    const frame: CallFrame = { start, gasUsed: 0n, calls: [], logs: [], positions: [] }
    if (start.depth === 0) this.#root = frame
    this.#stack.push(frame)
  }

  onExit(end: FrameEnd): void {
    if (end.depth > 0) this.#depth = end.depth - 1
    if (this.#config.onlyTopCall && end.depth > 0) return
    const frame = this.#stack.pop()
    if (!frame) return
    frame.gasUsed = end.gasUsed
    this.#budget.charge(end.output.length * 2)
    processOutput(frame, end)
    this.#stack[this.#stack.length - 1]?.calls.push(frame)
  }

  onLog(log: LogEntry): void {
    if (!this.#config.withLog || (this.#config.onlyTopCall && this.#depth > 0)) return
    const frame = this.#stack[this.#stack.length - 1]
    if (!frame) return
    this.#budget.charge(LOG_BYTES + log.data.length * 2 + log.topics.length * 68)
    frame.logs.push(log)
    frame.positions.push(frame.calls.length)
  }

  onTxEnd(end: { gasUsed: bigint }): void {
    if (this.#root) this.#root.gasUsed = end.gasUsed
  }

  result(): string {
    if (!this.#root) throw new Error('incorrect number of top-level calls')
    return JSON.stringify(this.#json(this.#root, false))
  }

  #json(frame: CallFrame, parentFailed: boolean): Record<string, unknown> {
    const s = frame.start
    const failed = frame.error !== undefined || parentFailed
    const out: Record<string, unknown> = { from: s.from, gas: hex(s.depth === 0 ? this.#gasLimit : s.gas), gasUsed: hex(frame.gasUsed) }
    const isCreate = s.type === 'CREATE' || s.type === 'CREATE2'
    if (!(isCreate && frame.error !== undefined)) out.to = s.to
    out.input = bytesToHex(s.input)
    if (frame.output !== undefined && frame.output.length > 0) out.output = bytesToHex(frame.output)
    if (frame.error !== undefined) out.error = frame.error
    if (frame.revertReason !== undefined) out.revertReason = frame.revertReason
    if (frame.calls.length > 0) out.calls = frame.calls.map((c) => this.#json(c, failed))
    if (this.#config.withLog && !failed && frame.logs.length > 0) {
      out.logs = frame.logs.map((l, i) => ({
        address: l.address,
        topics: l.topics.map((t) => bytesToHex(t)),
        data: bytesToHex(l.data),
        index: hex(BigInt(l.index)),
        position: hex(BigInt(frame.positions[i]!)),
      }))
    }
    if (s.value !== undefined) out.value = hex(s.value)
    out.type = s.type
    return out
  }
}

/** geth's `processOutput`: the output of a success, or of a revert with its reason decoded. */
function processOutput(frame: CallFrame, end: FrameEnd): void {
  if (end.error === undefined) {
    frame.output = end.output
    return
  }
  frame.error = end.error
  if (end.error !== 'execution reverted' || end.output.length === 0) return
  frame.output = end.output
  const reason = unpackRevert(end.output)
  if (reason) frame.revertReason = reason
}

function hex(n: bigint): string {
  return `0x${n.toString(16)}`
}
