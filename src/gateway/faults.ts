/**
 * Scripted faults: make the next N requests, or a share of them, matching a network, a key
 * and/or a method answer as the real service does when it fails instead of answering.
 *
 * Kinds:
 * - `rateLimit`: the real 429 (event -33200, as the ledger's throughput refusal), optionally with
 *   a `retry-after: <retryAfter>` header (the real service documents none).
 * - `dailyLimit`: the real 402 (event -33000).
 * - `serverError`: `status` 500 (the service's JSON-RPC internal error, as the gateway's own
 *   500), or 502/503/504 (the load balancer's HTML page). Default 503.
 * - `latency`: waits `ms`, then answers for real (and charges as usual).
 * - `timeout`: holds the request with no answer until the client gives up or the server closes,
 *   or for `ms` (default 60 s, a load balancer's idle timeout), then answers the load balancer's 504.
 * - `drop`: destroys the connection with no response at all.
 *
 * Matching: every filter given must match: `network` and `key` exactly; `method` (a name or a
 * list) matches a request when any of its calls has one of those methods (a batch matches when
 * any call does; a request whose body has no valid call never matches a method filter).
 * Faults are tried in the order they were added; the first that matches and fires applies.
 *
 * How often: `times` fires the fault on the next N matching requests, then it is gone;
 * `probability` (0..1) fires it on that share of matching requests, drawn from a PRNG seeded by
 * `seed` (default 1), so a run is deterministic; both together: a share, until N have fired;
 * neither: every matching request until the fault is cleared.
 */
import { jsonText } from '../encoding/jsonText.ts'
import { ControlInputError } from './controlError.ts'

export const FAULT_KINDS = ['rateLimit', 'dailyLimit', 'serverError', 'latency', 'timeout', 'drop'] as const
export type FaultKind = (typeof FAULT_KINDS)[number]

export const SERVER_ERROR_STATUSES = [500, 502, 503, 504] as const
export type ServerErrorStatus = (typeof SERVER_ERROR_STATUSES)[number]
export const DEFAULT_SERVER_ERROR_STATUS: ServerErrorStatus = 503
export const DEFAULT_FAULT_SEED = 1
/** The longest delay a Node timer holds (2^31 - 1 ms). */
export const MAX_TIMER_MS = 2 ** 31 - 1

/** A fault as a test writes it (library or `POST /_double/faults`). */
export interface FaultInput {
  kind: FaultKind
  network?: string
  key?: string
  method?: string | string[]
  times?: number
  probability?: number
  seed?: number
  /** `serverError` only: 500, 502, 503 or 504 (default 503). */
  status?: number
  /** `latency` (required) and `timeout` (optional): milliseconds. */
  ms?: number
  /** `rateLimit` only: seconds for a `retry-after` header. */
  retryAfter?: number
}

/** A fault as listed: its id, filters, and what is left of it. */
export interface Fault {
  readonly id: string
  readonly kind: FaultKind
  readonly network: string | null
  readonly key: string | null
  readonly methods: readonly string[] | null
  /** Requests it will still fire on; null: no limit. */
  readonly remaining: number | null
  readonly probability: number | null
  readonly seed: number | null
  readonly status: ServerErrorStatus | null
  readonly ms: number | null
  readonly retryAfter: number | null
  /** Requests it fired on so far. */
  readonly fired: number
}

