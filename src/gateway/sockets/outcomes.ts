/**
 * What a socket's traffic comes to: a message's answer as frames (or a close, a drop, a severed
 * connection), and a notification's fault, charge and log entry. The service's 402 on a socket
 * severs it with a final frame (`SEVERED_FRAME`: the 402 body, id null).
 */
import type { CreditLedger } from '../credits.ts'
import { DailyCreditsExceededError, ThroughputExceededError } from '../errors.ts'
import type { GatewayError } from '../errors.ts'
import type { Fault, FaultBook } from '../faults.ts'
import { loggedText } from '../requestLog.ts'
import type { LogDraft, SocketLogInfo } from '../requestLog.ts'
import type { LoggedCall } from '../logEntry.ts'
import type { HttpResponse } from '../response.ts'
import { errorFrame, INTERNAL_ERROR_OBJECT, refusalErrorObject } from './frames.ts'
import type { MessageCalls } from './frames.ts'
import type { EventOutcome, MessageOutcome, SocketSession } from './session.ts'
import type { Notification } from './subscriptions.ts'

/** What the core's body path comes to (`answerBody`). */
export interface Answered {
  readonly response: HttpResponse
  /** The body's calls, once it was read. */
  readonly calls?: MessageCalls
  /** The fault that answered instead of the calls (not a latency served). */
  readonly faulted?: Fault
  /** The refusal of a call rule or the ledger. */
  readonly refusal?: GatewayError
}

/** What a notification's outcome needs of the gateway. */
export interface EventDeps {
  readonly ledger: CreditLedger
  readonly faults: FaultBook
  newDraft(socket: SocketLogInfo): LogDraft
  record(draft: LogDraft, keyParent: number): void
}

export const DAILY_LIMIT_OBJECT = refusalErrorObject(new DailyCreditsExceededError())
/** The final frame of a socket severed by another's message or a notification: the 402 body, id null. */
export const SEVERED_FRAME = JSON.stringify({ jsonrpc: '2.0', id: null, error: DAILY_LIMIT_OBJECT })

/** What a message's answer becomes on the socket, and the status logged; `sever`: the key met its daily limit. */
export function messageOutcome(answered: Answered, sever: () => void): { outcome: MessageOutcome; status: number | null } {
  const { response, faulted, refusal } = answered
  const calls = answered.calls ?? { batch: false, ids: [null] }
  const frames = (error: object): MessageOutcome => ({ kind: 'send', data: errorFrame(calls, error) })
  if (faulted) {
    switch (faulted.kind) {
      case 'rateLimit':
        return { outcome: frames(refusalErrorObject(new ThroughputExceededError())), status: 429 }
      case 'dailyLimit':
        // The service's 402 on this socket: severed, the key's ledger untouched (faults charge nothing).
        return { outcome: { kind: 'sever', data: errorFrame(calls, DAILY_LIMIT_OBJECT) ?? SEVERED_FRAME }, status: 402 }
      case 'serverError':
        return { outcome: frames(INTERNAL_ERROR_OBJECT), status: response.status }
      case 'close':
        return { outcome: { kind: 'close', code: faulted.code!, reason: faulted.reason ?? '' }, status: null }
      case 'drop':
        return { outcome: { kind: 'drop' }, status: null }
      default:
        // timeout (left unanswered), or a latency released because the connection went away.
        return { outcome: { kind: 'none' }, status: null }
    }
  }
  if (refusal instanceof DailyCreditsExceededError) {
    sever()
    return { outcome: { kind: 'sever', data: errorFrame(calls, DAILY_LIMIT_OBJECT) ?? SEVERED_FRAME }, status: 402 }
  }
  if (refusal) return { outcome: frames(refusalErrorObject(refusal)), status: refusal.httpStatus }
  return { outcome: { kind: 'send', data: response.body === '' ? undefined : response.body }, status: response.status }
}


/** A notification's frames as its log entry's calls: the event's credits on the first; `outcome` 'ok' once sent. */
function loggedCalls(notification: Notification, outcome: 'ok' | null): LoggedCall[] {
  return notification.frames.map((_, i) => ({ method: 'eth_subscription', credits: i === 0 ? notification.credits : 0, outcome }))
}

/** A notification: a fault (unless a stall held it), the charge, the log entry. */
export function notificationOutcome(
  deps: EventDeps,
  session: SocketSession,
  notification: Notification,
  held: boolean,
  severKey: (session: SocketSession) => void,
): EventOutcome {
  const draft = deps.newDraft({ connection: session.connection, stage: 'event', subscription: notification.subscription })
  draft.key = loggedText(session.state.apiKey!)
  draft.network = session.network.name
  if (held) draft.fault = 'stall'
  const fault = held ? undefined : deps.faults.fire({ network: session.network.name, key: session.key.key, methods: ['eth_subscription'], stage: 'event' })
  let outcome: EventOutcome
  if (fault?.kind === 'stall') {
    // Logged when the stall releases it.
    return { kind: 'stall', ms: fault.ms! }
  } else if (fault) {
    draft.fault = fault.kind
    draft.calls = loggedCalls(notification, null)
    outcome = fault.kind === 'close' ? { kind: 'close', code: fault.code!, reason: fault.reason ?? '' } : { kind: 'drop' }
  } else {
    try {
      deps.ledger.chargeEvent(session.key, notification.credits)
      draft.credits = notification.credits
      draft.calls = loggedCalls(notification, 'ok')
      draft.status = 200
      outcome = { kind: 'send' }
    } catch (err) {
      if (!(err instanceof DailyCreditsExceededError)) throw err
      severKey(session)
      draft.calls = loggedCalls(notification, null)
      draft.status = 402
      outcome = { kind: 'sever', data: SEVERED_FRAME }
    }
  }
  deps.record(draft, session.state.request.path.length)
  return outcome
}

