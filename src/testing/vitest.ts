/**
 * gateway-double in a vitest run: one server for the whole run, started by a `globalSetup`, and
 * helpers for test files to find it and to get a network of their own.
 *
 * ```ts
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['gateway-double/testing/vitest'] } })
 *
 * // a test file
 * import { gatewayDouble, useIsolatedNetwork } from 'gateway-double/testing/vitest'
 * const { urls } = gatewayDouble()          // the shared networks
 * const mine = useIsolatedNetwork('ethereum') // this worker's own copy (control API)
 * ```
 *
 * The default export reads its options from the environment (`GATEWAY_DOUBLE_CONFIG`,
 * `GATEWAY_DOUBLE_PORT`, `GATEWAY_DOUBLE_ISOLATE`); `createGlobalSetup(options)` takes them
 * inline. The globalSetup runs in vitest's main process and `provide`s plain data (URLs, keys);
 * test files run in workers and read it with `inject`, so nothing here needs a shared module.
 *
 * Isolation: with `isolate: ['ethereum']` the globalSetup forks `ethereum` once per worker slot
 * (`ethereum-w1` … `ethereum-w<maxWorkers>`, vitest's `VITEST_POOL_ID` range) through the control
 * API's `server.control.fork({ name, from })`, in-process, each fork enabled for the same keys. Files in one worker run one after
 * another, so a worker's fork is never touched by two files at once. When the server has no
 * control API, the run still starts and `useIsolatedNetwork` says why it cannot isolate.
 */
import { inject } from 'vitest'
import type { TestProject } from 'vitest/node'
import { startServer } from '../http/server.ts'
import type { RunningServer, StartServerOptions } from '../http/server.ts'

/** What the globalSetup hands to test files (plain data: it crosses into the workers). */
export interface GatewayDoubleContext {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  readonly port: number
  /** The plain URL, `http://127.0.0.1:<port>/v3/<key>`: the first network (`ethereum` by default), any client as is. */
  readonly url: string | undefined
  /**
   * `http://127.0.0.1:<port>/_double`: the control routes, and `${controlUrl}/rpc/<network>`, the
   * test endpoint (evm_snapshot, evm_revert, anvil_setBalance...: viem's test client). Undefined
   * with `control: false`.
   */
  readonly controlUrl: string | undefined
  /** The config's first key (the dev key of the default config). */
  readonly devKey: string | undefined
  /** Each network's URL with the first key enabled for it: `http://<name>-mainnet.localhost:<port>/v3/<key>`. */
  readonly urls: Readonly<Record<string, string>>
  /** Each network's WebSocket URL with the same key: `ws://<name>-mainnet.localhost:<port>/ws/v3/<key>`. */
  readonly wsUrls: Readonly<Record<string, string>>
  readonly networks: readonly {
    name: string
    chainId: string
    headNumber: string
    url: string | undefined
    key: string | undefined
    /** `http://127.0.0.1:<its own port>/v3/<key>` with `networkPorts`, else undefined. */
    portUrl: string | undefined
    /** `ws://127.0.0.1:<its own port>/ws/v3/<key>` with `networkPorts`, else undefined. */
    portWsUrl: string | undefined
    /** Its contracts' addresses by name (its fixture's accounts.json; a source's as built). */
    contracts: Readonly<Record<string, string>>
  }[]
  /** `portUrl` of each network that has one, by name (`networkPorts`; empty without). */
  readonly portUrls: Readonly<Record<string, string>>
  /** `portWsUrl` of each network that has one, by name. */
  readonly portWsUrls: Readonly<Record<string, string>>
  /** Per-worker forks made at start, by source network, then by `VITEST_POOL_ID`. */
  readonly isolated: Readonly<Record<string, Readonly<Record<string, { name: string; url: string }>>>>
  /** Why `isolated` is empty although `isolate` asked for networks (no control API). */
  readonly isolationUnavailable: string | undefined
}

declare module 'vitest' {
  export interface ProvidedContext {
    gatewayDouble: GatewayDoubleContext
  }
}

export interface GlobalSetupOptions extends StartServerOptions {
  /** Networks to fork once per worker slot (needs the control API's `control.fork`). */
  readonly isolate?: readonly string[]
  /**
   * The HTTP control routes and the test endpoint (`controlUrl`), so that a test file can snapshot
   * and revert its network. Default: on (a test run's server is the tests' own).
   */
  readonly control?: boolean
}

