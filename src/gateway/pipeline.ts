/**
 * The gateway's request pipeline, transport-free: the request rules, the body's plan, the call
 * rules, a scripted fault, the charge, the calls, the request log's entry. HTTP requests
 * (`handleRequest`) and WebSocket messages (`answerBody` with stage `message`) take it alike. The
 * order, and why it is so, is in ./gateway.ts.
 */
import type { FilterScopes } from './filterScopes.ts'
import { errorResponse } from '../rpc/dispatch.ts'
import { InternalError, MethodNotFoundError } from '../rpc/errors.ts'
import type { RpcContext } from '../rpc/method.ts'
import type { JsonRpcRequest, JsonRpcResponse } from '../rpc/types.ts'
import type { Logger, RpcBackend } from './backend.ts'
import type { ControllableClock } from './clock.ts'
import type { KeySettings } from './config.ts'
import { decorate, gatewayFailure, preflight } from './cors.ts'
import { BAD_REQUEST_COST } from './credits.ts'
import type { CreditLedger } from './credits.ts'
import { GatewayError, WebSocketHandshakeError } from './errors.ts'
import type { FaultAnswers } from './faultAnswers.ts'
import type { FaultBook } from './faults.ts'
import { messageCost, planBody, servedOn } from './plan.ts'
import type { Plan } from './plan.ts'
import { header } from './request.ts'
import type { CallRule, GatewayRequest, Network, RequestRule, RequestState } from './request.ts'
import { loggedText } from './requestLog.ts'
import type { LogDraft, LoggedCall, RequestLog, SocketLogInfo } from './requestLog.ts'
import { droppedResponse, jsonRpcResponse, toHttpResponse } from './response.ts'
import type { HttpResponse } from './response.ts'
import {
  createContractAddressAllowlistRule,
  createMethodAllowlistRule,
  createOriginAllowlistRule,
  createUserAgentAllowlistRule,
} from './rules/allowlist.ts'
import { createApiKeyRule } from './rules/apiKey.ts'
import { createHostRule } from './rules/host.ts'
import { createJwtRule } from './rules/jwt.ts'
import type { JwtCheck } from './rules/jwt.ts'
import { createNetworkAccessRule } from './rules/networkAccess.ts'
import { createRouteRule } from './rules/route.ts'
import { createSecretRule } from './rules/secret.ts'
import { checkHandshake } from './sockets/handshake.ts'
import type { Answered } from './sockets/socketSide.ts'

type Draft = LogDraft

/** What the pipeline works with: the gateway's state and collaborators (owned by `createGateway`). */
export interface PipelineDeps {
  readonly serviceHost: string
  readonly networks: ReadonlyMap<string, Network>
  readonly keys: ReadonlyMap<string, KeySettings>
  readonly clock: ControllableClock
  readonly ledger: CreditLedger
  readonly faults: FaultBook
  readonly faultAnswers: FaultAnswers
  readonly log: RequestLog
  readonly filterScopes: FilterScopes
  readonly rpc: RpcBackend
  readonly logger: Logger
  readonly batchLimit: number
  readonly execution: RpcContext['execution']
}

function outcomeOf(response: JsonRpcResponse): LoggedCall['outcome'] {
  return 'error' in response ? response.error.code : 'ok'
}

export class RequestPipeline {
  readonly #deps: PipelineDeps
  readonly #requestRules: readonly RequestRule[]
  readonly #callRules: readonly CallRule[] = [createMethodAllowlistRule(), createContractAddressAllowlistRule()]
  /** After the request rules: a key's JWT, asynchronous when there is one to verify. */
  readonly checkJwt: JwtCheck
  /** The log's time of the last request, kept for the next ones in the same millisecond. */
  #lastMs = NaN
  #lastIso = ''

