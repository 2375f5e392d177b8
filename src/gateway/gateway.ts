/**
 * The transport-free gateway: one raw HTTP request in (`GatewayRequest`), status, headers and
 * body out (`HttpResponse`). Every rule of the hosted service and the JSON-RPC dispatch live here;
 * Express (src/http/app.ts) and bare `node:http` (src/http/nodeHandler.ts) only carry bytes.
 *
 * Order, each step refusing before the next runs (refusals charge nothing):
 * 1. OPTIONS: CORS preflight, 204.
 * 2. Request rules: route (404/405/401 missing key) → host (404 unknown network) → key (401) →
 *    secret (403/401) → network enabled (401) → origin and user-agent allowlists (403) → a key's
 *    JWT (401 `invalid JWT`, ./rules/jwt.ts; asynchronous, so after the synchronous rules).
 * 3. Body: JSON parse (-32700), single or batch (empty batch -32600, over `batchLimit` -32600
 *    `batch too large`), each message through `parseMessage`.
 * 4. Call rules: method and contract-address allowlists (403 for the whole request).
 * 5. Credits: the whole request's cost is checked and deducted in one synchronous step (402 daily
 *    balance, 429 the key's own caps -33400/-33300 and the plan's throughput -33200), before the
 *    first `await`, so concurrent requests never overdraw.
 * 4b. Scripted faults (./faults.ts): the first fault matching the request's network, key and
 *    methods answers instead (429, 402, 5xx, drop, timeout: nothing charged), or delays it (latency).
 * 6. `execute` per call (batch calls concurrently), answers in request order.
 *
 * Every request but a CORS preflight is written to the request log when it is over. The
 * `control` facet (./control.ts) changes keys, networks, clock, ledger, faults and log at run time.
 *
 * WebSocket (./sockets/): `upgrade` judges an upgrade to `/ws/v3/<key>` by the same request rules,
 * then the handshake; each message of an accepted connection takes steps 3 to 6 as a POST body
 * would, and is answered as frames.
 */
import type { FilterLimits } from '../chain/filters/filterTable.ts'
import { SYSTEM_CLOCK } from '../chain/clock.ts'
import type { Chain } from '../chain/chain.ts'
import { DEFAULT_EVM_TIMEOUT_MS, DEFAULT_SLICE_MS } from '../chain/vm/executionGuard.ts'
import { isThenable } from '../rpc/dispatch.ts'
import type { MaybePromise } from '../rpc/dispatch.ts'
import type { RpcContext } from '../rpc/method.ts'
import { defaultRpcBackend, silentLogger } from './backend.ts'
import type { Logger, RpcBackend } from './backend.ts'
import { parseAccounts } from './accounts.ts'
import type { AccountConfigInput, AccountSettings } from './accounts.ts'
import { ConfigError, DEFAULT_SERVICE_HOST, parseExcludeMethods, parseKeys, parseNetworkName, parseServiceHost } from './config.ts'
import type { KeyConfigInput, KeySettings } from './config.ts'
import { createControllableClock } from './clock.ts'
import type { ControllableClock } from './clock.ts'
import { createControl } from './control/control.ts'
import { printMinedConsole } from './consoleOutput.ts'
import { createDevRpc } from './devRpc.ts'
import { IntervalMining } from './intervalMining.ts'
import type { GatewayControl } from './control/types.ts'
import { decorate, gatewayFailure } from './cors.ts'
import { CreditLedger, systemClock } from './credits.ts'
import type { Clock, QuotaAlert } from './credits.ts'
import { FaultAnswers } from './faultAnswers.ts'
import { FaultBook } from './faults.ts'
import { FilterScopes } from './filterScopes.ts'
import { RequestPipeline } from './pipeline.ts'
import { DEFAULT_BATCH_LIMIT } from './plan.ts'
import type { GatewayRequest, Network } from './request.ts'
import { countedRequestLog } from './usage/counters.ts'
import type { UsageCounters } from './usage/counters.ts'
import { ControlEvents } from './usage/events.ts'
import type { HttpResponse } from './response.ts'
import { networkHost } from './rules/host.ts'
import { parseSocketLimits } from './sockets/limits.ts'
import type { SocketLimits } from './sockets/limits.ts'
import { createSocketSide } from './sockets/socketSide.ts'
import type { UpgradeAnswer } from './sockets/socketSide.ts'
import type { SocketSession } from './sockets/session.ts'

