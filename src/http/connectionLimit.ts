/**
 * The bound on a listening port's open connections (HTTP keep-alive and WebSocket alike: an
 * upgraded connection stays counted until it closes). A connection accepted past the bound is
 * answered 503 (`TooManyConnectionsError`, `retry-after: 1`) on its first request or upgrade, then
 * closed; one that sends nothing is closed after `idleMs`. The check on the request path is one
 * comparison while the port is under its bound.
 */
import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'

/** Connections a listening port holds at once unless the config says otherwise (`maxConnections`). */
export const DEFAULT_MAX_CONNECTIONS = 1000

/** How long a connection past the bound may wait to send its request before it is closed. */
const OVER_BOUND_IDLE_MS = 5000

export interface ConnectionLimit {
  readonly max: number
  /** Connections open now. */
  readonly open: number
  /** Whether this connection came past the bound: its requests are refused. */
  refuses(socket: Duplex): boolean
}

export function limitConnections(server: Server, max: number): ConnectionLimit {
  let open = 0
  const over = new WeakSet<Duplex>()
  server.on('connection', (socket: Socket) => {
    open++
    socket.once('close', () => open--)
    if (open > max) {
      over.add(socket)
      socket.setTimeout(OVER_BOUND_IDLE_MS, () => socket.destroy())
    }
  })
  return {
    max,
    get open() {
      return open
    },
    refuses: (socket) => open >= max && over.has(socket),
  }
}