  constructor(deps: PipelineDeps) {
    this.#deps = deps
    this.#requestRules = [
      createRouteRule(),
      createHostRule({ serviceHost: deps.serviceHost, networks: deps.networks }),
      createApiKeyRule({ keys: deps.keys }),
      createSecretRule(),
      createNetworkAccessRule(),
      createOriginAllowlistRule(),
      createUserAgentAllowlistRule(),
    ]
    this.checkJwt = createJwtRule(deps.clock)
  }

  #isoTime(ms: number): string {
    if (ms !== this.#lastMs) {
      this.#lastMs = ms
      this.#lastIso = new Date(ms).toISOString()
    }
    return this.#lastIso
  }

  /** A request log entry under way, for an HTTP request or (with `socket`) a WebSocket message. */
  newDraft(socket: SocketLogInfo | null = null): Draft {
    return { time: this.#isoTime(this.#deps.clock.now()), key: null, network: null, batch: false, calls: [], credits: 0, fault: null, status: null, transport: socket === null ? 'http' : 'ws', socket }
  }

  /** The request rules in order; the draft learns the key and network as far as they get. Throws a `GatewayError`. */
  applyRequestRules(state: RequestState, draft: Draft): void {
    try {
      for (const rule of this.#requestRules) rule(state)
    } finally {
      draft.key = state.apiKey === undefined ? null : loggedText(state.apiKey)
      draft.network = state.network?.name ?? null
    }
  }

  async #run(state: RequestState, request: JsonRpcRequest): Promise<JsonRpcResponse> {
    const { filterScopes, logger, rpc, execution } = this.#deps
    const network = state.network!
    const key = state.key!.key
    const ctx: RpcContext = {
      chain: network.chain,
      execution,
      // Made on the first filter call of this key on this network.
      get filters() {
        return filterScopes.tableOf(key, network)
      },
      // A WebSocket session's subscriptions (eth_subscribe); absent over HTTP.
      ...(state.subscriptions ? { subscriptions: state.subscriptions } : {}),
      onInternalError: (err, req) => logger.error(`internal error in ${req.method}`, err),
    }
    // A method the network leaves out is answered as one the double does not serve.
    if (network.excludedMethods?.has(request.method)) return errorResponse(request.id, new MethodNotFoundError(request.method))
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
  async answerBody(state: RequestState, body: Buffer | string, draft: Draft, stage: 'request' | 'message', signal: AbortSignal | undefined): Promise<Answered> {
    const { rpc, batchLimit, faults, faultAnswers, ledger } = this.#deps
    const serves = servedOn(rpc, state.network)
    const plan = planBody(body, serves, batchLimit)
    const messages = plan.kind === 'single' ? [plan.message] : plan.kind === 'batch' ? plan.messages : []
    const calls = {
      batch: plan.kind === 'batch',
      ids: plan.kind === 'answer' ? [plan.id] : messages.map((m) => (m.ok ? (m.notification ? undefined : m.request.id) : m.id)),
    }
    draft.batch = plan.kind === 'batch'
    draft.calls = messages.map((m) =>
      m.ok ? { method: loggedText(m.request.method), credits: messageCost(m, serves), outcome: null } : { method: null, credits: BAD_REQUEST_COST, outcome: null },
    )
    try {
      for (const call of messages) {
        if (call.ok) for (const rule of this.#callRules) rule(state, call.request)
      }
    } catch (err) {
      if (err instanceof GatewayError) return { response: toHttpResponse(err), calls, refusal: err }
      throw err
    }
    const fault = faults.fire({ network: state.network!.name, key: state.key!.key, methods: messages.flatMap((m) => (m.ok ? [m.request.method] : [])), stage })
    if (fault) {
      draft.fault = fault.kind
      // On a socket a timeout leaves the message unanswered: nothing to hold.
      const faulted = stage === 'message' && fault.kind === 'timeout' ? droppedResponse() : await faultAnswers.answer(fault, plan.id, signal)
      if (faulted) return { response: faulted, calls, faulted: fault }
    }
    try {
      ledger.charge(state.key!, plan.cost)
    } catch (err) {
      if (err instanceof GatewayError) return { response: toHttpResponse(err, plan.id), calls, refusal: err }
      throw err
    }
    draft.credits = plan.cost
    return { response: await this.#runPlan(plan, state, draft), calls }
  }

  /** The calls of a charged plan, run (a batch's concurrently), answered in request order. */
  async #runPlan(plan: Plan, state: RequestState, draft: Draft): Promise<HttpResponse> {
    switch (plan.kind) {
      case 'answer':
        return jsonRpcResponse(plan.payload)
      case 'single': {
        const response = await this.#run(state, plan.message.request)
        draft.calls[0] = { ...draft.calls[0]!, outcome: outcomeOf(response) }
        return jsonRpcResponse(plan.message.notification ? undefined : response)
      }
      case 'batch': {
        const responses = await Promise.all(
          plan.messages.map(async (m, i) => {
            const response = m.ok ? await this.#run(state, m.request) : errorResponse(m.id, m.error)
            draft.calls[i] = { ...draft.calls[i]!, outcome: outcomeOf(response) }
            return m.ok && m.notification ? undefined : response
          }),
        )
        const answered = responses.filter((r): r is JsonRpcResponse => r !== undefined)
        return jsonRpcResponse(answered.length > 0 ? answered : undefined)
      }
    }
  }

  async #answer(request: GatewayRequest, draft: Draft): Promise<HttpResponse> {
    const state: RequestState = { request, secretVerified: false }
    try {
      this.applyRequestRules(state, draft)
      const jwt = this.checkJwt(state)
      if (jwt !== undefined) await jwt
      if (state.websocket === true) {
        // `/ws/v3/` asked without an upgrade (or by a transport that has no WebSocket server).
        checkHandshake(request)
        throw new WebSocketHandshakeError(400, 'websocket: the upgrade did not reach a WebSocket server')
      }
    } catch (err) {
      if (err instanceof GatewayError) return toHttpResponse(err)
      throw err
    }
    return (await this.answerBody(state, request.body, draft, 'request', request.signal)).response
  }

  /** One HTTP request, answered and logged. */
  async handleRequest(request: GatewayRequest): Promise<HttpResponse> {
    const origin = header(request, 'origin')
    if (request.method === 'OPTIONS') return decorate(preflight(request), origin)
    const draft = this.newDraft()
    let response: HttpResponse
    try {
      response = await this.#answer(request, draft)
    } catch (err) {
      this.#deps.logger.error('gateway failure', err)
      response = gatewayFailure()
    }
    draft.status = response.destroy === true ? null : response.status
    // The key is a slice of the path, which it may keep alive: the log counts the path's length.
    this.#deps.log.record(draft, request.path.length)
    return response.destroy === true ? response : decorate(response, origin)
  }

  /** The log entry of a request the transport answered before the core read it (see `Gateway.logTransportAnswer`). */
  logTransportAnswer(status: number, request?: Omit<GatewayRequest, 'body'>): void {
    const draft = this.newDraft()
    draft.status = status
    if (request !== undefined) {
      // The rules name the key and network as far as they get; their refusal is not the answer here.
      const state: RequestState = { request: { ...request, method: 'POST', body: '' }, secretVerified: false }
      try {
        for (const rule of this.#requestRules) rule(state)
      } catch {}
      draft.key = state.apiKey === undefined ? null : loggedText(state.apiKey)
      draft.network = state.network?.name ?? null
    }
    this.#deps.log.record(draft, request?.path.length ?? 0)
  }
}
