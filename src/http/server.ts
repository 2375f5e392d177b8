/**
 * `startServer(opts)`: loads the networks' fixture chains, serves the gateway on a port and
 * returns where each network answers; `close()` stops it (open keep-alive connections included,
 * and requests a fault holds).
 *
 * With `networkPorts` (or `port` on a config's network), each such network is also served on a
 * port of its own, where every request is that network whatever its Host (./networkPorts.ts).
 *
 * Two lanes, one core: `POST /v3/...` goes straight to the bare `node:http` handler (the fast
 * lane); everything else goes to the Express app of `createApp` (control routes when enabled,
 * then the same core for the gateway's refusals). Express is imported on the first request that
 * needs it, not at start: a start answers `POST /v3/...` without loading it (about 0.15 s).
 * WebSocket upgrades (`ws://<network host>:<port>/ws/v3/<key>`) go to the WebSocket transport
 * (./webSocketServer.ts) on the same port.
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Chain } from '../chain/chain.ts'
import { DEFAULT_CONFIG_PATH, loadConfigFile, withForks } from '../gateway/config.ts'
import type { GatewayConfig, KeyConfigInput } from '../gateway/config.ts'
import type { ForkNetworkSettings } from '../gateway/forkConfig.ts'
import type { Clock } from '../gateway/credits.ts'
import type { GatewayControl } from '../gateway/control/types.ts'
import { createGateway, silentLogger } from '../gateway/gateway.ts'
import type { Gateway, GatewayOptions, Logger, RpcBackend } from '../gateway/gateway.ts'
import type { GatewayApp } from './app.ts'
import type { ControlAccess } from '../gateway/controlAccess.ts'
import { checkControlAccess, controlCheck } from './controlGuard.ts'
import { bodyBudgetOf } from './bodyBudget.ts'
import { createDevRpcLane } from './devRpcLane.ts'
import { CONTROL_PREFIX } from './controlPrefix.ts'
import { assignNetworkPorts } from './networkPorts.ts'
import { startProfileServers } from './profileServers.ts'
import type { ProfileServeOption, ServedProfile } from './profileServers.ts'
import type { NetworkPortsOption } from './networkPorts.ts'
import { closeServer, listenOn } from './listener.ts'
import { describeNetworks } from './servedNetworks.ts'
import type { ServedNetwork } from './servedNetworks.ts'
import { DEFAULT_SHUTDOWN_GRACE_MS } from './shutdown.ts'
import type { Drainer } from './shutdown.ts'
import { createWebSocketTransport } from './webSocketServer.ts'
import type { SocketLimits } from '../gateway/sockets/limits.ts'

export type { ProfileServeOption, ServedNetwork, ServedProfile }

export const DEFAULT_PORT = 8545
export const DEFAULT_BIND_HOST = '127.0.0.1'

export interface StartServerOptions {
  /** A validated config or the path of a config file. Default: config/default.json. */
  readonly config?: GatewayConfig | string
  /**
   * Forked networks, as the CLI's `--fork` takes them: `<network>=<url>[@<block>]` (added to the
   * config's networks, enabled for its first key; docs/forking.md).
   */
  readonly forks?: readonly string[]
  /** Serve every fork from its cache alone (the CLI's `--offline`). */
  readonly offline?: boolean
  /** Chains already loaded, by network name: served instead of the config's fixture networks. */
  readonly chains?: Readonly<Record<string, Chain>>
  /** Keys instead of the config's. */
  readonly keys?: readonly KeyConfigInput[]
  /** Accounts instead of the config's (src/gateway/accounts.ts). */
  readonly accounts?: GatewayOptions['accounts']
  /** Told when a daily quota crosses 75, 85 or 100% (`GatewayOptions.onQuotaAlert`). */
  readonly onQuotaAlert?: GatewayOptions['onQuotaAlert']
  /** Default 8545; 0 picks a free port. */
  readonly port?: number
  /** Address to bind. Default 127.0.0.1. */
  readonly host?: string
  /**
   * Also serve networks on ports of their own, where any Host reaches them: a number gives every
   * network a port, consecutive from it in the order served (0: each a free one); an object gives
   * ports by name. Default: the config's per-network `port`s (none in the default config).
   */
  readonly networkPorts?: NetworkPortsOption
  readonly clock?: Clock
  readonly logger?: Logger
  readonly rpc?: RpcBackend
  /** The time limit of an eth_call's or eth_estimateGas's executions, in ms (0: none). Default: the config's `evmTimeout`, else 5,000. */
  readonly evmTimeoutMs?: number
  /** How long an execution runs before other requests get a turn, in ms (0: never). Default 10. */
  readonly evmSliceMs?: number
  /** Serve the HTTP control endpoint under `/_double/` (the CLI's `--control`). Default false. */
  readonly control?: boolean
  /**
   * Origins and host names allowed to call the controls besides the double's own, and their token
   * (src/gateway/controlAccess.ts; required on an address that is not loopback). Default: the
   * config's `controlAccess`.
   */
  readonly controlAccess?: ControlAccess
  /** Connections each listening port holds at once, HTTP and WebSocket (./connectionLimit.ts). Default: the config's `maxConnections`, else 1,000. */
  readonly maxConnections?: number
  /** Bounds of WebSocket connections (message size, subscriptions, send buffer, idle time, pings). */
  readonly sockets?: Partial<SocketLimits>
  /** Bounds on the snapshots, faults and keys the controls and the test endpoint keep (`GatewayOptions.controlLimits`). */
  readonly controlLimits?: GatewayOptions['controlLimits']
  /** Loads a fixture folder or source file (`defaultLoadChain`: a source is built first). */
  readonly loadChain?: (folder: string, name: string) => Promise<Chain>
  /**
   * Other providers' rules beside the service's (src/gateway/profiles/, docs/providers.md): each
   * profile a gateway of its own over the same chains, on its own port (default a free one),
   * with `control` its own `/_double/` (usage and dashboard in the profile's unit). Default: the
   * config's `profiles`.
   */
  readonly profiles?: readonly ProfileServeOption[]
}

