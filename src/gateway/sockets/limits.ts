/**
 * The bounds of a WebSocket connection, in bytes and time, and the close codes the gateway ends
 * connections with. Defaults follow geth's WebSocket server where it has one, the service's
 * documented behaviour where it has one (an idle hour), and a peer's (Alchemy's 1,000
 * subscriptions and 200 requests in flight per connection) where neither has.
 */

export interface SocketLimits {
  /** Largest message a client may send, in bytes (geth's `wsDefaultReadLimit`, 32 MiB); over it the `ws` package closes with 1009. */
  readonly maxMessageBytes: number
  /** Subscriptions one connection may hold at once (eth_subscribe past it is refused). */
  readonly maxSubscriptions: number
  /** Bytes of the subscriptions' criteria one connection may hold (estimated as filters' are; eth_subscribe past it is refused). */
  readonly maxSubscriptionBytes: number
  /** Messages one connection may have in flight; past it the transport stops reading until answers go out. */
  readonly maxInFlight: number
  /** Bytes of the messages one connection has in flight; past it, reading stops too (one message more may be read). */
  readonly maxInFlightBytes: number
  /** Bytes of frames waiting to be written to a client before it counts as not reading: the connection is then terminated. */
  readonly maxBufferedBytes: number
  /** A connection with no message in either direction for this long is closed (1000, `idle timeout`). */
  readonly idleMs: number
  /** The transport pings this often, and terminates a connection whose pong has not come by the next ping (geth: 30 s). */
  readonly pingIntervalMs: number
}

export const DEFAULT_SOCKET_LIMITS: SocketLimits = Object.freeze({
  maxMessageBytes: 32 * 1024 * 1024,
  maxSubscriptions: 1000,
  maxSubscriptionBytes: 16 * 1024 * 1024,
  maxInFlight: 200,
  maxInFlightBytes: 32 * 1024 * 1024,
  maxBufferedBytes: 16 * 1024 * 1024,
  idleMs: 60 * 60 * 1000,
  pingIntervalMs: 30_000,
})

/** The most a Node timer can wait (2^31 - 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1

/** Validates limits given to `createGateway({ sockets })`; a `TypeError` names the field. */
export function parseSocketLimits(input: Partial<SocketLimits> = {}): SocketLimits {
  const limits = { ...DEFAULT_SOCKET_LIMITS, ...input }
  for (const [name, max] of [
    ['maxMessageBytes', 2 ** 31],
    ['maxSubscriptions', 1e9],
    ['maxSubscriptionBytes', 2 ** 40],
    ['maxInFlight', 1e9],
    ['maxInFlightBytes', 2 ** 40],
    ['maxBufferedBytes', 2 ** 40],
    ['idleMs', MAX_TIMER_MS],
    ['pingIntervalMs', MAX_TIMER_MS],
  ] as const) {
    const v = limits[name]
    if (!Number.isSafeInteger(v) || v < 1 || v > max) throw new TypeError(`sockets.${name} must be an integer from 1 to ${max}, got ${String(v)}`)
  }
  return Object.freeze(limits)
}

/**
 * Close codes (RFC 6455 7.4.1; gorilla/websocket names them the same) and their reasons.
 * - 1000 `idle timeout`: no message either way for `idleMs`.
 * - 1001 `server shutting down`: the server closes (gorilla's CloseGoingAway).
 * - 1008 at the daily credit limit (gorilla's ClosePolicyViolation, also what Alchemy closes over
 *   its limits with), after a final text frame: the 402 body.
 * - 1009: a message over `maxMessageBytes` (the `ws` package sends it, as gorilla does).
 * A client that does not read gets no close frame: it would wait behind what the client does not
 * read, so the connection is terminated (the client sees 1006).
 */
export const CLOSE_IDLE = { code: 1000, reason: 'idle timeout' } as const
export const CLOSE_SHUTDOWN = { code: 1001, reason: 'server shutting down' } as const
export const CLOSE_DAILY_LIMIT = { code: 1008, reason: 'daily credit limit reached' } as const