// The vocabulary of `GatewayOptions`, named where the gateway is made.
export { DEFAULT_BATCH_LIMIT, defaultRpcBackend, silentLogger }
export type { Logger, RpcBackend }

export interface GatewayOptions {
  /** Chains by network name; each is served at `<name>-mainnet.<serviceHost>`. */
  readonly networks: Readonly<Record<string, Chain>>
  /** Keys in the config-file shape; validated here (a `ConfigError` names the field). */
  readonly keys: readonly KeyConfigInput[]
  /** Accounts by name (./accounts.ts): plans keys share with `account`. */
  readonly accounts?: Readonly<Record<string, AccountConfigInput>>
  /**
   * Told when a daily quota (an account's, or a key's own cap) crosses 75, 85 or 100%, once a
   * day each, as the service's alert emails; also written to the logger's `info` and the control
   * event stream.
   */
  readonly onQuotaAlert?: (alert: QuotaAlert) => void
  /** Default `localhost`. */
  readonly serviceHost?: string
  /**
   * The base clock. Default: the system clock. The gateway's own clock (`gateway.clock`) runs on
   * it, shifted by the controls (`control.setClock`); the ledger's 00:00 UTC follows that.
   */
  readonly clock?: Clock
  readonly logger?: Logger
  readonly rpc?: RpcBackend
  readonly batchLimit?: number
  /** The filters' bounds per key and network (default `FILTER_LIMITS`, src/chain/filters/filterTable.ts). */
  readonly filterLimits?: Partial<FilterLimits>
  /**
   * How long the executions of one eth_call or eth_estimateGas may take, in ms (geth's
   * `--rpc.evmtimeout`): past it, -32000 `execution aborted (timeout = 5s)`. 0: no limit.
   * Default 5,000.
   */
  readonly evmTimeoutMs?: number
  /** How long an execution runs before other requests get a turn, in ms; 0: never. Default 10. */
  readonly evmSliceMs?: number
  /** Bounds of WebSocket connections (./sockets/limits.ts); each defaults. */
  readonly sockets?: Partial<SocketLimits>
  /**
   * Methods and families (`"debug_*"`) a network leaves out, by network name (config
   * `networks.<name>.excludeMethods`, ./methodAvailability.ts): answered and charged as unknown
   * methods. Default: every network serves every method.
   */
  readonly excludeMethods?: Readonly<Record<string, readonly string[]>>
}

export interface Gateway {
  readonly serviceHost: string
  /** The networks served (live: `control.fork` adds to it). */
  readonly networks: ReadonlyMap<string, Network>
  /** The keys now (a copy: `control` adds and changes keys). */
  readonly keys: readonly KeySettings[]
  readonly ledger: CreditLedger
  /** The gateway's clock: the base clock, shifted by `control.setClock`. */
  readonly clock: ControllableClock
  /** Controls for tests: snapshots, clock, keys, networks, mining, request log, faults. */
  readonly control: GatewayControl
  /** Usage counted as it happens (./usage/counters.ts); `control.usage` reports it. */
  readonly usage: UsageCounters
  /** The control event stream's quota alerts (./usage/events.ts). */
  readonly events: ControlEvents
  /** Where failures are told (the `logger` option, silent by default). */
  readonly logger: Logger
  /** The filter tables, one per key and network (./filterScopes.ts). */
  readonly filters: FilterScopes
  /** Answers one request. Never rejects: a failure anywhere is a logged 500 `-32603 internal error`. */
  handle(request: GatewayRequest): Promise<HttpResponse>
  /**
   * `handle` for a transport that writes the answer as soon as it has it: the answer itself when
   * nothing waited (an `eth_blockNumber`), else a promise of it. Never throws nor rejects.
   */
  respond(request: GatewayRequest): MaybePromise<HttpResponse>
  /**
   * Judges a WebSocket upgrade by the request rules and the handshake: refused with the answer a
   * POST would get (or gorilla/websocket's handshake refusals), or accepted with the session to
   * open once the transport completed the handshake. Never rejects.
   */
  upgrade(request: GatewayRequest): Promise<UpgradeAnswer>
  /** The bounds of WebSocket connections; the transport applies the message size and pings. */
  readonly socketLimits: SocketLimits
  /** The WebSocket sessions open now. */
  readonly sockets: readonly SocketSession[]
  /**
   * Writes the request log's entry of a request its transport answered before the core could
   * read it: a body over the limit (413), malformed HTTP (Node's 400, 408, 431). `request` is what
   * was read of it (nothing for malformed HTTP); the key and network are logged as far as its path
   * and Host name them. Never throws.
   */
  logTransportAnswer(status: number, request?: Omit<GatewayRequest, 'body'>): void
  /** Credits left today for a key (undefined for an unknown key). */
  balance(key: string): number | undefined
  /**
   * Releases every request a fault is holding (timeouts, latency) as a dropped connection,
   * closes every WebSocket session with 1001 (going away), and stops interval mining, so nothing
   * waits on a closed server. New requests are still answered.
   */
  close(): void
}