/**
 * Options from the environment, for the default export:
 * - `GATEWAY_DOUBLE_CONFIG`: a config file (default: the package's config/default.json);
 * - `GATEWAY_DOUBLE_PORT`: a port (default 0, a free one);
 * - `GATEWAY_DOUBLE_ISOLATE`: networks to fork per worker, comma-separated (e.g. `ethereum`);
 * - `GATEWAY_DOUBLE_NETWORK_PORTS`: the first of consecutive per-network ports (0: free ones);
 * - `GATEWAY_DOUBLE_CONTROL=0`: no control routes and no test endpoint (default: on);
 * - `GATEWAY_DOUBLE_FORK`: forked networks, `<network>=<url>[@<block>]`, separated by spaces;
 * - `GATEWAY_DOUBLE_OFFLINE=1`: every fork from its cache alone.
 */
export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): GlobalSetupOptions {
  const port = env.GATEWAY_DOUBLE_PORT === undefined || env.GATEWAY_DOUBLE_PORT === '' ? 0 : Number(env.GATEWAY_DOUBLE_PORT)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`GATEWAY_DOUBLE_PORT: must be a port number, got ${JSON.stringify(env.GATEWAY_DOUBLE_PORT)}`)
  }
  const forks = (env.GATEWAY_DOUBLE_FORK ?? '').split(/\s+/).filter((s) => s !== '')
  const isolate = (env.GATEWAY_DOUBLE_ISOLATE ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')
  const ports = env.GATEWAY_DOUBLE_NETWORK_PORTS
  const networkPorts = ports === undefined || ports === '' ? undefined : Number(ports)
  if (networkPorts !== undefined && (!/^\d{1,5}$/.test(ports!) || networkPorts > 65535)) {
    throw new Error(`GATEWAY_DOUBLE_NETWORK_PORTS: must be a port number, got ${JSON.stringify(ports)}`)
  }
  return {
    port,
    ...(networkPorts === undefined ? {} : { networkPorts }),
    ...(env.GATEWAY_DOUBLE_CONFIG ? { config: env.GATEWAY_DOUBLE_CONFIG } : {}),
    ...(isolate.length > 0 ? { isolate } : {}),
    ...(env.GATEWAY_DOUBLE_CONTROL === '0' ? { control: false } : {}),
    ...(forks.length > 0 ? { forks } : {}),
    ...(env.GATEWAY_DOUBLE_OFFLINE === '1' ? { offline: true } : {}),
  }
}

/**
 * The control API, as far as this module relies on it (gateway-double's `server.control`):
 * `fork({ name, from })` serves a copy of `from`'s chain as network `name`, enabled for the keys
 * that have `from`; `server.urlFor(name)` is its URL. Both are looked up at run time, so a server
 * without them still starts, and a chain that cannot fork (the control API's 501) is reported the
 * same way.
 */
interface ForkingServer {
  control?: { fork?: (input: { name: string; from: string }) => Promise<unknown> }
  urlFor?: (network: string) => string
}

/** The fork's name for a worker slot. */
export function workerNetworkName(network: string, poolId: number | string): string {
  return `${network}-w${poolId}`
}

async function forkPerWorker(
  server: RunningServer,
  isolate: readonly string[],
  workers: number,
): Promise<Pick<GatewayDoubleContext, 'isolated' | 'isolationUnavailable'>> {
  if (isolate.length === 0) return { isolated: {}, isolationUnavailable: undefined }
  const { control, urlFor } = server as RunningServer & ForkingServer
  const fork = control?.fork
  if (typeof fork !== 'function') {
    return { isolated: {}, isolationUnavailable: 'this gateway-double has no control API (control.fork): every worker shares the networks' }
  }
  const isolated: Record<string, Record<string, { name: string; url: string }>> = {}
  for (const from of isolate) {
    const source = server.networks.find((n) => n.name === from)
    if (source?.key === undefined) throw new Error(`gateway-double globalSetup: isolate: no network "${from}" enabled for a key`)
    const forks: Record<string, { name: string; url: string }> = {}
    for (let poolId = 1; poolId <= workers; poolId++) {
      const name = workerNetworkName(from, poolId)
      try {
        await fork.call(control, { name, from })
      } catch (err) {
        // 501: the chain behind the network cannot fork. Anything else is a real setup error.
        if ((err as { httpStatus?: unknown }).httpStatus !== 501) throw err
        return { isolated: {}, isolationUnavailable: `control.fork refused: ${(err as Error).message}` }
      }
      const url = typeof urlFor === 'function' ? urlFor.call(server, name) : `http://${name}-mainnet.${server.serviceHost}:${server.port}/v3/${source.key}`
      forks[String(poolId)] = { name, url }
    }
    isolated[from] = forks
  }
  return { isolated, isolationUnavailable: undefined }
}

