/**
 * The gateway's WebSocket side: an upgrade judged by the same rules as a POST, then sessions
 * whose messages take the POST's path through the core (`SocketSideDeps.answerBody`), answered
 * as frames. Refusals and faults become what a socket can carry: error frames under each call's
 * id, a severed connection at the daily limit, a close or a terminated connection. A session's
 * notifications are charged here (`event`), after the faults that may take them, and logged.
 */
import type { Fault } from '../faults.ts'
import { DailyCreditsExceededError, GatewayError } from '../errors.ts'
import type { GatewayRequest, RequestState } from '../request.ts'
import { header } from '../request.ts'
import { loggedText } from '../requestLog.ts'
import type { LogDraft } from '../requestLog.ts'
import type { HttpResponse } from '../response.ts'
import { toHttpResponse } from '../response.ts'
import { INTERNAL_ERROR_OBJECT } from './frames.ts'
import { checkHandshake } from './handshake.ts'
import { CLOSE_SHUTDOWN } from './limits.ts'
import type { SocketLimits } from './limits.ts'
import { messageOutcome, notificationOutcome, SEVERED_FRAME } from './outcomes.ts'
import type { Answered, EventDeps } from './outcomes.ts'
import { SocketSession } from './session.ts'
import type { MessageOutcome, SessionPort, SocketSink } from './session.ts'

export type { Answered }

export type UpgradeAnswer =
  /** Answer the upgrade with this response (or destroy the connection when `destroy`). */
  | { readonly accepted: false; readonly response: HttpResponse }
  /** Complete the handshake, then open the session with the connection's sink. */
  | { readonly accepted: true; open(sink: SocketSink): SocketSession }

export interface SocketSideDeps extends EventDeps {
  readonly limits: SocketLimits
  readonly logger: { error(message: string, err?: unknown): void }
  /** The gateway's clock, in ms. */
  now(): number
  /** The request rules in order (route, host, key, secret, network, origin and user-agent allowlists). */
  applyRequestRules(state: RequestState, draft: LogDraft): void
  /** A key's JWT (../rules/jwt.ts): undefined when there is none to verify. */
  checkJwt(state: RequestState): Promise<void> | undefined
  answerBody(state: RequestState, body: Buffer | string, draft: LogDraft, signal: AbortSignal): Promise<Answered>
  /** A fault's HTTP answer (holding the request for latency and timeout); undefined: go on. */
  applyFault(fault: Fault, signal: AbortSignal | undefined): Promise<HttpResponse | undefined>
  /** The headers every answer carries (CORS). */
  decorate(response: HttpResponse, origin: string | undefined): HttpResponse
}

export interface SocketSide {
  upgrade(request: GatewayRequest): Promise<UpgradeAnswer>
  /** Open sessions, by key. */
  sessions(): SocketSession[]
  /** Closes every open session with 1001 (the server is going away). */
  closeAll(): void
}

/** Less than this left, nothing can be paid (the cheapest call, eth_chainId or a bad request, is 5). */
const CHEAPEST_CALL = 5

