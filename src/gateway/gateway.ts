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
 * 6. `execute` per call (batch calls concurrently), answers in request order.
 */
import type { Chain } from '../chain/chain.ts'
import { execute as rpcExecute, isSupportedMethod as rpcIsSupported, errorResponse, parseMessage } from '../rpc/dispatch.ts'
import type { ParsedMessage } from '../rpc/dispatch.ts'
import { InternalError, InvalidRequestError, ParseError } from '../rpc/errors.ts'
import type { RpcContext } from '../rpc/method.ts'
import type { JsonRpcId, JsonRpcRequest, JsonRpcResponse } from '../rpc/types.ts'
import { DEFAULT_SERVICE_HOST, parseKeys, parseNetworkName, parseServiceHost } from './config.ts'
import type { KeyConfigInput, KeySettings } from './config.ts'
import { BAD_REQUEST_COST, BATCH_ENVELOPE_COST, CreditLedger, UNKNOWN_METHOD_COST, methodCost, systemClock } from './credits.ts'
import type { Clock } from './credits.ts'
import { GatewayError } from './errors.ts'
import { header } from './request.ts'
import type { CallRule, GatewayRequest, Network, RequestRule, RequestState } from './request.ts'
import { jsonRpcResponse, toHttpResponse } from './response.ts'
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
  /** Default: the system clock. Inject one to cross 00:00 UTC in a test. */
  readonly clock?: Clock
  readonly logger?: Logger
  readonly rpc?: RpcBackend
  readonly batchLimit?: number
}

export interface Gateway {
  readonly serviceHost: string
  readonly networks: ReadonlyMap<string, Network>
  readonly keys: readonly KeySettings[]
  readonly ledger: CreditLedger
  handle(request: GatewayRequest): Promise<HttpResponse>
  /** Credits left today for a key (undefined for an unknown key). */
  balance(key: string): number | undefined
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
    const message = parseMessage(json)
    if (!message.ok) {
      return { kind: 'answer', payload: errorResponse(message.id, message.error), cost: BAD_REQUEST_COST, id: message.id }
    }
    return { kind: 'single', message, cost: messageCost(message, rpc), id: message.request.id }
  }
  if (json.length === 0) {
    return { kind: 'answer', payload: errorResponse(null, new InvalidRequestError('empty batch')), cost: BAD_REQUEST_COST, id: null }
  }
  if (json.length > batchLimit) {
    // geth: one error in an array, with the id of the first call.
    const first = json.map(parseMessage).find((m) => m.ok && !m.notification)
    const id = first?.ok ? first.request.id : null
    return { kind: 'answer', payload: [errorResponse(id, new InvalidRequestError('batch too large'))], cost: BAD_REQUEST_COST, id: null }
  }
  const messages = json.map(parseMessage)
  const cost = messages.reduce((sum, m) => sum + messageCost(m, rpc), BATCH_ENVELOPE_COST)
  return { kind: 'batch', messages, cost, id: null }
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

/** Headers every answer carries: `vary: Origin`, and the request's origin allowed back (CORS). */
function decorate(response: HttpResponse, origin: string | undefined): HttpResponse {
  const headers: Record<string, string> = { ...response.headers, vary: 'Origin' }
  if (origin !== undefined) headers['access-control-allow-origin'] = origin
  else if (response.status === 204) headers['access-control-allow-origin'] = '*'
  return { ...response, headers }
}

export function createGateway(options: GatewayOptions): Gateway {
  const serviceHost = parseServiceHost(options.serviceHost ?? DEFAULT_SERVICE_HOST)
  const networks = new Map<string, Network>()
  for (const [name, chain] of Object.entries(options.networks)) {
    parseNetworkName(name, `networks.${name}`)
    networks.set(name, { name, host: networkHost(name, serviceHost), chain })
  }
  const keys = parseKeys(options.keys, networks.keys())
  const keysByName = new Map(keys.map((k) => [k.key, k]))
  const clock = options.clock ?? systemClock
  const logger = options.logger ?? silentLogger
  const rpc = options.rpc ?? defaultRpcBackend
  const batchLimit = options.batchLimit ?? DEFAULT_BATCH_LIMIT
  if (!Number.isSafeInteger(batchLimit) || batchLimit < 1) throw new TypeError(`batchLimit must be a positive integer, got ${batchLimit}`)
  const ledger = new CreditLedger(clock)

  const requestRules: readonly RequestRule[] = [
    createRouteRule(),
    createHostRule({ serviceHost, networks }),
    createApiKeyRule({ keys }),
    createSecretRule(),
    createNetworkAccessRule(),
    createOriginAllowlistRule(),
    createUserAgentAllowlistRule(),
  ]
  const callRules: readonly CallRule[] = [createMethodAllowlistRule(), createContractAddressAllowlistRule()]

  async function run(state: RequestState, request: JsonRpcRequest): Promise<JsonRpcResponse> {
    const ctx: RpcContext = {
      chain: state.network!.chain,
      onInternalError: (err, req) => logger.error(`internal error in ${req.method}`, err),
    }
    try {
      return await rpc.execute(ctx, request)
    } catch (err) {
      logger.error(`internal error in ${request.method}`, err)
      return errorResponse(request.id, new InternalError())
    }
  }

  /** Everything up to and including the charge is synchronous: no `await` before `ledger.charge`. */
  async function answer(request: GatewayRequest): Promise<HttpResponse> {
    if (request.method === 'OPTIONS') return preflight(request)
    const state: RequestState = { request, secretVerified: false }
    let plan: Plan
    try {
      for (const rule of requestRules) rule(state)
      plan = planBody(request.body, rpc, batchLimit)
      const calls =
        plan.kind === 'single' ? [plan.message] : plan.kind === 'batch' ? plan.messages : []
      for (const call of calls) {
        if (call.ok) for (const rule of callRules) rule(state, call.request)
      }
    } catch (err) {
      if (err instanceof GatewayError) return toHttpResponse(err)
      throw err
    }
    try {
      ledger.charge(state.key!, plan.cost)
    } catch (err) {
      if (err instanceof GatewayError) return toHttpResponse(err, plan.id)
      throw err
    }
    switch (plan.kind) {
      case 'answer':
        return jsonRpcResponse(plan.payload)
      case 'single': {
        const response = await run(state, plan.message.request)
        return jsonRpcResponse(plan.message.notification ? undefined : response)
      }
      case 'batch': {
        const responses = await Promise.all(
          plan.messages.map(async (m) => {
            if (!m.ok) return errorResponse(m.id, m.error)
            const response = await run(state, m.request)
            return m.notification ? undefined : response
          }),
        )
        const answered = responses.filter((r): r is JsonRpcResponse => r !== undefined)
        return jsonRpcResponse(answered.length > 0 ? answered : undefined)
      }
    }
  }

  return {
    serviceHost,
    networks,
    keys,
    ledger,
    async handle(request) {
      const origin = header(request, 'origin')
      try {
        return decorate(await answer(request), origin)
      } catch (err) {
        logger.error('gateway failure', err)
        return decorate({ ...jsonRpcResponse(errorResponse(null, new InternalError())), status: 500 }, origin)
      }
    },
    balance(key) {
      const settings = keysByName.get(key)
      return settings === undefined ? undefined : ledger.balance(settings)
    },
  }
}
