/**
 * The transport-free gateway: one raw HTTP request in (`GatewayRequest`), status, headers and
 * body out (`HttpResponse`). Every rule of the hosted service and the JSON-RPC dispatch live here;
 * Express (src/http/app.ts) and bare `node:http` (src/http/nodeHandler.ts) only carry bytes.
 *
 * Order, each step refusing before the next runs (refusals charge nothing):
 * 1. OPTIONS: CORS preflight, 204.
 * 2. Request rules: route (404/405/401 missing key) → host (404 unknown network) → key (401) →
 *    secret (403/401) → network enabled (401) → origin and user-agent allowlists (403).
 * 3. Body: JSON parse (-32700), single or batch (empty batch -32600, over `batchLimit` -32600
 *    `batch too large`), each message through `parseMessage`.
 * 4. Call rules: method and contract-address allowlists (403 for the whole request).
 * 5. Credits: the whole request's cost is checked and deducted in one synchronous step (402 daily
 *    balance, 429 throughput), before the first `await`, so concurrent requests never overdraw.
 * 4b. Scripted faults (./faults.ts): the first fault matching the request's network, key and
 *    methods answers instead (429, 402, 5xx, drop, timeout: nothing charged), or delays it (latency).
 * 6. `execute` per call (batch calls concurrently), answers in request order.
 *
 * Every request but a CORS preflight is written to the request log when it is over. The
 * `control` facet (./control.ts) changes keys, networks, clock, ledger, faults and log at run time.
 *
 * WebSocket (./sockets/): `upgrade` judges an upgrade to `/ws/v3/<key>` by the same request rules,
 * then the handshake; each message of an accepted connection takes steps 3 to 6 as a POST body
 * would, and is answered as frames.
 */
import type { Chain } from '../chain/chain.ts'
import type { FilterLimits } from '../chain/filters/filterTable.ts'
import { SYSTEM_CLOCK } from '../chain/clock.ts'
import { DEFAULT_EVM_TIMEOUT_MS, DEFAULT_SLICE_MS } from '../chain/vm/executionGuard.ts'
import { execute as rpcExecute, isSupportedMethod as rpcIsSupported, errorResponse, parseMessage } from '../rpc/dispatch.ts'
import type { ParsedMessage } from '../rpc/dispatch.ts'
import { InternalError, InvalidRequestError, ParseError } from '../rpc/errors.ts'
import type { RpcContext } from '../rpc/method.ts'
import { needsRawId, rawBatchIds, rawIdOf } from '../rpc/rawIds.ts'
import type { JsonRpcId, JsonRpcRequest, JsonRpcResponse } from '../rpc/types.ts'
import { DEFAULT_SERVICE_HOST, parseKeys, parseNetworkName, parseServiceHost } from './config.ts'
import type { KeyConfigInput, KeySettings } from './config.ts'
import { createControllableClock } from './clock.ts'
import type { ControllableClock } from './clock.ts'
import { createControl } from './control.ts'
import type { GatewayControl } from './control.ts'
import { BAD_REQUEST_COST, BATCH_ENVELOPE_COST, CreditLedger, UNKNOWN_METHOD_COST, methodCost, systemClock } from './credits.ts'
import type { Clock } from './credits.ts'
import { GatewayError, WebSocketHandshakeError } from './errors.ts'
import { FaultBook } from './faults.ts'
import { FilterScopes } from './filterScopes.ts'
import type { Fault } from './faults.ts'
import { header } from './request.ts'
import type { CallRule, GatewayRequest, Network, RequestRule, RequestState } from './request.ts'
import { loggedText, RequestLog } from './requestLog.ts'
import type { LogDraft, LoggedCall, SocketLogInfo } from './requestLog.ts'
import {
  dailyLimitResponse,
  droppedResponse,
  jsonRpcResponse,
  rateLimitResponse,
  serverErrorResponse,
  toHttpResponse,
} from './response.ts'
import type { HttpResponse } from './response.ts'
import {
  createContractAddressAllowlistRule,
  createMethodAllowlistRule,
  createOriginAllowlistRule,
  createUserAgentAllowlistRule,
} from './rules/allowlist.ts'
import { createApiKeyRule } from './rules/apiKey.ts'
import { createHostRule, networkHost } from './rules/host.ts'
import { createNetworkAccessRule } from './rules/networkAccess.ts'
import { createRouteRule } from './rules/route.ts'
import { createSecretRule } from './rules/secret.ts'
import { checkHandshake } from './sockets/handshake.ts'
import { parseSocketLimits } from './sockets/limits.ts'
import type { SocketLimits } from './sockets/limits.ts'
import { createSocketSide } from './sockets/socketSide.ts'
import type { Answered, UpgradeAnswer } from './sockets/socketSide.ts'
import type { SocketSession } from './sockets/session.ts'