/** The context a running server gives test files. */
export async function describeServer(server: RunningServer, isolate: readonly string[] = [], workers = 1): Promise<GatewayDoubleContext> {
  return {
    origin: server.origin,
    port: server.port,
    url: server.url,
    controlUrl: server.controlUrl,
    devKey: server.devKey,
    urls: server.urls,
    wsUrls: server.wsUrls,
    networks: server.networks.map((n) => ({
      name: n.name,
      chainId: n.chainId.toString(),
      headNumber: n.headNumber.toString(),
      url: n.url,
      key: n.key,
      portUrl: n.portUrl,
      portWsUrl: n.portWsUrl,
      contracts: n.contracts,
    })),
    portUrls: server.portUrls,
    portWsUrls: server.portWsUrls,
    ...(await forkPerWorker(server, isolate, workers)),
  }
}

/**
 * A vitest globalSetup function: starts one server (port 0 unless told), `provide`s its URLs as
 * `gatewayDouble`, and returns the teardown that closes it.
 */
export function createGlobalSetup(options: GlobalSetupOptions = {}): (project: TestProject) => Promise<() => Promise<void>> {
  return async function gatewayDoubleGlobalSetup(project) {
    const { isolate = [], ...serverOptions } = options
    const server = await startServer({ port: 0, control: true, ...serverOptions })
    try {
      const workers = Math.max(1, Number(project.config.maxWorkers) || 1)
      project.provide('gatewayDouble', await describeServer(server, isolate, workers))
    } catch (err) {
      await server.close()
      throw err
    }
    return () => server.close()
  }
}

/** The zero-configuration globalSetup: options from the environment (see `optionsFromEnv`). */
export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return createGlobalSetup(optionsFromEnv())(project)
}

/** Thrown by the worker helpers when the run was not set up for what they were asked. */
export class GatewayDoubleSetupError extends Error {
  override readonly name = 'GatewayDoubleSetupError'
}

/** In a test file: the server the globalSetup started (its URLs, keys, forks). */
export function gatewayDouble(): GatewayDoubleContext {
  let context: GatewayDoubleContext | undefined
  try {
    context = inject('gatewayDouble')
  } catch {
    context = undefined
  }
  if (context === undefined) {
    throw new GatewayDoubleSetupError(
      "gateway-double: nothing was provided as 'gatewayDouble': add 'gateway-double/testing/vitest' (or a file exporting createGlobalSetup()) to test.globalSetup",
    )
  }
  return context
}

export interface IsolatedNetwork {
  /** `ethereum-w<VITEST_POOL_ID>`, or the shared network's own name when not isolated. */
  readonly name: string
  readonly url: string
  /** False only with `ifUnavailable: 'share'` on a server without the control API. */
  readonly isolated: boolean
}

/**
 * In a test file (or a setupFile): this worker's own copy of `network`, made by the globalSetup
 * (`isolate: [network]`). Without the control API it throws a `GatewayDoubleSetupError` saying so,
 * or, with `ifUnavailable: 'share'`, returns the shared network with `isolated: false`.
 */
export function useIsolatedNetwork(network = 'ethereum', opts: { ifUnavailable?: 'throw' | 'share' } = {}): IsolatedNetwork {
  const context = gatewayDouble()
  const poolId = process.env.VITEST_POOL_ID ?? '1'
  const mine = context.isolated[network]?.[poolId]
  if (mine !== undefined) return { ...mine, isolated: true }
  const why =
    context.isolationUnavailable ??
    (context.isolated[network] === undefined
      ? `"${network}" is not in the globalSetup's isolate list (isolate: ['${network}'] or GATEWAY_DOUBLE_ISOLATE=${network})`
      : `no fork for worker ${poolId} (forks made for ${Object.keys(context.isolated[network]!).length} workers)`)
  if (opts.ifUnavailable === 'share') {
    const url = context.urls[network]
    if (url === undefined) throw new GatewayDoubleSetupError(`gateway-double: no network "${network}" is served`)
    return { name: network, url, isolated: false }
  }
  throw new GatewayDoubleSetupError(`gateway-double: cannot isolate "${network}": ${why}`)
}