export interface RunningServer {
  readonly port: number
  /** The address bound. */
  readonly host: string
  /** An address that reaches the server without name resolution (`http://127.0.0.1:<port>`). */
  readonly origin: string
  readonly serviceHost: string
  readonly networks: readonly ServedNetwork[]
  /**
   * The plain URL, `<origin>/v3/<key>`: the first network served (`defaultNetwork`), which a Host
   * naming no network reaches, so any client uses it as is (no resolver for `*.localhost`, no
   * helper). Its first key; undefined when no key has that network.
   */
  readonly url: string | undefined
  /** The plain WebSocket URL, `ws://127.0.0.1:<port>/ws/v3/<key>`, as `url`. */
  readonly wsUrl: string | undefined
  /** The network the plain URL serves: the first served (the config's first). */
  readonly defaultNetwork: string | undefined
  /** `url` of each network that some key can use, by name. */
  readonly urls: Readonly<Record<string, string>>
  /** `wsUrl` of each network that some key can use, by name. */
  readonly wsUrls: Readonly<Record<string, string>>
  /** `portUrl` of each network with a port of its own that some key can use, by name. */
  readonly portUrls: Readonly<Record<string, string>>
  /** `portWsUrl` of each network with a port of its own that some key can use, by name. */
  readonly portWsUrls: Readonly<Record<string, string>>
  /** The first key of the config (the dev key of the default config). */
  readonly devKey: string | undefined
  readonly gateway: Gateway
  /** The control facet (`gateway.control`), whether or not the HTTP endpoint is served. */
  readonly control: GatewayControl
  /** `origin` + `/_double` when the HTTP control endpoint is served, else undefined. */
  readonly controlUrl: string | undefined
  /** Whether control requests must carry the token (`controlAccess.token` is set and the controls are served). */
  readonly controlTokenRequired: boolean
  /** The `profiles` served, by name: each one's port, URLs and gateway (its ledger meters in its unit). */
  readonly profiles: Readonly<Record<string, ServedProfile>>
  /**
   * `http://<network host>:<port>/v3/<key>` for any network served now (forks included);
   * default key: the first that has the network. Throws for an unknown network or no key.
   */
  urlFor(network: string, key?: string): string
  /** `ws://<network host>:<port>/ws/v3/<key>`, as `urlFor`. */
  wsUrlFor(network: string, key?: string): string
  /** Stops at once: open connections are cut, requests in flight and held by faults dropped; open WebSocket connections are closed with 1001 (terminated if they do not answer within a second). */
  close(): Promise<void>
  /**
   * Stops gracefully (what SIGTERM and SIGINT do to the CLI): no new connections, requests in
   * flight answered (with `connection: close`), for at most `graceMs` (default 5,000); then what
   * is left is cut, requests held by faults released as dropped. WebSocket clients are told at
   * once that the server is going away (1001).
   */
  shutdown(opts?: { graceMs?: number }): Promise<void>
}

/**
 * A fixture folder as it is, a source `.json` file built first: the builder (and solc) are
 * imported only for a source, so a start from folders does not load them.
 */
export async function defaultLoadChain(path: string, name: string): Promise<Chain> {
  if (path.endsWith('.json')) return (await import('../builder/serveSource.ts')).loadFixtureOrSource(path, name)
  return (await import('../chain/loading/loadFixture.ts')).loadFixture(path, { name })
}