/**
 * How long a `timeout` fault without `ms` holds a request before the 504: an AWS load balancer's
 * default idle timeout, so a client that never gives up (ethers keeps its socket) is not held forever.
 */
export const LOAD_BALANCER_IDLE_TIMEOUT_MS = 60_000

/** geth's default `BatchRequestLimit`. */
export const DEFAULT_BATCH_LIMIT = 1000

export interface Logger {
  error(message: string, err?: unknown): void
  info?(message: string): void
}

export const silentLogger: Logger = { error() {} }

/** The JSON-RPC layer the gateway dispatches to (src/rpc/dispatch.ts unless a test injects one). */
export interface RpcBackend {
  isSupportedMethod(method: string): boolean
  execute(ctx: RpcContext, request: JsonRpcRequest): Promise<JsonRpcResponse>
}

export const defaultRpcBackend: RpcBackend = { isSupportedMethod: rpcIsSupported, execute: rpcExecute }

export interface GatewayOptions {
  /** Chains by network name; each is served at `<name>-mainnet.<serviceHost>`. */
  readonly networks: Readonly<Record<string, Chain>>
  /** Keys in the config-file shape; validated here (a `ConfigError` names the field). */
  readonly keys: readonly KeyConfigInput[]
  /** Default `localhost`. */
  readonly serviceHost?: string
  /**
   * The base clock. Default: the system clock. The gateway's own clock (`gateway.clock`) runs on
   * it, shifted by the controls (`control.setClock`); the ledger's 00:00 UTC follows that.
   */
  readonly clock?: Clock
  readonly logger?: Logger
  readonly rpc?: RpcBackend
  readonly batchLimit?: number
  /** The filters' bounds per key and network (default `FILTER_LIMITS`, src/chain/filters/filterTable.ts). */
  readonly filterLimits?: Partial<FilterLimits>
  /**
   * How long the executions of one eth_call or eth_estimateGas may take, in ms (geth's
   * `--rpc.evmtimeout`): past it, -32000 `execution aborted (timeout = 5s)`. 0: no limit.
   * Default 5,000.
   */
  readonly evmTimeoutMs?: number
  /** How long an execution runs before other requests get a turn, in ms; 0: never. Default 10. */
  readonly evmSliceMs?: number
  /** Bounds of WebSocket connections (./sockets/limits.ts); each defaults. */
  readonly sockets?: Partial<SocketLimits>
}

export interface Gateway {
  readonly serviceHost: string
  /** The networks served (live: `control.fork` adds to it). */
  readonly networks: ReadonlyMap<string, Network>
  /** The keys now (a copy: `control` adds and changes keys). */
  readonly keys: readonly KeySettings[]
  readonly ledger: CreditLedger
  /** The gateway's clock: the base clock, shifted by `control.setClock`. */
  readonly clock: ControllableClock
  /** Controls for tests: snapshots, clock, keys, networks, mining, request log, faults. */
  readonly control: GatewayControl
  /** Where failures are told (the `logger` option, silent by default). */
  readonly logger: Logger
  /** The filter tables, one per key and network (./filterScopes.ts). */
  readonly filters: FilterScopes
  /** Answers one request. Never rejects: a failure anywhere is a logged 500 `-32603 internal error`. */
  handle(request: GatewayRequest): Promise<HttpResponse>
  /**
   * Judges a WebSocket upgrade by the request rules and the handshake: refused with the answer a
   * POST would get (or gorilla/websocket's handshake refusals), or accepted with the session to
   * open once the transport completed the handshake. Never rejects.
   */
  upgrade(request: GatewayRequest): Promise<UpgradeAnswer>
  /** The bounds of WebSocket connections; the transport applies the message size and pings. */
  readonly socketLimits: SocketLimits
  /** The WebSocket sessions open now. */
  readonly sockets: readonly SocketSession[]
  /**
   * Writes the request log's entry of a request its transport answered before the core could
   * read it: a body over the limit (413), malformed HTTP (Node's 400, 408, 431). `request` is what
   * was read of it (nothing for malformed HTTP); the key and network are logged as far as its path
   * and Host name them. Never throws.
   */
  logTransportAnswer(status: number, request?: Omit<GatewayRequest, 'body'>): void
  /** Credits left today for a key (undefined for an unknown key). */
  balance(key: string): number | undefined
  /**
   * Releases every request a fault is holding (timeouts, latency) as a dropped connection, and
   * closes every WebSocket session with 1001 (going away), so nothing waits on a closed server.
   * New requests are still answered.
   */
  close(): void
}

