/**
 * What a JSON-RPC method is (`defineMethod`: wire name, params by position, handler) and what its
 * handler receives (`RpcContext`: the network's chain, the caller's filters and subscriptions,
 * the execution limits, the test endpoint's `dev`). Each method lives in ./methods/, one per file.
 */
import type { LogResultLimit } from './logQuery.ts'
import type { Chain } from '../chain/chain.ts'
import type { FilterTable } from '../chain/filters/filterTable.ts'
import { ExecutionBudget } from '../chain/vm/executionGuard.ts'
import type { Param, ParsedParams } from './params.ts'
import type { SubscriptionHost } from './subscriptions.ts'
import type { JsonRpcRequest } from './types.ts'

/**
 * What the test methods (`evm_snapshot`, interval mining) need beyond the chain: numbered
 * snapshots and a timer, kept per network by whoever serves them (the gateway's test endpoint,
 * src/gateway/devRpc.ts). Absent on the gateway's own path, where those methods do not exist.
 */
export interface DevContext {
  /** Takes a snapshot of the chain (`Chain.snapshot`) and returns its id (Anvil's: 0x0, 0x1, ...). */
  snapshot(): string
  /** Restores the snapshot and forgets it and every later one; false for an unknown id. */
  revert(id: bigint): Promise<boolean>
  /** Mines a block every `seconds` (the chain waits for them: manual mode); 0 stops. */
  setIntervalMining(seconds: number): void
  /** The interval mining period in seconds, or null when off. */
  intervalMining(): number | null
  /**
   * Back to the chain as loaded (`Chain.reset`), or on to `next`, the network forked again
   * (`Chain.adopt`): no interval mining, numbered snapshots forgotten.
   */
  reset(next?: Chain): Promise<void>
}

/**
 * What a method handler may use: the network's chain, the caller's filters on it, and on the test
 * endpoint `dev`.
 */
export interface RpcContext {
  readonly chain: Chain
  /**
   * The filters of the caller's key on this network (the gateway keeps one table per key and
   * network, made on first use). Absent where no key is known: the filter methods then answer
   * `filter not found`, and install nothing.
   */
  readonly filters?: FilterTable | undefined
  /** The connection's subscriptions (a WebSocket session); absent over HTTP, where eth_subscribe is refused. */
  readonly subscriptions?: SubscriptionHost | undefined
  /**
   * The time limit of eth_call and eth_estimateGas executions (ms, 0: none; default 5,000 as geth's
   * `--rpc.evmtimeout`) and how long one runs before letting other requests in (ms, 0: never;
   * default 10). See chain/vm/executionGuard.ts.
   */
  readonly execution?: { readonly timeoutMs: number; readonly sliceMs: number } | undefined
  /** eth_getLogs' result limit and its error (a provider profile's); absent: the service's (./logQuery.ts). */
  readonly logResults?: LogResultLimit | undefined
  readonly dev?: DevContext | undefined
  /**
   * Told of the lines contracts logged with `console.log` while this request ran: a call's, or a
   * sent transaction's when it was mined before the answer (see ./consoleReport.ts).
   */
  readonly console?: ((lines: readonly string[], source: 'call' | 'transaction') => void) | undefined
  /** Told of errors that are not RpcErrors (bugs), which the wire only sees as -32603. */
  readonly onInternalError?: ((err: unknown, request: JsonRpcRequest) => void) | undefined
}

export interface RpcMethod<P extends readonly Param<unknown>[] = readonly Param<unknown>[]> {
  readonly name: string
  readonly params: P
  run(params: ParsedParams<P>, ctx: RpcContext): unknown | Promise<unknown>
}

/** Declares a JSON-RPC method: its wire name, its params by position, its handler. */
export function defineMethod<const P extends readonly Param<unknown>[]>(method: RpcMethod<P>): RpcMethod<P> {
  return method
}

/** A request's execution budget, from the context's settings (geth's defaults when it has none). */
export function executionBudget(execution: RpcContext['execution']): ExecutionBudget {
  return execution === undefined ? new ExecutionBudget() : new ExecutionBudget(execution.timeoutMs, execution.sliceMs)
}
