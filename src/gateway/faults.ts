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
 * - `close` (WebSocket only): closes the socket with `code` (default 1001) and `reason`.
 * - `stall` (WebSocket only): holds the socket's notifications for `ms`, then sends them in order.
 *
 * Where a fault fires: an HTTP request (`transport` `http`), or on a WebSocket (`transport`
 * `ws`) its upgrade, each message the client sends, and each notification the gateway is about to
 * send (`FaultStage`). Each kind applies at some stages only (`KIND_STAGES`); a fault is not
 * tried, nor counted, where its kind does not apply. Without `transport`, a fault matches both.
 *
 * Matching: every filter given must match: `network`, `key` and `transport` exactly; `method` (a
 * name or a list) matches a request when any of its calls has one of those methods (a batch
 * matches when any call does; a request whose body has no valid call, or an upgrade, never matches
 * a method filter; a notification's method is `eth_subscription`).
 * Faults are tried in the order they were added; the first that matches and fires applies.
 *
 * How often: `times` fires the fault on the next N matching requests, then it is gone;
 * `probability` (0..1) fires it on that share of matching requests, drawn from a PRNG seeded by
 * `seed` (default 1), so a run is deterministic; both together: a share, until N have fired;
 * neither: every matching request until the fault is cleared.
 */
import { ControlLimitError } from './controlError.ts'
import { DEFAULT_CONTROL_LIMITS, formatBytes, formatCount, jsonBytes } from './controlLimits.ts'
import type { ControlLimits } from './controlLimits.ts'

export const FAULT_KINDS = ['rateLimit', 'dailyLimit', 'serverError', 'latency', 'timeout', 'drop', 'close', 'stall'] as const
export type FaultKind = (typeof FAULT_KINDS)[number]

export const FAULT_TRANSPORTS = ['http', 'ws'] as const
export type FaultTransport = (typeof FAULT_TRANSPORTS)[number]

/**
 * Where a fault can fire: an HTTP request; a WebSocket's upgrade (answered as the POST would
 * be), a message from its client, a notification about to be sent.
 */
export type FaultStage = 'request' | 'upgrade' | 'message' | 'event'

/** The stages each kind applies at. */
export const KIND_STAGES: Readonly<Record<FaultKind, readonly FaultStage[]>> = {
  rateLimit: ['request', 'upgrade', 'message'],
  dailyLimit: ['request', 'upgrade', 'message'],
  serverError: ['request', 'upgrade', 'message'],
  latency: ['request', 'upgrade', 'message'],
  timeout: ['request', 'upgrade', 'message'],
  drop: ['request', 'upgrade', 'message', 'event'],
  close: ['message', 'event'],
  stall: ['event'],
}

/** The close code of a `close` fault without one: 1001 going away (a server restarting). */
export const DEFAULT_CLOSE_CODE = 1001
/** A close frame's reason is at most 123 bytes (RFC 6455 5.5: control frames carry 125 bytes, 2 are the code). */
export const MAX_CLOSE_REASON_BYTES = 123

/** Close codes a server may send (RFC 6455 7.4, as the ws package checks them): 1000-1014 but 1004-1006, and 3000-4999. */
export function isSendableCloseCode(code: number): boolean {
  return Number.isInteger(code) && ((code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999))
}

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
  /** `http` or `ws`: only requests of that transport (default: both). */
  transport?: FaultTransport
  times?: number
  probability?: number
  seed?: number
  /** `serverError` only: 500, 502, 503 or 504 (default 503). */
  status?: number
  /** `latency` (required) and `timeout` (optional): milliseconds. */
  ms?: number
  /** `rateLimit` only: seconds for a `retry-after` header. */
  retryAfter?: number
  /** `close` only: the close code (default 1001). */
  code?: number
  /** `close` only: the close reason (at most 123 bytes of UTF-8). */
  reason?: string
}