type Plan =
  /** Answered without executing anything (parse error, invalid single request, bad batch). */
  | { kind: 'answer'; payload: JsonRpcResponse | JsonRpcResponse[]; cost: number; id: JsonRpcId }
  | { kind: 'single'; message: ParsedMessage & { ok: true }; cost: number; id: JsonRpcId }
  | { kind: 'batch'; messages: ParsedMessage[]; cost: number; id: null }

function messageCost(message: ParsedMessage, rpc: RpcBackend): number {
  if (!message.ok) return BAD_REQUEST_COST
  return rpc.isSupportedMethod(message.request.method) ? methodCost(message.request.method) : UNKNOWN_METHOD_COST
}

/** Reads the body into a plan and its total cost. Pure and synchronous. */
export function planBody(body: Buffer | string, rpc: RpcBackend, batchLimit: number): Plan {
  const text = typeof body === 'string' ? body : body.toString('utf8')
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { kind: 'answer', payload: errorResponse(null, new ParseError()), cost: BAD_REQUEST_COST, id: null }
  }
  if (!Array.isArray(json)) {
    const message = parseMessage(json, needsRawId((json as { id?: unknown } | null)?.id, text) ? rawIdOf(text) : undefined)
    if (!message.ok) {
      return { kind: 'answer', payload: errorResponse(message.id, message.error), cost: BAD_REQUEST_COST, id: message.id }
    }
    return { kind: 'single', message, cost: messageCost(message, rpc), id: message.request.id }
  }
  if (json.length === 0) {
    return { kind: 'answer', payload: errorResponse(null, new InvalidRequestError('empty batch')), cost: BAD_REQUEST_COST, id: null }
  }
  const rawIds = json.some((m: { id?: unknown } | null) => needsRawId(m?.id, text)) ? rawBatchIds(text) : []
  const messages = json.map((m, i) => parseMessage(m, rawIds[i]))
  if (json.length > batchLimit) {
    // geth: one error in an array, with the id of the first call.
    const first = messages.find((m) => m.ok && !m.notification)
    const id = first?.ok ? first.request.id : null
    return { kind: 'answer', payload: [errorResponse(id, new InvalidRequestError('batch too large'))], cost: BAD_REQUEST_COST, id: null }
  }
  const cost = messages.reduce((sum, m) => sum + messageCost(m, rpc), BATCH_ENVELOPE_COST)
  return { kind: 'batch', messages, cost, id: null }
}

function nonNegativeInteger(v: number, name: string): number {
  if (!Number.isSafeInteger(v) || v < 0) throw new TypeError(`${name} must be an integer of at least 0 (ms), got ${v}`)
  return v
}

/** The gateway's own failure: the service's 500 with a JSON-RPC `-32603 internal error`, no stack. */
export function gatewayFailure(): HttpResponse {
  return decorate({ ...jsonRpcResponse(errorResponse(null, new InternalError())), status: 500 }, undefined)
}

function preflight(request: GatewayRequest): HttpResponse {
  return {
    status: 204,
    headers: {
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': header(request, 'access-control-request-headers') ?? 'content-type, authorization',
      'access-control-max-age': '86400',
    },
    body: '',
  }
}

/**
 * Headers every answer carries: `vary: Origin`, and the request's origin allowed back (CORS).
 * Every response is made for its request, so its headers are completed in place.
 */
