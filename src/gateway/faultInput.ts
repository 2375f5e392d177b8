/**
 * A fault as a test writes it (library or `POST /_double/faults`), checked field by field: a
 * `ControlInputError` names the field that is wrong, as config files are checked.
 */
import { jsonText } from '../encoding/jsonText.ts'
import { ControlInputError } from './controlError.ts'
import {
  DEFAULT_CLOSE_CODE,
  DEFAULT_FAULT_SEED,
  DEFAULT_SERVER_ERROR_STATUS,
  FAULT_KINDS,
  FAULT_TRANSPORTS,
  isSendableCloseCode,
  KIND_STAGES,
  MAX_CLOSE_REASON_BYTES,
  MAX_TIMER_MS,
  SERVER_ERROR_STATUSES,
} from './faults.ts'
import type { Fault, FaultKind, FaultTransport, ServerErrorStatus } from './faults.ts'

type ParsedFault = Omit<Fault, 'id' | 'fired'>
type Input = Record<string, unknown>

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** A value a test sent, quoted in an error message (cut at 200 characters; any depth). */
function show(v: unknown): string {
  return v === undefined ? 'nothing' : jsonText(v, 200)
}

const FIELDS = ['kind', 'network', 'key', 'method', 'transport', 'times', 'probability', 'seed', 'status', 'ms', 'retryAfter', 'code', 'reason']

/** Validates a fault as a test wrote it; a `ControlInputError` names the field. */
export function parseFault(input: unknown): ParsedFault {
  if (!isRecord(input)) throw new ControlInputError('fault', `must be an object, got ${show(input)}`)
  for (const name of Object.keys(input)) {
    if (!FIELDS.includes(name)) throw new ControlInputError(name, `unknown field (allowed: ${FIELDS.join(', ')})`)
  }
  const kind = input.kind
  if (typeof kind !== 'string' || !(FAULT_KINDS as readonly string[]).includes(kind)) {
    throw new ControlInputError('kind', `must be one of ${FAULT_KINDS.join(', ')}, got ${show(kind)}`)
  }
  const k = kind as FaultKind
  refuseOptionsOfOtherKinds(input, k)
  return { kind: k, ...filters(input, k), ...frequency(input), ...kindOptions(input, k) }
}

function text(input: Input, name: 'network' | 'key'): string | null {
  const v = input[name]
  if (v === undefined) return null
  if (typeof v !== 'string' || v === '') throw new ControlInputError(name, `must be a non-empty string, got ${show(v)}`)
  return v
}

function integer(input: Input, name: string, min: number): number | null {
  const v = input[name]
  if (v === undefined) return null
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) {
    throw new ControlInputError(name, `must be an integer of at least ${min}, got ${show(v)}`)
  }
  return v
}

function refuseOptionsOfOtherKinds(input: Input, k: FaultKind): void {
  const only = (name: string, kinds: readonly FaultKind[]) => {
    if (input[name] !== undefined && !kinds.includes(k)) {
      throw new ControlInputError(name, `applies to ${kinds.join(' and ')} faults only, not ${k}`)
    }
  }
  only('status', ['serverError'])
  only('ms', ['latency', 'timeout', 'stall'])
  only('retryAfter', ['rateLimit'])
  only('code', ['close'])
  only('reason', ['close'])
}

/** Which requests it matches: network, key, methods, transport. */
function filters(input: Input, k: FaultKind): Pick<ParsedFault, 'network' | 'key' | 'methods' | 'transport'> {
  let methods: string[] | null = null
  if (input.method !== undefined) {
    const list = typeof input.method === 'string' ? [input.method] : input.method
    if (!Array.isArray(list) || list.length === 0 || !list.every((m) => typeof m === 'string' && m !== '')) {
      throw new ControlInputError('method', `must be a method name or a non-empty list of them, got ${show(input.method)}`)
    }
    methods = list as string[]
  }
  let transport: FaultTransport | null = null
  if (input.transport !== undefined) {
    if (!(FAULT_TRANSPORTS as readonly unknown[]).includes(input.transport)) {
      throw new ControlInputError('transport', `must be one of ${FAULT_TRANSPORTS.join(', ')}, got ${show(input.transport)}`)
    }
    transport = input.transport as FaultTransport
  }
  // close and stall only exist on sockets: say so rather than keep a fault that can never fire.
  if (transport === 'http' && !KIND_STAGES[k].includes('request')) {
    throw new ControlInputError('transport', `${k} faults apply to WebSocket connections only (transport ws), not http`)
  }
  return { network: text(input, 'network'), key: text(input, 'key'), methods, transport }
}

/** How often it fires: times, probability, seed. */
function frequency(input: Input): Pick<ParsedFault, 'remaining' | 'probability' | 'seed'> {
  const times = integer(input, 'times', 1)
  let probability: number | null = null
  if (input.probability !== undefined) {
    const p = input.probability
    if (typeof p !== 'number' || !(p >= 0 && p <= 1)) throw new ControlInputError('probability', `must be a number from 0 to 1, got ${show(p)}`)
    probability = p
  }
  const seed = integer(input, 'seed', 0)
  if (seed !== null && probability === null) throw new ControlInputError('seed', 'only applies with probability')
  return { remaining: times, probability, seed: probability === null ? null : (seed ?? DEFAULT_FAULT_SEED) }
}

/** What the kind answers with: status, ms, retryAfter, close code and reason. */
function kindOptions(input: Input, k: FaultKind): Pick<ParsedFault, 'status' | 'ms' | 'retryAfter' | 'code' | 'reason'> {
  let status: ServerErrorStatus | null = null
  if (k === 'serverError') {
    const s = input.status ?? DEFAULT_SERVER_ERROR_STATUS
    if (!(SERVER_ERROR_STATUSES as readonly unknown[]).includes(s)) {
      throw new ControlInputError('status', `must be one of ${SERVER_ERROR_STATUSES.join(', ')}, got ${show(s)}`)
    }
    status = s as ServerErrorStatus
  }
  const ms = integer(input, 'ms', 0)
  // A Node timer fires at once past 2^31 - 1 ms (about 24.8 days): longer would not hold at all.
  if (ms !== null && ms > MAX_TIMER_MS) throw new ControlInputError('ms', `must be at most ${MAX_TIMER_MS} (a timer's limit), got ${ms}`)
  if (k === 'latency' && ms === null) throw new ControlInputError('ms', 'a latency fault needs ms (the delay)')
  if (k === 'stall' && ms === null) throw new ControlInputError('ms', 'a stall fault needs ms (how long notifications are held)')
  let code: number | null = null
  let reason: string | null = null
  if (k === 'close') {
    const c = input.code ?? DEFAULT_CLOSE_CODE
    if (typeof c !== 'number' || !isSendableCloseCode(c)) {
      throw new ControlInputError('code', `must be a close code a server may send (1000-1003, 1007-1014, 3000-4999), got ${show(c)}`)
    }
    code = c
    const r = input.reason ?? ''
    if (typeof r !== 'string' || Buffer.byteLength(r) > MAX_CLOSE_REASON_BYTES) {
      throw new ControlInputError('reason', `must be a string of at most ${MAX_CLOSE_REASON_BYTES} bytes, got ${show(r)}`)
    }
    reason = r
  }
  return { status, ms, retryAfter: integer(input, 'retryAfter', 0), code, reason }
}
