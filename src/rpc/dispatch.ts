/**
 * From one JSON-RPC message to one response, with geth's envelope rules. Transport-free and
 * rule-free: the gateway decides whether a call may run (keys, credits) before calling `execute`.
 */
import { ForkReadError } from '../chain/vm/forkState.ts'
import { MissingStateError } from '../chain/vm/trieDatabase.ts'
import { InternalError, InvalidRequestError, MethodNotFoundError, RpcError, ServerError } from './errors.ts'
import { historyAnswer } from './forkHistory.ts'
import type { RpcErrorObject } from './errors.ts'
import type { RpcContext } from './method.ts'
import { parseParams } from './params.ts'
import { RawId } from './rawIds.ts'
import { METHODS } from './registry.ts'
import type { RpcMethod } from './method.ts'
import type { JsonRpcId, JsonRpcRequest, JsonRpcResponse } from './types.ts'

export type ParsedMessage =
  | { ok: true; request: JsonRpcRequest; notification: boolean }
  | { ok: false; id: JsonRpcId; error: RpcError }

/**
 * The id to echo: a string, number or null as parsed, or its raw text when the client wrote it
 * otherwise than `JSON.stringify` writes it back (`rawId`, see ./rawIds.ts), which also makes a
 * number past a double's range (`1e400`) an id, as it is to geth. Undefined: not a valid id.
 */
function validId(id: unknown, rawId: string | undefined): JsonRpcId | undefined {
  if (id === null) return null
  if (typeof id === 'number') {
    if (rawId !== undefined && rawId !== String(id)) return new RawId(rawId)
    return Number.isFinite(id) ? id : undefined
  }
  if (typeof id === 'string') return rawId !== undefined && rawId !== JSON.stringify(id) ? new RawId(rawId) : id
  return undefined
}

/**
 * Validates a request object as geth does: `jsonrpc` must be "2.0", `method` a string, `params`
 * absent or an array, `id` a string, number or null (absent: a notification). The id of an invalid
 * request is echoed when it is itself valid. `rawId` is the id's text in the body, when known.
 */
export function parseMessage(message: unknown, rawId?: string): ParsedMessage {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return { ok: false, id: null, error: new InvalidRequestError() }
  }
  const m = message as Record<string, unknown>
  const parsedId = validId(m.id, rawId)
  const id = parsedId ?? null
  if (m.jsonrpc !== '2.0' || typeof m.method !== 'string' || (m.id !== undefined && parsedId === undefined)) {
    return { ok: false, id, error: new InvalidRequestError() }
  }
  if (m.params !== undefined && m.params !== null && !Array.isArray(m.params)) {
    return { ok: false, id, error: new RpcError(-32602, 'non-array args') }
  }
  const params = Array.isArray(m.params) ? m.params : []
  return {
    ok: true,
    request: { jsonrpc: '2.0', id, method: m.method, params },
    notification: !('id' in m),
  }
}

export function isSupportedMethod(name: string): boolean {
  return Object.hasOwn(METHODS, name)
}

/**
 * The one serializer: anything thrown becomes a wire error object; a forked network's failed
 * upstream read says what it could not read (-32000), a pruned state is geth's missing trie node
 * (-32000); unknown errors become -32603, no stack.
 */
export function toErrorObject(err: unknown): RpcErrorObject {
  if (err instanceof RpcError) return err.toErrorObject()
  if (err instanceof ForkReadError) return err.rpc ?? new ServerError(err.message).toErrorObject()
  if (err instanceof MissingStateError) return new ServerError(err.message).toErrorObject()
  return new InternalError().toErrorObject()
}

export function errorResponse(id: JsonRpcId, err: unknown): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: toErrorObject(err) }
}

/** Whether a value is a promise (or any thenable) to wait for, rather than the value itself. */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}

/**
 * The answer of a request that is still to come, or already here. `execute` is synchronous until
 * a method returns a promise, so a caller waits (a microtask turn at least) only for those.
 */
export type MaybePromise<T> = T | Promise<T>

/**
 * Runs a validated request against a network's chain, with the methods of `table` (default the
 * gateway's, ./registry.ts): the response at once when the method answers synchronously, else a
 * promise of it. Never throws, never rejects.
 */
export function execute(ctx: RpcContext, request: JsonRpcRequest, table: Readonly<Record<string, RpcMethod>> = METHODS): MaybePromise<JsonRpcResponse> {
  const method = Object.hasOwn(table, request.method) ? table[request.method] : undefined
  if (!method) return errorResponse(request.id, new MethodNotFoundError(request.method))
  // A forked network's history is its upstream's (./forkHistory.ts); other networks never look.
  const upstream = ctx.chain.upstream
  if (upstream !== undefined) {
    const local = (params: unknown[]) => Promise.resolve(method.run(parseParams(params, method.params), ctx))
    const history = historyAnswer(ctx.chain, upstream, request, local)
    if (history !== undefined) {
      return history.then(
        (answer) => (answer === undefined ? runMethod(ctx, request, method) : { jsonrpc: '2.0', id: request.id, result: answer.result }),
        (err: unknown) => failed(ctx, request, err),
      )
    }
  }
  return runMethod(ctx, request, method)
}

function runMethod(ctx: RpcContext, request: JsonRpcRequest, method: RpcMethod): MaybePromise<JsonRpcResponse> {
  let result: unknown
  try {
    result = method.run(parseParams(request.params, method.params), ctx)
  } catch (err) {
    return failed(ctx, request, err)
  }
  if (!isThenable(result)) return { jsonrpc: '2.0', id: request.id, result }
  return Promise.resolve(result).then(
    (value): JsonRpcResponse => ({ jsonrpc: '2.0', id: request.id, result: value }),
    (err: unknown) => failed(ctx, request, err),
  )
}

function failed(ctx: RpcContext, request: JsonRpcRequest, err: unknown): JsonRpcResponse {
  if (!(err instanceof RpcError) && !(err instanceof ForkReadError) && !(err instanceof MissingStateError)) ctx.onInternalError?.(err, request)
  return errorResponse(request.id, err)
}