function decorate(response: HttpResponse, origin: string | undefined): HttpResponse {
  const headers = response.headers
  headers.vary = 'Origin'
  if (origin !== undefined) headers['access-control-allow-origin'] = origin
  else if (response.status === 204) headers['access-control-allow-origin'] = '*'
  return response
}

type Draft = LogDraft

function outcomeOf(response: JsonRpcResponse): LoggedCall['outcome'] {
  return 'error' in response ? response.error.code : 'ok'
}

export function createGateway(options: GatewayOptions): Gateway {
  const serviceHost = parseServiceHost(options.serviceHost ?? DEFAULT_SERVICE_HOST)
  const networks = new Map<string, Network>()
  for (const [name, chain] of Object.entries(options.networks)) {
    parseNetworkName(name, `networks.${name}`)
    networks.set(name, { name, host: networkHost(name, serviceHost), chain })
  }
  const keysByName = new Map(parseKeys(options.keys, networks.keys()).map((k) => [k.key, k]))
  const clock = createControllableClock(options.clock ?? systemClock)
  // Mined blocks take their timestamps from the gateway's clock, so `control.setClock` moves
  // block time too (a suite crossing midnight sees it in both credits and `block.timestamp`).
  // A chain given its own clock keeps it.
  for (const { chain } of networks.values()) {
    if (chain.clock === SYSTEM_CLOCK) chain.setClock(clock)
  }
  const logger = options.logger ?? silentLogger
  const rpc = options.rpc ?? defaultRpcBackend
  const batchLimit = options.batchLimit ?? DEFAULT_BATCH_LIMIT
  if (!Number.isSafeInteger(batchLimit) || batchLimit < 1) throw new TypeError(`batchLimit must be a positive integer, got ${batchLimit}`)
  const execution = {
    timeoutMs: nonNegativeInteger(options.evmTimeoutMs ?? DEFAULT_EVM_TIMEOUT_MS, 'evmTimeoutMs'),
    sliceMs: nonNegativeInteger(options.evmSliceMs ?? DEFAULT_SLICE_MS, 'evmSliceMs'),
  }
  const socketLimits = parseSocketLimits(options.sockets)
  const ledger = new CreditLedger(clock)
  const faults = new FaultBook()
  const log = new RequestLog()
  const filterScopes = new FilterScopes({ clock, ...(options.filterLimits ? { limits: options.filterLimits } : {}), onError: (err) => logger.error('filter listener failure', err) })
  const control = createControl({ serviceHost, networks, keys: keysByName, ledger, clock, faults, log })
  /** The log's time of the last request, kept for the next ones in the same millisecond. */
  let lastMs = NaN
  let lastIso = ''
  const isoTime = (ms: number): string => {
    if (ms !== lastMs) {
      lastMs = ms
      lastIso = new Date(ms).toISOString()
    }
    return lastIso
  }
  /** Releases of the requests faults are holding. */
  const held = new Set<() => void>()

  /**
   * Waits `ms` unless released first by the client going away or `close()`: true when the time
   * ran out, false when released.
   */
  function hold(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined
      const finish = (elapsed: boolean) => {
        if (timer !== undefined) clearTimeout(timer)
        signal?.removeEventListener('abort', release)
        held.delete(release)
        resolve(elapsed)
      }
      const release = () => finish(false)
      if (signal?.aborted) {
        resolve(false)
        return
      }
      held.add(release)
      signal?.addEventListener('abort', release, { once: true })
      timer = setTimeout(() => finish(true), ms)
    })
  }

  /** The faulted answer; undefined when the request goes on (latency served). */
  async function applyFault(fault: Fault, id: JsonRpcId, signal: AbortSignal | undefined): Promise<HttpResponse | undefined> {
    switch (fault.kind) {
      case 'close':
      case 'stall':
        // Socket-only kinds never fire on HTTP (faults.ts KIND_STAGES); a socket carries them out.
        return droppedResponse()
      case 'rateLimit':
        return rateLimitResponse(id, fault.retryAfter)
      case 'dailyLimit':
        return dailyLimitResponse(id)
      case 'serverError':
        return serverErrorResponse(fault.status ?? 503, id)
      case 'drop':
        return droppedResponse()
      case 'timeout':
        return (await hold(fault.ms ?? LOAD_BALANCER_IDLE_TIMEOUT_MS, signal)) ? serverErrorResponse(504, id) : droppedResponse()
      case 'latency':
        return (await hold(fault.ms ?? 0, signal)) ? undefined : droppedResponse()
    }
  }

  const requestRules: readonly RequestRule[] = [
    createRouteRule(),
    createHostRule({ serviceHost, networks }),
    createApiKeyRule({ keys: keysByName }),
    createSecretRule(),
    createNetworkAccessRule(),
    createOriginAllowlistRule(),
    createUserAgentAllowlistRule(),
  ]
  const callRules: readonly CallRule[] = [createMethodAllowlistRule(), createContractAddressAllowlistRule()]

  function newDraft(socket: SocketLogInfo | null = null): Draft {
    return { time: isoTime(clock.now()), key: null, network: null, batch: false, calls: [], credits: 0, fault: null, status: null, transport: socket === null ? 'http' : 'ws', socket }
  }

  /** The request rules in order; the draft learns the key and network as far as they get. Throws a `GatewayError`. */
  function applyRequestRules(state: RequestState, draft: Draft): void {
    try {
      for (const rule of requestRules) rule(state)
    } finally {
      draft.key = state.apiKey === undefined ? null : loggedText(state.apiKey)
      draft.network = state.network?.name ?? null
    }
  }

  async function run(state: RequestState, request: JsonRpcRequest): Promise<JsonRpcResponse> {
    const network = state.network!
    const key = state.key!.key
    const ctx: RpcContext = {
      chain: network.chain,
      execution,
      // Made on the first filter call of this key on this network.
      get filters() {
        return filterScopes.tableOf(key, network)
      },
      onInternalError: (err, req) => logger.error(`internal error in ${req.method}`, err),
    }
    try {
      return await rpc.execute(ctx, request)
    } catch (err) {
      logger.error(`internal error in ${request.method}`, err)
      return errorResponse(request.id, new InternalError())
    }
  }

  /**
   * A body's way through the core once the request rules passed: the plan, the call rules, a
   * fault, the charge, the calls. An HTTP request (`stage` `request`) and a WebSocket message
   * (`message`) take it alike. Everything up to and including the charge is synchronous (no
   * `await` between reading the balance and deducting from it), except a latency fault's wait,
   * which comes before both.
   */
  async function answerBody(state: RequestState, body: Buffer | string, draft: Draft, stage: 'request' | 'message', signal: AbortSignal | undefined): Promise<Answered> {
    const plan = planBody(body, rpc, batchLimit)
    const messages = plan.kind === 'single' ? [plan.message] : plan.kind === 'batch' ? plan.messages : []
    const calls = {
      batch: plan.kind === 'batch',
      ids: plan.kind === 'answer' ? [plan.id] : messages.map((m) => (m.ok ? (m.notification ? undefined : m.request.id) : m.id)),
    }
    draft.batch = plan.kind === 'batch'
    draft.calls = messages.map((m) =>
      m.ok ? { method: loggedText(m.request.method), credits: messageCost(m, rpc), outcome: null } : { method: null, credits: BAD_REQUEST_COST, outcome: null },
    )
    try {
      for (const call of messages) {
        if (call.ok) for (const rule of callRules) rule(state, call.request)
      }
    } catch (err) {
      if (err instanceof GatewayError) return { response: toHttpResponse(err), calls, refusal: err }
      throw err
    }
    const fault = faults.fire({ network: state.network!.name, key: state.key!.key, methods: messages.flatMap((m) => (m.ok ? [m.request.method] : [])), stage })
    if (fault) {
      draft.fault = fault.kind
      // On a socket a timeout leaves the message unanswered: nothing to hold.
      const faulted = stage === 'message' && fault.kind === 'timeout' ? droppedResponse() : await applyFault(fault, plan.id, signal)
      if (faulted) return { response: faulted, calls, faulted: fault }
    }
    try {
      ledger.charge(state.key!, plan.cost)
    } catch (err) {
      if (err instanceof GatewayError) return { response: toHttpResponse(err, plan.id), calls, refusal: err }
      throw err
    }
    draft.credits = plan.cost
    switch (plan.kind) {
      case 'answer':
        return { response: jsonRpcResponse(plan.payload), calls }
      case 'single': {
        const response = await run(state, plan.message.request)
        draft.calls[0] = { ...draft.calls[0]!, outcome: outcomeOf(response) }
        return { response: jsonRpcResponse(plan.message.notification ? undefined : response), calls }
      }
      case 'batch': {
        const responses = await Promise.all(
          plan.messages.map(async (m, i) => {
            const response = m.ok ? await run(state, m.request) : errorResponse(m.id, m.error)
            draft.calls[i] = { ...draft.calls[i]!, outcome: outcomeOf(response) }
            return m.ok && m.notification ? undefined : response
          }),
        )
        const answered = responses.filter((r): r is JsonRpcResponse => r !== undefined)
        return { response: jsonRpcResponse(answered.length > 0 ? answered : undefined), calls }
      }
    }
  }

  async function answer(request: GatewayRequest, draft: Draft): Promise<HttpResponse> {
    const state: RequestState = { request, secretVerified: false }
    try {
      applyRequestRules(state, draft)
      if (state.websocket === true) {
        // `/ws/v3/` asked without an upgrade (or by a transport that has no WebSocket server).
        checkHandshake(request)
        throw new WebSocketHandshakeError(400, 'websocket: the upgrade did not reach a WebSocket server')
      }
    } catch (err) {
      if (err instanceof GatewayError) return toHttpResponse(err)
      throw err
    }
    return (await answerBody(state, request.body, draft, 'request', request.signal)).response
  }

  async function handleRequest(request: GatewayRequest): Promise<HttpResponse> {
    const origin = header(request, 'origin')
    if (request.method === 'OPTIONS') return decorate(preflight(request), origin)
    const draft = newDraft()
    let response: HttpResponse
    try {
      response = await answer(request, draft)
    } catch (err) {
      logger.error('gateway failure', err)
      response = gatewayFailure()
    }
    draft.status = response.destroy === true ? null : response.status
    // The key is a slice of the path, which it may keep alive: the log counts the path's length.
    log.record(draft, request.path.length)
    return response.destroy === true ? response : decorate(response, origin)
  }

  /** The log entry of a request the transport answered before the core read it (see `logTransportAnswer`). */
  function logTransportAnswer(status: number, request?: Omit<GatewayRequest, 'body'>): void {
    const draft = newDraft()
    draft.status = status
    if (request !== undefined) {
      // The rules name the key and network as far as they get; their refusal is not the answer here.
      const state: RequestState = { request: { ...request, method: 'POST', body: '' }, secretVerified: false }
      try {
        for (const rule of requestRules) rule(state)
      } catch {}
      draft.key = state.apiKey === undefined ? null : loggedText(state.apiKey)
      draft.network = state.network?.name ?? null
    }
    log.record(draft, request?.path.length ?? 0)
  }

  const socketSide = createSocketSide({
    limits: socketLimits,
    ledger,
    faults,
    logger,
    newDraft,
    record: (draft, keyParent) => log.record(draft, keyParent),
    applyRequestRules,
    answerBody: (state, body, draft, signal) => answerBody(state, body, draft, 'message', signal),
    applyFault: (fault, signal) => applyFault(fault, null, signal),
    decorate,
  })

  return {
    serviceHost,
    networks,
    logger,
    filters: filterScopes,
    socketLimits,
    get sockets() {
      return socketSide.sessions()
    },
    get keys() {
      return [...keysByName.values()]
    },
    ledger,
    clock,
    control,
    /** Never rejects: whatever throws, here or in a rule, becomes a logged 500 (the guard of every transport). */
    async handle(request) {
      try {
        return await handleRequest(request)
      } catch (err) {
        logger.error('gateway failure', err)
        return gatewayFailure()
      }
    },
    async upgrade(request) {
      try {
        return await socketSide.upgrade(request)
      } catch (err) {
        logger.error('gateway failure', err)
        return { accepted: false, response: gatewayFailure() }
      }
    },
    logTransportAnswer(status, request) {
      try {
        logTransportAnswer(status, request)
      } catch (err) {
        logger.error('request log failure', err)
      }
    },
    close() {
      for (const release of [...held]) release()
      socketSide.closeAll()
    },
    balance(key) {
      const settings = keysByName.get(key)
      return settings === undefined ? undefined : ledger.balance(settings)
    },
  }
}
