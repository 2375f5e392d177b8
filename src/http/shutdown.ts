/**
 * A graceful stop for a `node:http` server: no new connections; requests in flight are answered
 * (each with `connection: close`, so clients do not send more on the connection), idle keep-alive
 * connections are closed as soon as they are idle; after `graceMs`, whatever is left is cut.
 * SIGTERM and SIGINT stop the CLI this way (src/cli.ts).
 */
import type { Server, ServerResponse } from 'node:http'

/** How long a graceful stop waits for requests in flight. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5000
/** How often idle connections are closed while draining. */
const IDLE_POLL_MS = 20

export interface Drainer {
  /** Whether a stop is under way (answers then carry `connection: close`). */
  readonly draining: boolean
  /** Marks an answer of a request arriving while draining. */
  mark(res: ServerResponse): void
  /**
   * Stops accepting, waits for the requests in flight (at most `graceMs`), then cuts what is left
   * (`cut` runs first: it releases what the gateway holds). Resolves when every connection is closed.
   */
  drain(graceMs: number, cut: () => void): Promise<void>
}

export function createDrainer(server: Server): Drainer {
  let draining = false
  let stopped: Promise<void> | undefined
  return {
    get draining() {
      return draining
    },
    mark(res) {
      res.setHeader('connection', 'close')
    },
    drain(graceMs, cut) {
      stopped ??= new Promise<void>((resolve) => {
        draining = true
        // Requests already dispatched finish with their own headers: their connection is closed once idle.
        const poll = setInterval(() => server.closeIdleConnections(), IDLE_POLL_MS)
        const deadline = setTimeout(() => {
          cut()
          server.closeAllConnections()
        }, graceMs)
        server.close(() => {
          clearInterval(poll)
          clearTimeout(deadline)
          resolve()
        })
        server.closeIdleConnections()
      })
      return stopped
    },
  }
}
