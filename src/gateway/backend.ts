/**
 * What the gateway is given to work with besides its configuration: the JSON-RPC layer it
 * dispatches calls to (src/rpc/dispatch.ts unless a test injects one) and where it tells failures.
 */
import { errorResponse, execute as rpcExecute, isSupportedMethod as rpcIsSupported, isThenable } from '../rpc/dispatch.ts'
import type { MaybePromise } from '../rpc/dispatch.ts'
import { InternalError } from '../rpc/errors.ts'
import { PROVIDER_METHODS } from '../rpc/providerRegistry.ts'
import { METHODS } from '../rpc/registry.ts'
import type { Chain } from '../chain/chain.ts'
import type { FilterTable } from '../chain/filters/filterTable.ts'
import type { RpcContext } from '../rpc/method.ts'
import type { SubscriptionHost } from '../rpc/subscriptions.ts'
import type { JsonRpcRequest, JsonRpcResponse } from '../rpc/types.ts'
import type { FilterScopes } from './filterScopes.ts'
import type { Network } from './request.ts'
import type { CallDraft as LoggedCallDraft } from './requestLog.ts'

export interface Logger {
  error(message: string, err?: unknown): void
  info?(message: string): void
  /**
   * A line a contract logged with `console.log` (a call's, or a mined transaction's), printed as
   * Anvil prints it; absent: not printed (the request log keeps them either way).
   */
  console?(line: string): void
}

export const silentLogger: Logger = { error() {} }

/**
 * The JSON-RPC layer the gateway dispatches to (src/rpc/dispatch.ts unless a test injects one).
 * `execute` answers at once or with a promise; the gateway waits only for a promise.
 */
export interface RpcBackend {
  isSupportedMethod(method: string): boolean
  execute(ctx: RpcContext, request: JsonRpcRequest): MaybePromise<JsonRpcResponse>
}

export const defaultRpcBackend: RpcBackend = { isSupportedMethod: rpcIsSupported, execute: rpcExecute }

/** The default layer plus the provider methods named (a profile's `extraMethods`, src/rpc/providerRegistry.ts). */
export function rpcBackendWith(extra: readonly string[]): RpcBackend {
  if (extra.length === 0) return defaultRpcBackend
  const table = { ...METHODS, ...Object.fromEntries(extra.map((m) => [m, PROVIDER_METHODS[m]!])) }
  return { isSupportedMethod: (method) => Object.hasOwn(table, method), execute: (ctx, request) => rpcExecute(ctx, request, table) }
}

/**
 * One call on the backend, never failing: a throw or a rejection of `execute` (a bug: the RPC layer
 * turns every error of a method into its response) is logged and answered -32603. Synchronous
 * when `execute` is.
 */
export function callBackend(rpc: RpcBackend, ctx: RpcContext, request: JsonRpcRequest, logger: Logger): MaybePromise<JsonRpcResponse> {
  let answer: MaybePromise<JsonRpcResponse>
  try {
    answer = rpc.execute(ctx, request)
  } catch (err) {
    return internalFailure(logger, request, err)
  }
  return isThenable(answer) ? Promise.resolve(answer).then(undefined, (err: unknown) => internalFailure(logger, request, err)) : answer
}

function internalFailure(logger: Logger, request: JsonRpcRequest, err: unknown): JsonRpcResponse {
  logger.error(`internal error in ${request.method}`, err)
  return errorResponse(request.id, new InternalError())
}

/** A call's context on the gateway's path: its key's filters on the network, made on first use. */
export class CallContext implements RpcContext {
  readonly chain: Chain
  readonly execution: RpcContext['execution']
  /** The profile's eth_getLogs result limit (set by the pipeline when it has one). */
  logResults: RpcContext['logResults'] = undefined
  readonly subscriptions: SubscriptionHost | undefined
  readonly onInternalError: RpcContext['onInternalError']
  readonly #scopes: FilterScopes
  readonly #call: LoggedCallDraft | undefined
  readonly #logger: Logger
  readonly #key: string
  readonly #network: Network

  constructor(
    network: Network,
    execution: RpcContext['execution'],
    scopes: FilterScopes,
    key: string,
    subscriptions: SubscriptionHost | undefined,
    onInternalError: RpcContext['onInternalError'],
    call: LoggedCallDraft | undefined,
    logger: Logger,
  ) {
    this.chain = network.chain
    this.execution = execution
    this.subscriptions = subscriptions
    this.onInternalError = onInternalError
    this.#scopes = scopes
    this.#key = key
    this.#network = network
    this.#call = call
    this.#logger = logger
  }

  /** A call's lines are printed now; a mined transaction's were when its block was (see `printMinedConsole`). */
  console(lines: readonly string[], source: 'call' | 'transaction'): void {
    if (this.#call !== undefined) this.#call.console = lines
    if (source === 'call' && this.#logger.console !== undefined) for (const line of lines) this.#logger.console(line)
  }

  get filters(): FilterTable {
    return this.#scopes.tableOf(this.#key, this.#network)
  }
}
