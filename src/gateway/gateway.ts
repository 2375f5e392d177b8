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
import { SYSTEM_CLOCK } from '../chain/clock.ts'
import { isThenable } from '../rpc/dispatch.ts'
import type { MaybePromise } from '../rpc/dispatch.ts'
import { defaultRpcBackend, silentLogger } from './backend.ts'
import type { Logger, RpcBackend } from './backend.ts'
import type { KeySettings } from './config.ts'
import type { ControllableClock } from './clock.ts'
import { createControl } from './control/control.ts'
import { printMinedConsole } from './consoleOutput.ts'
import { createDevRpc } from './devRpc.ts'
import { IntervalMining } from './intervalMining.ts'
import type { GatewayControl } from './control/types.ts'
import { decorate, gatewayFailure } from './cors.ts'
import { CreditLedger } from './credits.ts'
import type { QuotaAlert } from './credits.ts'
import { FaultAnswers } from './faultAnswers.ts'
import { FaultBook } from './faults.ts'
import { FilterScopes } from './filterScopes.ts'
import { RequestPipeline } from './pipeline.ts'
import { DEFAULT_BATCH_LIMIT } from './plan.ts'
import type { GatewayRequest, Network } from './request.ts'
import { settingsOf } from './settings.ts'
import type { GatewayOptions } from './settings.ts'
import { countedRequestLog } from './usage/counters.ts'
import type { UsageCounters } from './usage/counters.ts'
import { ControlEvents } from './usage/events.ts'
import type { HttpResponse } from './response.ts'
import type { ProfileSpec } from './profiles/profile.ts'
import type { SocketLimits } from './sockets/limits.ts'
import { createSocketSide } from './sockets/socketSide.ts'
import type { UpgradeAnswer } from './sockets/socketSide.ts'
import type { SocketSession } from './sockets/session.ts'

// The vocabulary of `GatewayOptions` (./settings.ts), named where the gateway is made.
export { DEFAULT_BATCH_LIMIT, defaultRpcBackend, silentLogger }
export type { GatewayOptions, Logger, RpcBackend }

export interface Gateway {
  readonly serviceHost: string
  /** The provider profile whose rules it plays, checked. */
  readonly profile: ProfileSpec
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
  /** Credits (the profile's units) left in the key's period (undefined for an unknown key). */
  balance(key: string): number | undefined
  /**
   * Releases every request a fault is holding (timeouts, latency) as a dropped connection,
   * closes every WebSocket session with 1001 (going away), and stops interval mining, so nothing
   * waits on a closed server. New requests are still answered.
   */
  close(): void
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
  const { serviceHost, networks, keys, accounts, clock, logger, socketLimits, controlLimits, profile } = settings
  // Mined blocks take their timestamps from the gateway's clock, so `control.setClock` moves
  // block time too (a suite crossing midnight sees it in both credits and `block.timestamp`).
  // A chain given its own clock keeps it.
  for (const { chain } of networks.values()) {
    if (chain.clock === SYSTEM_CLOCK) chain.setClock(clock)
  }
  const stopPrinting = printMinedConsole(networks.values(), logger)
  const ledger = new CreditLedger(clock, profile.ledgerRules)
  const events = new ControlEvents()
  ledger.onAlert = alertTeller(logger, events, options.onQuotaAlert)
  const faults = new FaultBook(controlLimits)
  const faultAnswers = new FaultAnswers()
  const { log, usage } = countedRequestLog(() => clock.now())
  const filterScopes = new FilterScopes({ clock, ...(options.filterLimits ? { limits: options.filterLimits } : {}), onError: (err) => logger.error('filter listener failure', err) })
  const intervals = new IntervalMining(logger)
  const devRpc = createDevRpc({ networks, intervals, logger, batchLimit: settings.batchLimit, filterScopes, execution: settings.execution, limits: controlLimits })
  const control = createControl({ serviceHost, networks, keys, accounts, ledger, clock, faults, log, intervals, devRpc, usage, events, limits: controlLimits })
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
    profile: profile.spec,
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
      return settings === undefined ? undefined : ledger.balance(profile.accountOf?.(settings) ?? settings)
    },
  }
}
