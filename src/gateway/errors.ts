/**
 * The gateway's refusals, in the hosted service's shapes (shared/reference/infura-behaviors.md
 * §1-3, §7-8, §11). Each class carries its JSON-RPC `code` (it is an `RpcError`), its HTTP status
 * and how its body is written; `toHttpResponse` in ./response.ts is the one serializer.
 *
 * Body kinds, as the real service writes them:
 * - `text`: a Go `http.Error` body: the message plus `\n`, `text/plain; charset=utf-8`, `nosniff`
 *   (401s, 404s).
 * - `rpc-text`: a JSON-RPC error object without `id`, plus `\n`, served as `text/plain` (the
 *   allowlist 403).
 * - `rpc-limit`: JSON-RPC with `error.code` = HTTP status and the Infura `event`/`details` fields
 *   (402, 429), `application/json`.
 * - `empty`: no body (405).
 * - `profile`: another provider's refusal, its body written by its profile (./profiles/refusal.ts).
 */
import { RpcError } from '../rpc/errors.ts'

export type ErrorBodyKind = 'text' | 'rpc-text' | 'rpc-limit' | 'empty' | 'profile'

/** JSON-RPC code the real service uses for key-settings refusals (`rejected due to project ID settings`). */
export const PROJECT_SETTINGS_CODE = -32002

export abstract class GatewayError extends RpcError {
  override readonly name: string = 'GatewayError'
  abstract readonly httpStatus: number
  abstract readonly bodyKind: ErrorBodyKind
  /** Response headers of this error besides content type/length, lowercase names. */
  readonly headers: Readonly<Record<string, string>> = {}
}

/** A 401 with a plain-text body and a `www-authenticate: Basic realm="..."` challenge. */
abstract class UnauthorizedError extends GatewayError {
  readonly httpStatus = 401
  readonly bodyKind = 'text'
  override readonly headers: Readonly<Record<string, string>>
  constructor(message: string, realm: string) {
    super(PROJECT_SETTINGS_CODE, message)
    this.headers = { 'www-authenticate': `Basic realm="${realm}"` }
  }
}

/** `/v3` or `/v3/` without a key. Body and realm as captured in 2022 (lowercase `url` in the body). */
export class ProjectIdRequiredError extends UnauthorizedError {
  override readonly name = 'ProjectIdRequiredError'
  constructor() {
    super('project id required in the url', 'Project ID is required in the URL')
  }
}

/** A key the gateway does not know. Body and realm as captured in 2020. */
export class InvalidProjectIdError extends UnauthorizedError {
  override readonly name = 'InvalidProjectIdError'
  constructor() {
    super('invalid project id', 'Auth failure, invalid project id')
  }
}

/** A wrong key secret. Body from the docs' error table; the realm follows the captured pattern (a choice). */
export class InvalidProjectSecretError extends UnauthorizedError {
  override readonly name = 'InvalidProjectSecretError'
  constructor() {
    super('invalid project id or project secret', 'Auth failure, invalid project id or project secret')
  }
}

/** The network is served but not enabled for the key (the 2025 form; realm is a choice). */
export class NetworkNotEnabledError extends UnauthorizedError {
  override readonly name = 'NetworkNotEnabledError'
  constructor() {
    super(
      'project ID does not have access to this network',
      'Auth failure, project ID does not have access to this network',
    )
  }
}

/**
 * An allowlist refused the request, or the key requires its secret and none was sent: 403, the
 * JSON-RPC error object (no `id`) plus `\n`, served as text/plain. `reason` is for logs only.
 */
export class RejectedBySettingsError extends GatewayError {
  override readonly name = 'RejectedBySettingsError'
  readonly httpStatus = 403
  readonly bodyKind = 'rpc-text'
  readonly reason: string
  constructor(reason: string) {
    super(PROJECT_SETTINGS_CODE, 'rejected due to project ID settings')
    this.reason = reason
  }
}

/** An Infura limit refusal: `error.code` is the HTTP status, `event` the Infura event number. */
export abstract class LimitError extends GatewayError {
  readonly bodyKind = 'rpc-limit'
  abstract readonly event: number
  abstract readonly details: string
}

/** The key's daily credits cannot pay for the request (402, event -33000). */
export class DailyCreditsExceededError extends LimitError {
  override readonly name = 'DailyCreditsExceededError'
  readonly httpStatus = 402
  readonly event = -33000
  readonly details =
    'You have reached your daily credit limit. To continue making requests, upgrade your plan or purchase additional credits'
  constructor() {
    super(402, 'Payment Required')
  }
}

/** The key's per-second credit throughput is used up for this second (429, event -33200). */
export class ThroughputExceededError extends LimitError {
  override readonly name = 'ThroughputExceededError'
  readonly httpStatus = 429
  readonly event = -33200
  readonly details =
    'You have surpassed your allowed throughput limit. Reduce the amount of requests per second or upgrade for more capacity.'
  constructor() {
    super(429, 'Too Many Requests')
  }
}

/**
 * The key's own per-second credit cap (a user-defined key setting below the account's plan) is
 * used up for this second (429, event -33300; wording from the service's "set rate limits" page).
 */
