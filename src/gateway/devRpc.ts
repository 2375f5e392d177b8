/**
 * The test endpoint's core (`POST /_double/rpc/<network>`, transport-free): a network's JSON-RPC
 * with every method of the gateway plus the test methods of Anvil and Hardhat
 * (src/rpc/devRegistry.ts), for test suites that drive their node (viem's test client, Hardhat's
 * helpers, `cast rpc`). It is the same chain the gateway serves, so `/v3/` sees every change; but
 * none of the hosted service's rules apply: no key, no credits, no allowlists, no faults, no
 * methods left out by a network's `excludeMethods` (the gateway's `/v3/` still leaves them out),
 * and nothing in the request log. Answers are 200 with the JSON-RPC result or error (as Anvil's are);
 * batches are answered in order, up to the gateway's batch limit.
 *
 * Per network it keeps the numbered snapshots of `evm_snapshot` (chain snapshots, not the
 * gateway's: credits, keys and the request log are not part of them) and interval mining.
 */
import type { Chain, ChainSnapshot } from '../chain/chain.ts'
import { toHttpResponse } from './response.ts'
import { DEV_METHODS } from '../rpc/devRegistry.ts'
import { errorResponse, execute, isThenable } from '../rpc/dispatch.ts'
import type { MaybePromise, ParsedMessage } from '../rpc/dispatch.ts'
import type { DevContext, RpcContext } from '../rpc/method.ts'
import type { JsonRpcResponse } from '../rpc/types.ts'
import { LimitExceededError } from '../rpc/errors.ts'
import { ControlNotFoundError } from './controlError.ts'
import { formatBytes, formatCount } from './controlLimits.ts'
import type { ControlLimits } from './controlLimits.ts'
import { callBackend } from './backend.ts'
import type { Logger, RpcBackend } from './backend.ts'
import { planBody } from './plan.ts'
import type { FilterScopes } from './filterScopes.ts'
import type { IntervalMining } from './intervalMining.ts'
import type { Network } from './request.ts'
import { jsonRpcResponse } from './response.ts'
import type { HttpResponse } from './response.ts'

export const devRpcBackend: RpcBackend = {
  isSupportedMethod: (method) => Object.hasOwn(DEV_METHODS, method),
  execute: (ctx, request) => execute(ctx, request, DEV_METHODS),
}

interface Snapshots {
  next: bigint
  readonly taken: Map<bigint, ChainSnapshot>
  /** `approximateBytes` of those taken. */
  bytes: number
}

export interface DevRpcDeps {
  readonly networks: ReadonlyMap<string, Network>
  readonly intervals: IntervalMining
  readonly logger: Logger
  readonly batchLimit: number
  /** The gateway's filter tables: the test endpoint's filters are those of the key below. */
  readonly filterScopes: FilterScopes
  /** The gateway's time limits of executions (`RpcContext.execution`). */
  readonly execution: RpcContext['execution']
  /** How many `evm_snapshot`s, and how many bytes of them, a network keeps (./controlLimits.ts). */
  readonly limits: Pick<ControlLimits, 'evmSnapshots' | 'evmSnapshotBytes'>
}

/**
 * The key the test endpoint's filters are kept under (it has no key of its own; no API key can be
 * this, since a key is one path segment of hex or word characters).
 */
export const DEV_RPC_FILTER_KEY = '(test endpoint)'

/** Answers one request body for network `name`; an unknown network is a `ControlNotFoundError`. */
export type DevRpc = (name: string, body: Buffer | string) => Promise<HttpResponse>