/** The gateway's settings, checked, with their defaults. */
interface Settings {
  readonly serviceHost: string
  readonly networks: Map<string, Network>
  readonly keys: Map<string, KeySettings>
  readonly accounts: Map<string, AccountSettings>
  readonly clock: ControllableClock
  readonly logger: Logger
  readonly rpc: RpcBackend
  readonly batchLimit: number
  readonly execution: NonNullable<RpcContext['execution']>
  readonly socketLimits: SocketLimits
}

function nonNegativeInteger(v: number, name: string): number {
  if (!Number.isSafeInteger(v) || v < 0) throw new TypeError(`${name} must be an integer of at least 0 (ms), got ${v}`)
  return v
}

/** Checks the options (a `ConfigError` or `TypeError` names the field) and fills in the defaults. */
function settingsOf(options: GatewayOptions): Settings {
  const serviceHost = parseServiceHost(options.serviceHost ?? DEFAULT_SERVICE_HOST)
  const networks = new Map<string, Network>()
  for (const [name, chain] of Object.entries(options.networks)) {
    parseNetworkName(name, `networks.${name}`)
    const excluded = options.excludeMethods?.[name]
    const excludedMethods = excluded === undefined ? undefined : parseExcludeMethods(excluded, `excludeMethods.${name}`)
    networks.set(name, { name, host: networkHost(name, serviceHost), chain, ...(excludedMethods ? { excludedMethods } : {}) })
  }
  for (const name of Object.keys(options.excludeMethods ?? {})) {
    if (!networks.has(name)) throw new ConfigError(`excludeMethods.${name}: unknown network (served: ${[...networks.keys()].join(', ')})`)
  }
  const accounts = parseAccounts(options.accounts)
  const keys = new Map(parseKeys(options.keys, networks.keys(), 'keys', accounts).map((k) => [k.key, k]))
  const clock = createControllableClock(options.clock ?? systemClock)
  const batchLimit = options.batchLimit ?? DEFAULT_BATCH_LIMIT
  if (!Number.isSafeInteger(batchLimit) || batchLimit < 1) throw new TypeError(`batchLimit must be a positive integer, got ${batchLimit}`)
  const execution = {
    timeoutMs: nonNegativeInteger(options.evmTimeoutMs ?? DEFAULT_EVM_TIMEOUT_MS, 'evmTimeoutMs'),
    sliceMs: nonNegativeInteger(options.evmSliceMs ?? DEFAULT_SLICE_MS, 'evmSliceMs'),
  }
  const socketLimits = parseSocketLimits(options.sockets)
  return { serviceHost, networks, keys, accounts, clock, logger: options.logger ?? silentLogger, rpc: options.rpc ?? defaultRpcBackend, batchLimit, execution, socketLimits }
}