/** What a fault is matched against. */
export interface FaultTarget {
  readonly network: string
  readonly key: string
  /** Methods of the request's valid calls. */
  readonly methods: readonly string[]
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** A value a test sent, quoted in an error message (cut at 200 characters; any depth). */
function show(v: unknown): string {
  return v === undefined ? 'nothing' : jsonText(v, 200)
}

const FIELDS = ['kind', 'network', 'key', 'method', 'times', 'probability', 'seed', 'status', 'ms', 'retryAfter']

/** mulberry32: a small, fast, seedable PRNG; answers in [0, 1). */
export function createPrng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface Slot {
  fault: {
    -readonly [K in keyof Fault]: Fault[K]
  }
  draw: (() => number) | null
}

/** Validates a fault as a test wrote it; a `ControlInputError` names the field. */
export function parseFault(input: unknown): Omit<Fault, 'id' | 'fired'> {
  if (!isRecord(input)) throw new ControlInputError('fault', `must be an object, got ${show(input)}`)
  for (const name of Object.keys(input)) {
    if (!FIELDS.includes(name)) throw new ControlInputError(name, `unknown field (allowed: ${FIELDS.join(', ')})`)
  }
  const kind = input.kind
  if (typeof kind !== 'string' || !(FAULT_KINDS as readonly string[]).includes(kind)) {
    throw new ControlInputError('kind', `must be one of ${FAULT_KINDS.join(', ')}, got ${show(kind)}`)
  }
  const k = kind as FaultKind
  const text = (name: 'network' | 'key'): string | null => {
    const v = input[name]
    if (v === undefined) return null
    if (typeof v !== 'string' || v === '') throw new ControlInputError(name, `must be a non-empty string, got ${show(v)}`)
    return v
  }
  let methods: string[] | null = null
  if (input.method !== undefined) {
    const list = typeof input.method === 'string' ? [input.method] : input.method
    if (!Array.isArray(list) || list.length === 0 || !list.every((m) => typeof m === 'string' && m !== '')) {
      throw new ControlInputError('method', `must be a method name or a non-empty list of them, got ${show(input.method)}`)
    }
    methods = list as string[]
  }
  const integer = (name: string, min: number): number | null => {
    const v = input[name]
    if (v === undefined) return null
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) {
      throw new ControlInputError(name, `must be an integer of at least ${min}, got ${show(v)}`)
    }
    return v
  }
  const only = (name: string, kinds: readonly FaultKind[]) => {
    if (input[name] !== undefined && !kinds.includes(k)) {
      throw new ControlInputError(name, `applies to ${kinds.join(' and ')} faults only, not ${k}`)
    }
  }
  only('status', ['serverError'])
  only('ms', ['latency', 'timeout'])
  only('retryAfter', ['rateLimit'])
  const times = integer('times', 1)
  let probability: number | null = null
  if (input.probability !== undefined) {
    const p = input.probability
    if (typeof p !== 'number' || !(p >= 0 && p <= 1)) throw new ControlInputError('probability', `must be a number from 0 to 1, got ${show(p)}`)
    probability = p
  }
  const seed = integer('seed', 0)
  if (seed !== null && probability === null) throw new ControlInputError('seed', 'only applies with probability')
  let status: ServerErrorStatus | null = null
  if (k === 'serverError') {
    const s = input.status ?? DEFAULT_SERVER_ERROR_STATUS
    if (!(SERVER_ERROR_STATUSES as readonly unknown[]).includes(s)) {
      throw new ControlInputError('status', `must be one of ${SERVER_ERROR_STATUSES.join(', ')}, got ${show(s)}`)
    }
    status = s as ServerErrorStatus
  }
  const ms = integer('ms', 0)
  // A Node timer fires at once past 2^31 - 1 ms (about 24.8 days): longer would not hold at all.
  if (ms !== null && ms > MAX_TIMER_MS) throw new ControlInputError('ms', `must be at most ${MAX_TIMER_MS} (a timer's limit), got ${ms}`)
  if (k === 'latency' && ms === null) throw new ControlInputError('ms', 'a latency fault needs ms (the delay)')
  return {
    kind: k,
    network: text('network'),
    key: text('key'),
    methods,
    remaining: times,
    probability,
    seed: probability === null ? null : (seed ?? DEFAULT_FAULT_SEED),
    status,
    ms,
    retryAfter: integer('retryAfter', 0),
  }
}

/** The faults in force, in the order added. */
export class FaultBook {
  readonly #slots: Slot[] = []
  #nextId = 1

  add(fault: Omit<Fault, 'id' | 'fired'>): Fault {
    const slot: Slot = {
      fault: { ...fault, id: String(this.#nextId++), fired: 0 },
      draw: fault.probability === null ? null : createPrng(fault.seed ?? DEFAULT_FAULT_SEED),
    }
    this.#slots.push(slot)
    return { ...slot.fault }
  }

  list(): Fault[] {
    return this.#slots.map((s) => ({ ...s.fault }))
  }

  /** Removes one fault; false if there is none with that id. */
  remove(id: string): boolean {
    const i = this.#slots.findIndex((s) => s.fault.id === id)
    if (i < 0) return false
    this.#slots.splice(i, 1)
    return true
  }

  clear(): void {
    this.#slots.length = 0
  }

  /**
   * The fault that fires on this request, if any: counted as fired, and gone once its `times`
   * are used up. Each matching fault with a probability draws once per request.
   */
  fire(target: FaultTarget): Fault | undefined {
    for (let i = 0; i < this.#slots.length; i++) {
      const slot = this.#slots[i]!
      const f = slot.fault
      if (f.network !== null && f.network !== target.network) continue
      if (f.key !== null && f.key !== target.key) continue
      if (f.methods !== null && !target.methods.some((m) => f.methods!.includes(m))) continue
      if (slot.draw !== null && !(slot.draw() < f.probability!)) continue
      f.fired++
      if (f.remaining !== null) {
        f.remaining--
        if (f.remaining === 0) this.#slots.splice(i, 1)
      }
      return { ...f }
    }
    return undefined
  }
}
