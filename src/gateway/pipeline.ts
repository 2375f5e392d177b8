/**
 * The gateway's request pipeline, transport-free: the request rules, the body's plan, the call
 * rules, a scripted fault, the charge, the calls, the request log's entry. HTTP requests
 * (`handleRequest`) and WebSocket messages (`answerBody` with stage `message`) take it alike. The
 * order, and why it is so, is in ./gateway.ts.
 *
 * Synchronous until something waits: the body is parsed and priced once, the rules run, the
 * charge is made and the call dispatched in one go; a promise is made only when the method (or a
 * scripted fault) returns one, so an `eth_blockNumber` is answered before its request handler
 * returns.
 */
import type { FilterScopes } from './filterScopes.ts'
import { errorResponse, isThenable } from '../rpc/dispatch.ts'
import type { MaybePromise } from '../rpc/dispatch.ts'
import { MethodNotFoundError } from '../rpc/errors.ts'
import type { RpcContext } from '../rpc/method.ts'
import type { JsonRpcRequest, JsonRpcResponse } from '../rpc/types.ts'
import { CallContext, callBackend } from './backend.ts'
import type { Logger, RpcBackend } from './backend.ts'
import type { ControllableClock } from './clock.ts'
import type { KeySettings } from './config.ts'
import { decorate, gatewayFailure, preflight } from './cors.ts'
import type { CreditLedger } from './credits.ts'
import { GatewayError, WebSocketHandshakeError } from './errors.ts'
import type { FaultAnswers } from './faultAnswers.ts'
import type { Fault, FaultBook } from './faults.ts'
import type { CompiledProfile } from './profiles/compile.ts'
import { loggedCalls, messageCalls, methodsOf, planBody, servedOn } from './plan.ts'
import { runPlan } from './runPlan.ts'
import type { Plan, Serves } from './plan.ts'
import { header } from './request.ts'
import type { CallRule, GatewayRequest, Network, RequestRule, RequestState } from './request.ts'
import { IsoTimes } from './logEntry.ts'
import { loggedText } from './requestLog.ts'
import type { CallDraft, LogDraft, RequestLog, SocketLogInfo } from './requestLog.ts'
import { droppedResponse, toHttpResponse } from './response.ts'
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
import { createSecretRule } from './rules/secret.ts'
import type { MessageCalls } from './sockets/frames.ts'
import { checkHandshake } from './sockets/handshake.ts'
import type { Answered } from './sockets/socketSide.ts'

type Draft = LogDraft

/** The signal of a request's client going away, asked for only by a fault that holds the request. */
type SignalSource = () => AbortSignal | undefined

/** What a WebSocket message's answer needs besides the response (`Answered`); HTTP asks for none of it. */
interface AnswerNote {
  calls?: MessageCalls
  faulted?: Fault
  refusal?: GatewayError
}

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
  /** The most calls of an HTTP batch and of a WebSocket message's. */
  readonly batchLimits: { readonly http: number; readonly ws: number }
  readonly execution: RpcContext['execution']
  /** The provider profile whose rules these are (the service's: infura). */
  readonly profile: CompiledProfile
}

/** A rule's refusal as its answer; anything else thrown is a failure. */
function refused(err: unknown): HttpResponse {
  if (err instanceof GatewayError) return toHttpResponse(err)
  throw err
}

export class RequestPipeline {
  readonly #deps: PipelineDeps
  readonly #requestRules: readonly RequestRule[]
  #callRules: readonly CallRule[] = [createMethodAllowlistRule(), createContractAddressAllowlistRule()]
  /** After the request rules: a key's JWT, asynchronous when there is one to verify. */
  readonly checkJwt: JwtCheck
  /** What each network serves (its exclusions applied), made once per network. */
  readonly #serves = new WeakMap<Network, Serves>()
  readonly #onInternalError: RpcContext['onInternalError']
  readonly #accountOf: CompiledProfile['accountOf']
  /** A profile's refusal of a call as its JSON-RPC error (eth_getLogs' range: ./profiles/compile.ts). */
  readonly #callRefusal: CompiledProfile['callRefusal']
  /** The log's times (./logEntry.ts). */
  readonly #times = new IsoTimes()