export function createSocketSide(deps: SocketSideDeps): SocketSide {
  const byKey = new Map<string, Set<SocketSession>>()
  let nextConnection = 1

  /** The key met its daily limit over a socket: every socket of it is severed; upgrades refused till the balance returns. */
  function severKey(session: SocketSession): void {
    deps.ledger.markLimitReached(session.key)
    for (const other of [...(byKey.get(session.key.key) ?? [])]) if (other !== session) other.sever(SEVERED_FRAME)
  }

  const eventDeps = afterTheFrames(deps)
  const port: SessionPort = {
    limits: deps.limits,
    event: (session, notification, held) => notificationOutcome(eventDeps, session, notification, held, severKey),
    now: () => deps.now(),
    async message(session, data) {
      const draft = deps.newDraft({ connection: session.connection, stage: 'message', subscription: null })
      draft.key = loggedText(session.state.apiKey!)
      draft.network = session.network.name
      let result: { outcome: MessageOutcome; status: number | null }
      try {
        result = messageOutcome(await deps.answerBody(session.state, data, draft, session.signal), () => severKey(session))
      } catch (err) {
        deps.logger.error('gateway failure', err)
        result = { outcome: { kind: 'send', data: JSON.stringify({ jsonrpc: '2.0', id: null, error: INTERNAL_ERROR_OBJECT }) }, status: 500 }
      }
      draft.status = result.status
      deps.record(draft, session.state.request.path.length)
      return result.outcome
    },
    ended(session) {
      const set = byKey.get(session.key.key)
      set?.delete(session)
      if (set?.size === 0) byKey.delete(session.key.key)
    },
    failed(err) {
      deps.logger.error('socket session failure', err)
    },
  }

  function open(state: RequestState, connection: number, sink: SocketSink): SocketSession {
    const session = new SocketSession(connection, state, sink, port)
    const key = state.key!.key
    let set = byKey.get(key)
    if (!set) byKey.set(key, (set = new Set()))
    set.add(session)
    return session
  }

  /** The rules, the handshake, the key's limit, a fault: a refusal, or the go-ahead. */
  async function decide(state: RequestState, draft: LogDraft, connection: number): Promise<UpgradeAnswer> {
    try {
      deps.applyRequestRules(state, draft)
      await deps.checkJwt(state)
      checkHandshake(state.request)
      const key = state.key!
      if (deps.ledger.limitReached(key) || deps.ledger.balance(key) < CHEAPEST_CALL) throw new DailyCreditsExceededError()
    } catch (err) {
      if (err instanceof GatewayError) return { accepted: false, response: toHttpResponse(err) }
      throw err
    }
    const fault = deps.faults.fire({ network: state.network!.name, key: state.key!.key, methods: [], stage: 'upgrade' })
    if (fault) {
      draft.fault = fault.kind
      const response = await deps.applyFault(fault, state.request.signal)
      if (response) return { accepted: false, response }
    }
    return { accepted: true, open: (sink) => open(state, connection, sink) }
  }

  return {
    async upgrade(request) {
      const connection = nextConnection++
      const draft = deps.newDraft({ connection, stage: 'upgrade', subscription: null })
      const state: RequestState = { request, secretVerified: false }
      let answer: UpgradeAnswer
      try {
        answer = await decide(state, draft, connection)
      } catch (err) {
        deps.logger.error('gateway failure', err)
        const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: INTERNAL_ERROR_OBJECT })
        answer = { accepted: false, response: { status: 500, headers: { 'content-type': 'application/json', 'content-length': String(body.length) }, body } }
      }
      draft.status = answer.accepted ? 101 : answer.response.destroy === true ? null : answer.response.status
      deps.record(draft, request.path.length)
      if (answer.accepted || answer.response.destroy === true) return answer
      return { accepted: false, response: deps.decorate(answer.response, header(request, 'origin')) }
    },
    sessions: () => [...byKey.values()].flatMap((set) => [...set]),
    closeAll() {
      for (const set of byKey.values()) for (const session of [...set]) session.close(CLOSE_SHUTDOWN.code, CLOSE_SHUTDOWN.reason)
    },
  }
}

/**
 * `deps` whose `record` writes a chain event's log entries, in order, in a microtask once every
 * socket has its frames: made between two sockets' frames, each held back every later subscriber
 * (100 subscribers: the last frame was 0.3-0.4 ms later). The charges stay in the event (they decide a sever).
 */
function afterTheFrames(deps: EventDeps): EventDeps {
  const queued: [LogDraft, number][] = []
  const write = () => {
    for (const [draft, keyParent] of queued.splice(0)) deps.record(draft, keyParent)
  }
  return {
    ...deps,
    record(draft, keyParent) {
      if (queued.push([draft, keyParent]) === 1) queueMicrotask(write)
    },
  }
}