/** A fault as listed: its id, filters, and what is left of it. */
export interface Fault {
  readonly id: string
  readonly kind: FaultKind
  readonly network: string | null
  readonly key: string | null
  readonly methods: readonly string[] | null
  readonly transport: FaultTransport | null
  /** Requests it will still fire on; null: no limit. */
  readonly remaining: number | null
  readonly probability: number | null
  readonly seed: number | null
  readonly status: ServerErrorStatus | null
  readonly ms: number | null
  readonly retryAfter: number | null
  readonly code: number | null
  readonly reason: string | null
  /** Requests it fired on so far. */
  readonly fired: number
}

/** What a fault is matched against. */
export interface FaultTarget {
  readonly network: string
  readonly key: string
  /** Methods of the request's valid calls (`eth_subscription` for a notification). */
  readonly methods: readonly string[]
  readonly stage: FaultStage
}

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
  /** What it keeps, as JSON. */
  readonly bytes: number
}

/** The faults in force, in the order added; at most `limits.faults` of them and `limits.faultBytes` (../controlLimits.ts). */
export class FaultBook {
  readonly #slots: Slot[] = []
  readonly #limits: Pick<ControlLimits, 'faults' | 'faultBytes'>
  #nextId = 1
  #bytes = 0

  constructor(limits: Pick<ControlLimits, 'faults' | 'faultBytes'> = DEFAULT_CONTROL_LIMITS) {
    this.#limits = limits
  }

  /** Adds a fault; a `ControlLimitError` when it would pass a bound (nothing is added). */
  add(fault: Omit<Fault, 'id' | 'fired'>): Fault {
    const bytes = jsonBytes(fault)
    if (this.#slots.length >= this.#limits.faults || this.#bytes + bytes > this.#limits.faultBytes) {
      throw new ControlLimitError(
        `too many faults: ${formatCount(this.#slots.length)} in force, ${formatBytes(this.#bytes)} (the bounds: ${formatCount(this.#limits.faults)} and ${formatBytes(this.#limits.faultBytes)}; this one: ${formatBytes(bytes)}); remove some (DELETE /_double/faults/<id> or /_double/faults)`,
      )
    }
    const slot: Slot = {
      fault: { ...fault, id: String(this.#nextId++), fired: 0 },
      draw: fault.probability === null ? null : createPrng(fault.seed ?? DEFAULT_FAULT_SEED),
      bytes,
    }
    this.#slots.push(slot)
    this.#bytes += bytes
    return { ...slot.fault }
  }

  list(): Fault[] {
    return this.#slots.map((s) => ({ ...s.fault }))
  }

  /** Removes one fault; false if there is none with that id. */
  remove(id: string): boolean {
    const i = this.#slots.findIndex((s) => s.fault.id === id)
    if (i < 0) return false
    this.#bytes -= this.#slots[i]!.bytes
    this.#slots.splice(i, 1)
    return true
  }

  clear(): void {
    this.#slots.length = 0
    this.#bytes = 0
  }

  /** Whether any fault is scripted: when none is, a request need not build a `FaultTarget` to ask. */
  get armed(): boolean {
    return this.#slots.length > 0
  }

  /**
   * The fault that fires on this request, if any: counted as fired, and gone once its `times`
   * are used up. Each matching fault with a probability draws once per request. Returns at once
   * when nothing is scripted.
   */
  fire(target: FaultTarget): Fault | undefined {
    if (this.#slots.length === 0) return undefined
    for (let i = 0; i < this.#slots.length; i++) {
      const slot = this.#slots[i]!
      const f = slot.fault
      if (!KIND_STAGES[f.kind].includes(target.stage)) continue
      if (f.transport !== null && f.transport !== (target.stage === 'request' ? 'http' : 'ws')) continue
      if (f.network !== null && f.network !== target.network) continue
      if (f.key !== null && f.key !== target.key) continue
      if (f.methods !== null && !target.methods.some((m) => f.methods!.includes(m))) continue
      if (slot.draw !== null && !(slot.draw() < f.probability!)) continue
      f.fired++
      if (f.remaining !== null) {
        f.remaining--
        if (f.remaining === 0) {
          this.#bytes -= slot.bytes
          this.#slots.splice(i, 1)
        }
      }
      return { ...f }
    }
    return undefined
  }
}