/** Tells a quota alert to the control event stream, the logger's `info` and the `onQuotaAlert` option. */
function alertTeller(logger: Logger, events: ControlEvents, onQuotaAlert: GatewayOptions['onQuotaAlert']): (alert: QuotaAlert) => void {
  return (alert) => {
    events.emit(alert)
    logger.info?.(`credits: ${alert.scope} ${alert.name} at ${alert.level}% of its daily quota (${alert.spent} of ${alert.quota})`)
    try {
      onQuotaAlert?.(alert)
    } catch (err) {
      logger.error('onQuotaAlert failure', err)
    }
  }
}

export function createGateway(options: GatewayOptions): Gateway {
  const settings = settingsOf(options)
  const { serviceHost, networks, keys, accounts, clock, logger, socketLimits } = settings
  // Mined blocks take their timestamps from the gateway's clock, so `control.setClock` moves
  // block time too (a suite crossing midnight sees it in both credits and `block.timestamp`).
  // A chain given its own clock keeps it.
  for (const { chain } of networks.values()) {
    if (chain.clock === SYSTEM_CLOCK) chain.setClock(clock)
  }
  const stopPrinting = printMinedConsole(networks.values(), logger)
  const ledger = new CreditLedger(clock)
  const events = new ControlEvents()
  ledger.onAlert = alertTeller(logger, events, options.onQuotaAlert)
  const faults = new FaultBook()
  const faultAnswers = new FaultAnswers()
  const { log, usage } = countedRequestLog(() => clock.now())
  const filterScopes = new FilterScopes({ clock, ...(options.filterLimits ? { limits: options.filterLimits } : {}), onError: (err) => logger.error('filter listener failure', err) })
  const intervals = new IntervalMining(logger)
  const devRpc = createDevRpc({ networks, intervals, logger, batchLimit: settings.batchLimit, filterScopes, execution: settings.execution })
  const control = createControl({ serviceHost, networks, keys, accounts, ledger, clock, faults, log, intervals, devRpc, usage, events })
  const pipeline = new RequestPipeline({ ...settings, ledger, faults, faultAnswers, log, filterScopes })
  const socketSide = createSocketSide({
    limits: socketLimits,
    now: () => clock.now(),
    ledger,
    faults,
    logger,
    newDraft: (socket) => pipeline.newDraft(socket),
    record: (draft, keyParent) => log.record(draft, keyParent),
    applyRequestRules: (state, draft) => pipeline.applyRequestRules(state, draft),
    checkJwt: (state) => pipeline.checkJwt(state),
    answerBody: (state, body, draft, signal) => pipeline.answerBody(state, body, draft, 'message', signal),
    applyFault: (fault, signal) => faultAnswers.answer(fault, null, signal),
    decorate,
  })

  /** Never throws nor rejects: whatever fails, here or in a rule, becomes a logged 500 (the guard of every transport). */
  const failed = (err: unknown): HttpResponse => {
    logger.error('gateway failure', err)
    return gatewayFailure()
  }
  function respond(request: GatewayRequest): MaybePromise<HttpResponse> {
    try {
      const answer = pipeline.handleRequest(request)
      return isThenable(answer) ? answer.then(undefined, failed) : answer
    } catch (err) {
      return failed(err)
    }
  }

  return {
    serviceHost,
    networks,
    logger,
    filters: filterScopes,
    usage,
    events,
    socketLimits,
    get sockets() {
      return socketSide.sessions()
    },
    get keys() {
      return [...keys.values()]
    },
    ledger,
    clock,
    control,
    async handle(request) {
      return respond(request)
    },
    respond,
    async upgrade(request) {
      try {
        return await socketSide.upgrade(request)
      } catch (err) {
        logger.error('gateway failure', err)
        return { accepted: false, response: gatewayFailure() }
      }
    },
    logTransportAnswer(status, request) {
      try {
        pipeline.logTransportAnswer(status, request)
      } catch (err) {
        logger.error('request log failure', err)
      }
    },
    close() {
      stopPrinting()
      faultAnswers.releaseAll()
      socketSide.closeAll()
      intervals.close()
    },
    balance(key) {
      const settings = keys.get(key)
      return settings === undefined ? undefined : ledger.balance(settings)
    },
  }
}