/**
 * A forked network (src/chain/loading/fork/): its upstream read at start, the fork block pinned
 * (and told to `logger.info` when the config names none). Imported only when a network is a fork.
 */
export async function loadForkNetwork(fork: ForkNetworkSettings, name: string, logger?: Logger): Promise<Chain> {
  const { openFork } = await import('../chain/loading/fork/openFork.ts')
  const { cacheDir, ...settings } = fork
  return openFork(settings, { name, ...(cacheDir === undefined ? {} : { cache: cacheDir }), ...(logger?.info ? { onPinned: logger.info.bind(logger) } : {}) })
}

/** Loads every network of a config (fixtures and forks), concurrently. */
export async function loadNetworks(
  config: GatewayConfig,
  loadChain: (folder: string, name: string) => Promise<Chain> = defaultLoadChain,
  logger?: Logger,
): Promise<Record<string, Chain>> {
  const entries = await Promise.all(
    Object.entries(config.networks).map(
      async ([name, net]) => [name, net.fork ? await loadForkNetwork(net.fork, name, logger) : await loadChain(net.fixture!, name)] as const,
    ),
  )
  return Object.fromEntries(entries)
}

/** The configured `excludeMethods` of the networks served. */
function excludedMethodsOf(config: GatewayConfig, served: readonly string[]): Record<string, readonly string[]> {
  return Object.fromEntries(
    Object.entries(config.networks).flatMap(([name, n]) => (n.excludeMethods && served.includes(name) ? [[name, n.excludeMethods] as const] : [])),
  )
}

/** The gateway of a start: the config's (or the options') networks, keys and limits. */
async function createServerGateway(opts: StartServerOptions): Promise<{ config: GatewayConfig; gateway: Gateway; options: GatewayOptions }> {
  const given = typeof opts.config === 'string' ? loadConfigFile(opts.config) : (opts.config ?? loadConfigFile(DEFAULT_CONFIG_PATH))
  const config = opts.forks !== undefined || opts.offline === true ? withForks(given, opts.forks ?? [], opts.offline === true) : given
  // Before any chain is loaded: a start the controls' access refuses fails at once.
  if (opts.control === true) checkControlAccess(opts.host ?? DEFAULT_BIND_HOST, opts.controlAccess ?? given.controlAccess)
  const chains = opts.chains ?? (await loadNetworks(config, opts.loadChain, opts.logger))
  const options: GatewayOptions = {
    networks: chains,
    keys: opts.keys ?? config.keys,
    ...(opts.accounts ?? config.accounts ? { accounts: opts.accounts ?? config.accounts } : {}),
    ...(opts.onQuotaAlert ? { onQuotaAlert: opts.onQuotaAlert } : {}),
    serviceHost: config.serviceHost,
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.rpc ? { rpc: opts.rpc } : {}),
    ...(opts.evmTimeoutMs !== undefined ? { evmTimeoutMs: opts.evmTimeoutMs } : config.evmTimeoutMs !== undefined ? { evmTimeoutMs: config.evmTimeoutMs } : {}),
    ...(opts.evmSliceMs !== undefined ? { evmSliceMs: opts.evmSliceMs } : {}),
    ...(opts.sockets ? { sockets: opts.sockets } : {}),
    ...(opts.controlLimits ? { controlLimits: opts.controlLimits } : {}),
    excludeMethods: excludedMethodsOf(config, Object.keys(chains)),
  }
  return { config, gateway: createGateway(options), options }
}

