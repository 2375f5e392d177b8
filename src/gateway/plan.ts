/**
 * A request body read into a plan and its total cost, before anything runs: a parse error, an
 * invalid single request or a bad batch is answered at once; a single call or a batch runs once
 * the rules and credits allow. Pure and synchronous, so the charge that follows it is too.
 */
import { errorResponse, parseMessage } from '../rpc/dispatch.ts'
import type { ParsedMessage } from '../rpc/dispatch.ts'
import { InvalidRequestError, ParseError } from '../rpc/errors.ts'
import { needsRawId, rawBatchIds, rawIdOf } from '../rpc/rawIds.ts'
import type { JsonRpcId, JsonRpcResponse } from '../rpc/types.ts'
import type { RpcBackend } from './backend.ts'
import type { Network } from './request.ts'
import { loggedCall } from './requestLog.ts'
import type { CallDraft } from './requestLog.ts'
import type { MessageCalls } from './sockets/frames.ts'
import type { GatewayError } from './errors.ts'
import { INFURA_PRICING } from './prices.ts'
import type { Pricing } from './profiles/pricing.ts'

/** geth's default `BatchRequestLimit`. */
export const DEFAULT_BATCH_LIMIT = 1000

export type Plan =
  /** Answered without executing anything (parse error, invalid single request, bad batch). */
  | { kind: 'answer'; payload: JsonRpcResponse | JsonRpcResponse[]; cost: number; id: JsonRpcId }
  | { kind: 'single'; message: ParsedMessage & { ok: true }; cost: number; id: JsonRpcId }
  /** `costs`: each message's price, in order (`cost` is their sum and the envelope's). */
  | { kind: 'batch'; messages: ParsedMessage[]; costs: number[]; cost: number; id: null }
  /** A batch over a profile's limit, refused as the provider refuses it (nothing runs). */
  | { kind: 'refused'; refusal: GatewayError; calls: MessageCalls; cost: number; id: null }

/** Whether the network a request is for serves a method (the RPC layer has it and the network does not leave it out). */
export type Serves = (method: string) => boolean

/** What the network of `network` serves: what `rpc` serves but what the network leaves out. */
export function servedOn(rpc: RpcBackend, network: Network | undefined): Serves {
  const excluded = network?.excludedMethods
  return excluded ? (method) => rpc.isSupportedMethod(method) && !excluded.has(method) : (method) => rpc.isSupportedMethod(method)
}

export function messageCost(message: ParsedMessage, serves: Serves, pricing: Pricing = INFURA_PRICING): number {
  if (!message.ok) return pricing.badRequest
  return serves(message.request.method) ? pricing.method(message.request.method) : pricing.unknownMethod
}

/**
 * Reads the body into a plan and its total cost, each message priced once here (by `pricing`,
 * the service's by default). Without `serves` nothing is priced (the test endpoint charges
 * nothing): every cost is 0. A batch over `batchLimit` is geth's `batch too large`, or
 * `refuseBatch`'s refusal when a profile has one. Pure and synchronous.
 */
export function planBody(body: Buffer | string, batchLimit: number, serves?: Serves, pricing: Pricing = INFURA_PRICING, refuseBatch?: (limit: number) => GatewayError): Plan {
  const text = typeof body === 'string' ? body : body.toString()
  const badRequest = serves === undefined ? 0 : pricing.badRequest
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { kind: 'answer', payload: errorResponse(null, new ParseError()), cost: badRequest, id: null }
  }
  if (!Array.isArray(json)) {
    const message = parseMessage(json, needsRawId((json as { id?: unknown } | null)?.id, text) ? rawIdOf(text) : undefined)
    if (!message.ok) {
      return { kind: 'answer', payload: errorResponse(message.id, message.error), cost: badRequest, id: message.id }
    }
    return { kind: 'single', message, cost: serves === undefined ? 0 : messageCost(message, serves, pricing), id: message.request.id }
  }
  if (json.length === 0) {
    return { kind: 'answer', payload: errorResponse(null, new InvalidRequestError('empty batch')), cost: badRequest, id: null }
  }
  const rawIds = json.some((m: { id?: unknown } | null) => needsRawId(m?.id, text)) ? rawBatchIds(text) : []
  const messages = json.map((m, i) => parseMessage(m, rawIds[i]))
  if (json.length > batchLimit && refuseBatch !== undefined) {
    const ids = messages.map((m) => (m.ok ? (m.notification ? undefined : m.request.id) : m.id))
    return { kind: 'refused', refusal: refuseBatch(batchLimit), calls: { batch: true, ids }, cost: 0, id: null }
  }
  if (json.length > batchLimit) {
    // geth: one error in an array, with the id of the first call.
    const first = messages.find((m) => m.ok && !m.notification)
    const id = first?.ok ? first.request.id : null
    return { kind: 'answer', payload: [errorResponse(id, new InvalidRequestError('batch too large'))], cost: badRequest, id: null }
  }
  const costs = serves === undefined ? messages.map(() => 0) : messages.map((m) => messageCost(m, serves, pricing))
  const cost = serves === undefined ? 0 : costs.reduce((sum, c) => sum + c, pricing.batchEnvelope)
  return { kind: 'batch', messages, costs, cost, id: null }
}

/** The calls of a plan as the log keeps them, each at the price the plan gave it. */
export function loggedCalls(plan: Plan): CallDraft[] {
  switch (plan.kind) {
    case 'answer':
    case 'refused':
      return []
    case 'single':
      return [loggedCall(plan.message.request.method, plan.message.request.params, plan.cost)]
    case 'batch':
      return plan.messages.map((m, i) => (m.ok ? loggedCall(m.request.method, m.request.params, plan.costs[i]!) : { method: null, credits: plan.costs[i]!, outcome: null }))
  }
}

/** The ids a socket answers a refused or faulted message with. */
export function messageCalls(plan: Plan): MessageCalls {
  switch (plan.kind) {
    case 'answer':
      return { batch: false, ids: [plan.id] }
    case 'refused':
      return plan.calls
    case 'single':
      return { batch: false, ids: [plan.message.notification ? undefined : plan.message.request.id] }
    case 'batch':
      return { batch: true, ids: plan.messages.map((m) => (m.ok ? (m.notification ? undefined : m.request.id) : m.id)) }
  }
}

/** The methods a fault is matched against: those of the plan's valid calls. */
export function methodsOf(plan: Plan): string[] {
  switch (plan.kind) {
    case 'answer':
    case 'refused':
      return []
    case 'single':
      return [plan.message.request.method]
    case 'batch':
      return plan.messages.flatMap((m) => (m.ok ? [m.request.method] : []))
  }
}
