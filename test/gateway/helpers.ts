/**
 * Test doubles for the gateway's dependencies, injected (never module-mocked): chains that only
 * have a name, a chain id and a head number, an RPC backend answering a few methods from them,
 * a settable clock.
 */
import type { Chain } from '../../src/chain/chain.ts'
import { errorResponse } from '../../src/rpc/dispatch.ts'
import { InvalidParamsError, MethodNotFoundError } from '../../src/rpc/errors.ts'
import type { RpcBackend } from '../../src/gateway/gateway.ts'
import type { GatewayOptions } from '../../src/gateway/gateway.ts'
import type { KeyConfigInput } from '../../src/gateway/config.ts'
import type { GatewayApp } from '../../src/http/app.ts'
import request from 'supertest'

export function fakeChain(name: string, chainId: bigint, head: bigint): Chain {
  return { name, chainId, head: { number: head } } as unknown as Chain
}

export const CHAINS = {
  ethereum: fakeChain('ethereum', 1n, 21n),
  polygon: fakeChain('polygon', 137n, 7n),
  base: fakeChain('base', 8453n, 3n),
}

const hex = (n: bigint) => `0x${n.toString(16)}`

/** Answers from the fake chain; `executed` counts calls that reached execution. */
export function fakeRpc(): RpcBackend & { executed: string[] } {
  const results: Record<string, (chain: Chain, params: unknown[]) => unknown> = {
    eth_chainId: (c) => hex(c.chainId),
    net_version: (c) => c.chainId.toString(),
    eth_blockNumber: (c) => hex(c.head.number),
    eth_getStorageAt: () => `0x${'0'.repeat(63)}1`,
    eth_getTransactionByBlockNumberAndIndex: () => null,
    eth_getBlockReceipts: () => [],
    eth_estimateGas: () => '0x5208',
    eth_call: () => '0x',
  }
  const executed: string[] = []
  return {
    executed,
    isSupportedMethod: (m) => Object.hasOwn(results, m),
    async execute(ctx, request) {
      executed.push(request.method)
      await new Promise((r) => setImmediate(r))
      const run = Object.hasOwn(results, request.method) ? results[request.method] : undefined
      if (!run) return errorResponse(request.id, new MethodNotFoundError(request.method))
      if (request.params.length > 3) return errorResponse(request.id, new InvalidParamsError('too many arguments, want at most 3'))
      return { jsonrpc: '2.0', id: request.id, result: run(ctx.chain, request.params) }
    },
  }
}

/** A clock the test moves by hand. */
export function manualClock(iso: string): { now(): number; set(iso: string): void } {
  let t = Date.parse(iso)
  return { now: () => t, set: (next) => { t = Date.parse(next) } }
}

export const DEV_KEY = '0123456789abcdef0123456789abcdef'

export function keys(overrides: Partial<KeyConfigInput> = {}, extra: KeyConfigInput[] = []): KeyConfigInput[] {
  return [{ key: DEV_KEY, networks: ['ethereum', 'polygon', 'base'], ...overrides }, ...extra]
}

export function gatewayOptions(overrides: Partial<GatewayOptions> = {}): GatewayOptions & { rpc: ReturnType<typeof fakeRpc> } {
  return { networks: CHAINS, keys: keys(), rpc: fakeRpc(), clock: manualClock('2025-03-01T12:00:00Z'), ...overrides } as GatewayOptions & { rpc: ReturnType<typeof fakeRpc> }
}

export function call(method: string, params: unknown[] = [], id: number | string = 1) {
  return { jsonrpc: '2.0', id, method, params }
}

/** A JSON-RPC POST through an app with the dev key to the ethereum host, unless told otherwise. */
export function postRpc(app: GatewayApp, body: unknown, opts: { key?: string; host?: string } = {}) {
  return request(app)
    .post(`/v3/${opts.key ?? DEV_KEY}`)
    .set('Host', opts.host ?? 'ethereum-mainnet.localhost')
    .set('Content-Type', 'application/json')
    .send(JSON.stringify(body))
}
