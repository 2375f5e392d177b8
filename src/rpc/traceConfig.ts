/**
 * The trace options of the debug_trace* methods (geth's `TraceConfig`): the struct logger's
 * `disableStorage`, `disableStack`, `enableMemory`, `enableReturnData`, `limit`; `tracer` and its
 * `tracerConfig`; `timeout` as a Go duration (`"10s"`, `"1m30s"`, default 5 s). Unknown fields are
 * ignored, as Go's JSON decoding ignores them. Also how a trace's answer is written: the tracers'
 * JSON text, spliced in as it is.
 */
import type { TraceRequest } from '../chain/tracing/tracers.ts'
import { TraceAbort, TraceBudget, DEFAULT_TRACE_TIMEOUT_MS } from '../chain/tracing/limits.ts'
import { TraceError } from '../chain/tracing/replay.ts'
import type { TracedTransaction } from '../chain/tracing/replay.ts'
import { ServerError } from './errors.ts'
import type { RpcContext } from './method.ts'
import { ArgumentError, optional } from './params.ts'
import type { Param } from './params.ts'
import { RawJson } from '../encoding/rawJson.ts'

export interface TraceOptions {
  request: TraceRequest
  /** The `timeout` as sent (checked when the trace starts, as geth checks it). */
  timeout: string | undefined
}

const BOOLEANS = ['disableStorage', 'disableStack', 'enableMemory', 'enableReturnData'] as const

function kind(v: unknown): string {
  return Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v
}

/** Parses a `TraceConfig` object (fields of a `TraceCallConfig` beyond it are left to the caller). */
export function parseTraceOptions(v: unknown, goType = 'tracers.TraceConfig'): TraceOptions {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ArgumentError(`json: cannot unmarshal ${kind(v)} into Go value of type ${goType}`)
  const o = v as Record<string, unknown>
  const field = (name: string, type: string): never => {
    throw new ArgumentError(`json: cannot unmarshal ${kind(o[name])} into Go struct field ${goType.split('.').pop()}.${name} of type ${type}`)
  }
  const logger = { disableStorage: false, disableStack: false, enableMemory: false, enableReturnData: false, limit: 0 }
  for (const name of BOOLEANS) {
    if (o[name] === undefined || o[name] === null) continue
    if (typeof o[name] !== 'boolean') field(name, 'bool')
    logger[name] = o[name] as boolean
  }
  if (o.limit !== undefined && o.limit !== null) {
    if (typeof o.limit !== 'number' || !Number.isSafeInteger(o.limit)) field('limit', 'int')
    logger.limit = Math.max(0, o.limit as number)
  }
  for (const name of ['tracer', 'timeout']) {
    if (o[name] !== undefined && o[name] !== null && typeof o[name] !== 'string') field(name, 'string')
  }
  const request: TraceRequest = { logger, tracer: (o.tracer as string | undefined) ?? undefined, tracerConfig: o.tracerConfig ?? undefined }
  return { request, timeout: (o.timeout as string | undefined) ?? undefined }
}

/** The optional last param of the trace methods. */
export const traceOptions: Param<TraceOptions | undefined> = optional({ parse: (v) => parseTraceOptions(v) }, undefined)

/**
 * The request's budget: its `timeout` (geth's `time.ParseDuration`, errors in its words), run in
 * the context's slices (executions let other requests in between them).
 */
export function budgetFor(options: TraceOptions | undefined, execution: RpcContext['execution']): TraceBudget {
  const text = options?.timeout
  const timeoutMs = text === undefined ? DEFAULT_TRACE_TIMEOUT_MS : parseGoDuration(text)
  return new TraceBudget(execution === undefined ? { timeoutMs } : { timeoutMs, sliceMs: execution.sliceMs })
}

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** Go's `time.ParseDuration`, in milliseconds. */
export function parseGoDuration(text: string): number {
  const quoted = JSON.stringify(text)
  let rest = text
  let sign = 1
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1
    rest = rest.slice(1)
  }
  if (rest === '0') return 0
  if (rest === '') throw new ServerError(`time: invalid duration ${quoted}`)
  let total = 0
  while (rest !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest)!
    if (number[0] === '' || number[0] === '.') throw new ServerError(`time: invalid duration ${quoted}`)
    rest = rest.slice(number[0].length)
    const unit = /^[^\d.]*/.exec(rest)![0]
    if (unit === '') throw new ServerError(`time: missing unit in duration ${quoted}`)
    const scale = UNITS[unit]
    if (scale === undefined) throw new ServerError(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`)
    rest = rest.slice(unit.length)
    total += Number.parseFloat(number[0]) * scale
  }
  return sign * total
}

/** A trace failure as the wire answers it: geth's message, code -32000. */
export function traceFailure(err: unknown): unknown {
  if (err instanceof TraceError || err instanceof TraceAbort) return new ServerError(err.message)
  return err
}

/** `[{txHash, result}, ...]` as geth's block traces answer, the results spliced in. */
export function blockTraceJson(traced: readonly TracedTransaction[]): RawJson {
  return new RawJson(`[${traced.map((t) => `{"txHash":"${t.txHash}","result":${t.result}}`).join(',')}]`)
}