export async function startServer(opts: StartServerOptions = {}): Promise<RunningServer> {
  const { config, gateway, options } = await createServerGateway(opts)
  let app: Promise<GatewayApp> | undefined
  const bindHost = opts.host ?? DEFAULT_BIND_HOST
  const controlAccess = opts.controlAccess ?? config.controlAccess
  const appFor = () =>
    (app ??= import('./app.ts').then(({ createApp }) =>
      createApp({ gateway, control: opts.control === true, ...(controlAccess ? { controlAccess } : {}), ...(opts.logger ? { logger: opts.logger } : {}) }),
    ))
  const maxConnections = opts.maxConnections ?? config.maxConnections
  const devRpc = opts.control === true ? createDevRpcLane(gateway.control, controlCheck(gateway.serviceHost, controlAccess), opts.logger ?? silentLogger, bodyBudgetOf(gateway)) : undefined
  // WebSockets on every port: on the shared one the Host names the network, as the hosted
  // service's; on a network's own port it is that network.
  const webSockets = createWebSocketTransport(gateway)
  /** Each listening server's graceful stop (./shutdown.ts). */
  const drainers = new Map<Server, Drainer>()
  const listen = async (listenPort: number, network?: string): Promise<Server> => {
    const { server, drainer, connections } = await listenOn(gateway, appFor, { port: listenPort, host: bindHost, network, maxConnections, devRpc })
    drainers.set(server, drainer)
    webSockets.attach(server, { ...(network === undefined ? {} : { network }), connections })
    return server
  }
  const served = [...gateway.networks.keys()]
  const configured = Object.fromEntries(Object.entries(config.networks).filter(([name]) => served.includes(name)).map(([name, n]) => [name, n.port]))
  const portsToOpen = assignNetworkPorts(served, opts.networkPorts, configured)
  const server = await listen(opts.port ?? DEFAULT_PORT)
  const lanes = new Map<string, Server>()
  for (const [name, ownPort] of portsToOpen) {
    try {
      const lane = await listen(ownPort, name)
      lanes.set(name, lane)
    } catch (err) {
      await Promise.all([server, ...lanes.values()].map(closeServer))
      await webSockets.close()
      gateway.close()
      throw new Error(`network ${name}: cannot listen on ${bindHost}:${ownPort} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
    }
  }
  const connectHost = bindHost === '0.0.0.0' || bindHost === '::' ? '127.0.0.1' : bindHost
  const connectOrigin = (p: number) => `http://${connectHost.includes(':') ? `[${connectHost}]` : connectHost}:${p}`
  // Each profile's gateway plays its provider over the same chains, on the gateway's clock.
  const profiles = await startProfileServers(opts.profiles ?? config.profiles ?? [], (profile) => createGateway({ ...options, profile, clock: gateway.clock }), bindHost, connectOrigin, opts.control === true, { controlAccess, maxConnections }).catch(async (err: unknown) => {
    await Promise.all([server, ...lanes.values()].map(closeServer))
    await webSockets.close()
    gateway.close()
    throw err
  })
  const port = (server.address() as AddressInfo).port
  const ownPorts = new Map([...lanes].map(([name, lane]) => [name, (lane.address() as AddressInfo).port]))
  const networks = describeNetworks(gateway, port, ownPorts, connectOrigin)
  /** `<host>:<port>/v3/<key>` of a network served now. */
  function endpoint(name: string, key: string | undefined): string {
    const network = gateway.networks.get(name)
    if (!network) throw new TypeError(`no network ${JSON.stringify(name)} is served`)
    const k = key ?? gateway.keys.find((s) => s.networks.has(name))?.key
    if (k === undefined) throw new TypeError(`no key has network ${JSON.stringify(name)}`)
    return `${network.host}:${port}/v3/${k}`
  }
  const origin = connectOrigin(port)
  const plain = networks[0]?.key === undefined ? undefined : `${origin}/v3/${networks[0].key}`
  return {
    port,
    host: bindHost,
    origin,
    serviceHost: gateway.serviceHost,
    networks,
    url: plain,
    wsUrl: plain?.replace(/^http:/, 'ws:').replace('/v3/', '/ws/v3/'),
    defaultNetwork: networks[0]?.name,
    urls: Object.fromEntries(networks.filter((n) => n.url !== undefined).map((n) => [n.name, n.url!])),
    wsUrls: Object.fromEntries(networks.filter((n) => n.wsUrl !== undefined).map((n) => [n.name, n.wsUrl!])),
    portUrls: Object.fromEntries(networks.filter((n) => n.portUrl !== undefined).map((n) => [n.name, n.portUrl!])),
    portWsUrls: Object.fromEntries(networks.filter((n) => n.portWsUrl !== undefined).map((n) => [n.name, n.portWsUrl!])),
    devKey: gateway.keys[0]?.key,
    gateway,
    control: gateway.control,
    controlUrl: opts.control === true ? `${origin}${CONTROL_PREFIX}` : undefined,
    controlTokenRequired: opts.control === true && controlAccess?.token !== undefined,
    profiles: Object.fromEntries(profiles.served.map((p) => [p.name, p])),
    urlFor: (name, key) => `http://${endpoint(name, key)}`,
    wsUrlFor: (name, key) => `ws://${endpoint(name, key).replace('/v3/', '/ws/v3/')}`,
    close: async () => {
      gateway.close()
      const closed = Promise.all([server, ...lanes.values()].map(closeServer))
      await Promise.all([webSockets.close(), profiles.close()])
      await closed
    },
    shutdown: async ({ graceMs = DEFAULT_SHUTDOWN_GRACE_MS } = {}) => {
      // WebSocket clients are told at once that the server is going away (1001).
      const sockets = webSockets.close()
      await Promise.all([...[...drainers.values()].map((d) => d.drain(graceMs, () => gateway.close())), profiles.shutdown(graceMs)])
      await sockets
    },
  }
}