export function createDevRpc(deps: DevRpcDeps): DevRpc {
  const snapshots = new WeakMap<Chain, Snapshots>()
  const snapshotsOf = (chain: Chain): Snapshots => {
    let s = snapshots.get(chain)
    if (!s) snapshots.set(chain, (s = { next: 0n, taken: new Map(), bytes: 0 }))
    return s
  }

  function devContext(network: Network): DevContext {
    const { chain } = network
    return {
      snapshot() {
        const s = snapshotsOf(chain)
        const { evmSnapshots, evmSnapshotBytes } = deps.limits
        const tooMany = () =>
          new LimitExceededError(
            `too many snapshots: ${formatCount(s.taken.size)} kept on network ${network.name}, about ${formatBytes(s.bytes)} (the bounds: ${formatCount(evmSnapshots)} and ${formatBytes(evmSnapshotBytes)}); evm_revert frees a snapshot and every later one, anvil_reset all`,
          )
        if (s.taken.size >= evmSnapshots) throw tooMany()
        const snap = chain.snapshot()
        if (s.bytes + snap.approximateBytes > evmSnapshotBytes) throw tooMany()
        const id = s.next++
        s.taken.set(id, snap)
        s.bytes += snap.approximateBytes
        return `0x${id.toString(16)}`
      },
      async revert(id) {
        const s = snapshotsOf(chain)
        const snap = s.taken.get(id)
        if (!snap) return false
        await chain.restore(snap)
        for (const [later, taken] of [...s.taken]) {
          if (later < id) continue
          s.taken.delete(later)
          s.bytes -= taken.approximateBytes
        }
        return true
      },
      setIntervalMining: (seconds) => deps.intervals.set(network, seconds),
      intervalMining: () => deps.intervals.get(network.name),
      async reset(next) {
        deps.intervals.stop(network.name)
        snapshots.delete(chain)
        await (next === undefined ? chain.reset() : chain.adopt(next))
      },
    }
  }

  return async (name, body) => answer(name, body)

  function answer(name: string, body: Buffer | string): MaybePromise<HttpResponse> {
    const network = deps.networks.get(name)
    if (!network) throw new ControlNotFoundError('network', name)
    const ctx: RpcContext = {
      chain: network.chain,
      dev: devContext(network),
      ...(deps.execution === undefined ? {} : { execution: deps.execution }),
      get filters() {
        return deps.filterScopes.tableOf(DEV_RPC_FILTER_KEY, network)
      },
      onInternalError: (err, req) => deps.logger.error(`internal error in ${req.method}`, err),
      // Nothing here is logged; a call's lines are printed (a mined transaction's were with its block).
      console: (lines, source) => {
        if (source === 'call' && deps.logger.console !== undefined) for (const line of lines) deps.logger.console(line)
      },
    }
    // Every method, whatever the network's excludeMethods: those are the hosted service's rules,
    // which this endpoint does not play (a test suite drives its node with all of them). Nothing
    // is charged, so nothing is priced.
    const plan = planBody(body, deps.batchLimit)
    switch (plan.kind) {
      case 'answer':
        return answered(plan.payload)
      case 'refused':
        return toHttpResponse(plan.refusal)
      case 'single': {
        const { request, notification } = plan.message
        const response = callBackend(devRpcBackend, ctx, request, deps.logger)
        if (isThenable(response)) return response.then((r) => answered(notification ? undefined : r))
        return answered(notification ? undefined : response)
      }
      case 'batch':
        return runInOrder(ctx, plan.messages)
    }
  }

  /** A batch's calls one after the other (test methods change the chain the next call reads), answered in order. */
  async function runInOrder(ctx: RpcContext, messages: readonly ParsedMessage[]): Promise<HttpResponse> {
    const responses: JsonRpcResponse[] = []
    for (const m of messages) {
      const response = m.ok ? await callBackend(devRpcBackend, ctx, m.request, deps.logger) : errorResponse(m.id, m.error)
      if (!(m.ok && m.notification)) responses.push(response)
    }
    return answered(responses.length > 0 ? responses : undefined)
  }
}

/** The endpoint's answers are all 200, as Anvil's are. */
function answered(payload: JsonRpcResponse | JsonRpcResponse[] | undefined): HttpResponse {
  const response = jsonRpcResponse(payload)
  response.status = 200
  return response
}