  constructor(deps: PipelineDeps) {
    this.#deps = deps
    const { profile } = deps
    this.#requestRules = [
      profile.routeRule(),
      createHostRule({ serviceHost: deps.serviceHost, networks: deps.networks, hostOf: profile.networkHost }),
      createApiKeyRule({ keys: deps.keys, refuse: profile.refuseKey }),
      createSecretRule(),
      createNetworkAccessRule(),
      createOriginAllowlistRule(),
      createUserAgentAllowlistRule(),
    ]
    if (profile.rangeRule !== undefined) this.#callRules = [...this.#callRules, profile.rangeRule]
    this.#callRefusal = profile.callRefusal
    this.#accountOf = profile.accountOf
    this.checkJwt = createJwtRule(deps.clock)
    this.#onInternalError = (err, req) => deps.logger.error(`internal error in ${req.method}`, err)
  }

  /** A request log entry under way, for an HTTP request or (with `socket`) a WebSocket message. */
  newDraft(socket: SocketLogInfo | null = null): Draft {
    return { seq: 0, time: this.#times.of(this.#deps.clock.now()), key: null, network: null, batch: false, calls: [], credits: 0, fault: null, status: null, transport: socket === null ? 'http' : 'ws', socket }
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

  #servesOn(network: Network): Serves {
    let serves = this.#serves.get(network)
    if (serves === undefined) this.#serves.set(network, (serves = servedOn(this.#deps.rpc, network)))
    return serves
  }

  /** One call, answered at once when its method answers synchronously. */
  #run(state: RequestState, request: JsonRpcRequest, call: CallDraft): MaybePromise<JsonRpcResponse> {
    const network = state.network!
    // A method the network leaves out is answered as one the double does not serve.
    if (network.excludedMethods?.has(request.method)) return errorResponse(request.id, new MethodNotFoundError(request.method))
    const refused = this.#callRefusal?.(network, request)
    if (refused !== undefined) return refused
    const ctx = new CallContext(network, this.#deps.execution, this.#deps.filterScopes, state.key!.key, state.subscriptions, this.#onInternalError, call, this.#deps.logger)
    if (this.#deps.profile.logResults !== undefined) ctx.logResults = this.#deps.profile.logResults
    return callBackend(this.#deps.rpc, ctx, request, this.#deps.logger)
  }

  /**
   * A body's way through the core once the request rules passed: the plan, the call rules, a
   * fault, the charge, the calls. An HTTP request (`stage` `request`) and a WebSocket message
   * (`message`) take it alike. Everything up to and including the charge is synchronous (no
   * `await` between reading the balance and deducting from it), except a latency fault's wait,
   * which comes before both.
   */
  async answerBody(state: RequestState, body: Buffer | string, draft: Draft, stage: 'request' | 'message', signal: AbortSignal | undefined): Promise<Answered> {
    const note: AnswerNote = {}
    const response = await this.#answerBody(state, body, draft, stage, () => signal, note)
    return { response, ...note }
  }

  #answerBody(state: RequestState, body: Buffer | string, draft: Draft, stage: 'request' | 'message', signal: SignalSource, note: AnswerNote | undefined): MaybePromise<HttpResponse> {
    const { batchLimits, faults, profile } = this.#deps
    const plan = planBody(body, stage === 'message' ? batchLimits.ws : batchLimits.http, this.#servesOn(state.network!), profile.pricing, profile.refuseBatch)
    if (note !== undefined) note.calls = messageCalls(plan)
    if (plan.kind === 'refused') {
      if (note !== undefined) note.refusal = plan.refusal
      return toHttpResponse(plan.refusal)
    }
    draft.batch = plan.kind === 'batch'
    draft.calls = loggedCalls(plan)
    try {
      if (plan.kind === 'single') {
        this.#applyCallRules(state, plan.message.request)
        this.#deps.profile.singleRangeRule?.(state, plan.message.request)
      } else if (plan.kind === 'batch') for (const call of plan.messages) if (call.ok) this.#applyCallRules(state, call.request)
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err
      if (note !== undefined) note.refusal = err
      return toHttpResponse(err)
    }
    const fault = faults.armed ? faults.fire({ network: state.network!.name, key: state.key!.key, methods: methodsOf(plan), stage }) : undefined
    if (fault !== undefined) return this.#faulted(fault, plan, state, draft, stage, signal, note)
    return this.#charged(plan, state, draft, note)
  }

  #applyCallRules(state: RequestState, call: JsonRpcRequest): void {
    for (const rule of this.#callRules) rule(state, call)
  }

  /** A fault's answer; a latency served goes on to the charge and the calls. */
  async #faulted(fault: Fault, plan: Plan, state: RequestState, draft: Draft, stage: 'request' | 'message', signal: SignalSource, note: AnswerNote | undefined): Promise<HttpResponse> {
    draft.fault = fault.kind
    // On a socket a timeout leaves the message unanswered: nothing to hold.
    const faulted = stage === 'message' && fault.kind === 'timeout' ? droppedResponse() : await this.#deps.faultAnswers.answer(fault, plan.id, signal())
    if (faulted === undefined) return this.#charged(plan, state, draft, note)
    if (note !== undefined) note.faulted = fault
    return faulted
  }

  /** The charge of the whole plan, in one synchronous step, then its calls. */
  #charged(plan: Plan, state: RequestState, draft: Draft, note: AnswerNote | undefined): MaybePromise<HttpResponse> {
    try {
      this.#deps.ledger.charge(this.#accountOf === undefined ? state.key! : this.#accountOf(state.key!), plan.cost)
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err
      if (note !== undefined) note.refusal = err
      return toHttpResponse(err, plan.id)
    }
    draft.credits = plan.cost
    return runPlan(plan, draft, (request, call) => this.#run(state, request, call))
  }

  #answer(request: GatewayRequest, draft: Draft): MaybePromise<HttpResponse> {
    const state: RequestState = { request, secretVerified: false }
    let jwt: Promise<void> | undefined
    try {
      this.applyRequestRules(state, draft)
      jwt = this.checkJwt(state)
    } catch (err) {
      return refused(err)
    }
    // A key's JWT is verified asynchronously; a key without one goes on at once.
    if (jwt !== undefined) return jwt.then(() => this.#admitted(request, state, draft), refused)
    return this.#admitted(request, state, draft)
  }

  /** A request the request rules let through: the WebSocket path's refusal, or its body's way. */
  #admitted(request: GatewayRequest, state: RequestState, draft: Draft): MaybePromise<HttpResponse> {
    if (state.websocket === true) {
      // `/ws/v3/` asked without an upgrade (or by a transport that has no WebSocket server).
      try {
        checkHandshake(request)
        throw new WebSocketHandshakeError(400, 'websocket: the upgrade did not reach a WebSocket server')
      } catch (err) {
        return refused(err)
      }
    }
    // The signal is only read by a fault that holds the request (a transport may make it on demand).
    return this.#answerBody(state, request.body, draft, 'request', () => request.signal, undefined)
  }

  /**
   * One HTTP request, answered and logged: at once when nothing waited, else a promise. Never
   * throws nor rejects: a failure is logged and answered as the gateway's 500.
   */
  handleRequest(request: GatewayRequest): MaybePromise<HttpResponse> {
    if (request.method === 'OPTIONS') return decorate(preflight(request), header(request, 'origin'))
    const draft = this.newDraft()
    let answer: MaybePromise<HttpResponse>
    try {
      answer = this.#answer(request, draft)
    } catch (err) {
      answer = this.#failure(err)
    }
    if (isThenable(answer)) {
      return answer.then(
        (response) => this.#answered(request, draft, response),
        (err: unknown) => this.#answered(request, draft, this.#failure(err)),
      )
    }
    return this.#answered(request, draft, answer)
  }

  #failure(err: unknown): HttpResponse {
    this.#deps.logger.error('gateway failure', err)
    return gatewayFailure()
  }

  /** The request log's entry of an answered request (the one place an HTTP request is recorded), and its CORS headers. */
  #answered(request: GatewayRequest, draft: Draft, response: HttpResponse): HttpResponse {
    draft.status = response.destroy === true ? null : response.status
    // The key is a slice of the path, which it may keep alive: the log counts the path's length.
    this.#deps.log.record(draft, request.path.length)
    return response.destroy === true ? response : decorate(response, header(request, 'origin'))
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