export class KeyThroughputExceededError extends LimitError {
  override readonly name = 'KeyThroughputExceededError'
  readonly httpStatus = 429
  readonly event = -33300
  readonly details =
    'You have surpassed your user-defined key throughput limit setting. To make more requests with this key, review key setting configurations.'
  constructor() {
    super(429, 'Too Many Requests')
  }
}

/**
 * The key's own daily credit cap is used up: the key is refused until 00:00 UTC (429, event
 * -33400). The service's error table names the event only ("Too Many Requests", a user-defined
 * daily limit); the details are written after the -33300 body's (a choice).
 */
export class KeyDailyLimitExceededError extends LimitError {
  override readonly name = 'KeyDailyLimitExceededError'
  readonly httpStatus = 429
  readonly event = -33400
  readonly details =
    'You have surpassed your user-defined key daily credit limit setting. To make more requests with this key, review key setting configurations.'
  constructor() {
    super(429, 'Too Many Requests')
  }
}

/**
 * A key that requires a JWT got none, or any key got one that does not verify (bad signature,
 * expired, wrong audience, unknown key id): 401 `invalid JWT`, the service's error table's body,
 * plain text as its other 401s. The realm follows their pattern (a choice); `reason` is for logs.
 */
export class InvalidJwtError extends UnauthorizedError {
  override readonly name = 'InvalidJwtError'
  readonly reason: string
  constructor(reason: string) {
    super('invalid JWT', 'Auth failure, invalid JWT')
    this.reason = reason
  }
}

/** A plain-text refusal that is not an authentication failure (no challenge header). */
abstract class PlainTextError extends GatewayError {
  readonly bodyKind = 'text'
}

/** The Host names no network this gateway serves (a choice: the real service has no such host). */
export class UnknownNetworkError extends PlainTextError {
  override readonly name = 'UnknownNetworkError'
  readonly httpStatus = 404
  constructor(host: string, served: readonly string[]) {
    const list = served.length > 0 ? served.join(', ') : 'none'
    super(-32001, `no network is served at host "${host}"; hosts served: ${list}`)
  }
}

/**
 * On a network's own port, a Host naming another network (`<other>-mainnet.<serviceHost>`): the
 * client meant that network, which this port does not serve (a choice, as the 404 above).
 */
export class OtherNetworkHostError extends PlainTextError {
  override readonly name = 'OtherNetworkHostError'
  readonly httpStatus = 404
  constructor(host: string, lane: { readonly name: string; readonly host: string }) {
    super(-32001, `this port serves network "${lane.name}" only (host ${lane.host}); host "${host}" names another network`)
  }
}

/** Any path but `/v3/<key>`: Go's default not-found body (a choice). */
export class PathNotFoundError extends PlainTextError {
  override readonly name = 'PathNotFoundError'
  readonly httpStatus = 404
  constructor() {
    super(-32001, '404 page not found')
  }
}

/** A request body over the size limit (geth's limit, 5 MiB). */
export class PayloadTooLargeError extends PlainTextError {
  override readonly name = 'PayloadTooLargeError'
  readonly httpStatus = 413
  constructor() {
    super(-32600, 'request entity too large')
  }
}

/** Any HTTP method but POST (and OPTIONS preflight) on `/v3/<key>`: 405, empty body, as in 2018. */
export class HttpMethodNotAllowedError extends GatewayError {
  override readonly name = 'HttpMethodNotAllowedError'
  readonly httpStatus = 405
  readonly bodyKind = 'empty'
  override readonly headers = { allow: 'POST, OPTIONS' }
  constructor(method: string) {
    super(-32601, `HTTP method ${method} is not allowed`)
  }
}

/**
 * A WebSocket upgrade gorilla/websocket's `Upgrader` refuses (the service's WebSocket server is
 * Go): Go's `http.Error` with the status text as body, and `sec-websocket-version: 13`.
 * `reason` is gorilla's own wording, for logs only.
 */
export class WebSocketHandshakeError extends PlainTextError {
  override readonly name = 'WebSocketHandshakeError'
  readonly httpStatus: number
  override readonly headers: Readonly<Record<string, string>>
  readonly reason: string
  constructor(status: 400 | 405 | 426, reason: string) {
    super(-32600, { 400: 'Bad Request', 405: 'Method Not Allowed', 426: 'Upgrade Required' }[status])
    this.httpStatus = status
    this.reason = reason
    this.headers = status === 426 ? { upgrade: 'websocket', 'sec-websocket-version': '13' } : { 'sec-websocket-version': '13' }
  }
}

/**
 * A connection past a listening port's bound (`maxConnections`): 503 with `retry-after: 1`, then
 * the connection closes (a choice: the service documents no bound; Go's `netutil.LimitListener`
 * would leave it waiting in the kernel's queue instead). viem and ethers retry a 503.
 */
export class TooManyConnectionsError extends PlainTextError {
  override readonly name = 'TooManyConnectionsError'
  readonly httpStatus = 503
  override readonly headers = { 'retry-after': '1' }
  constructor(max: number) {
    super(-32005, `too many connections: this port holds at most ${max} at once (maxConnections); close idle ones or raise the bound`)
  }
}
