/**
 * What a fired fault answers over HTTP (./faults.ts decides which fires): the service's 429, 402 and
 * 5xx bodies, a dropped connection, or the request held (`timeout`, `latency`) until its time is up,
 * its client goes away, or the gateway closes. Held requests are kept here so that `close()`
 * releases every one and nothing waits on a closed server.
 */
import type { JsonRpcId } from '../rpc/types.ts'
import type { Fault } from './faults.ts'
import { dailyLimitResponse, droppedResponse, rateLimitResponse, serverErrorResponse } from './response.ts'
import type { HttpResponse } from './response.ts'

/**
 * How long a `timeout` fault without `ms` holds a request before the 504: an AWS load balancer's
 * default idle timeout, so a client that never gives up (ethers keeps its socket) is not held forever.
 */
export const LOAD_BALANCER_IDLE_TIMEOUT_MS = 60_000

export class FaultAnswers {
  /** Releases of the requests faults are holding. */
  readonly #held = new Set<() => void>()

  /**
   * Waits `ms` unless released first by the client going away or `releaseAll()`: true when the
   * time ran out, false when released.
   */
  hold(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
    const held = this.#held
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined
      const finish = (elapsed: boolean) => {
        if (timer !== undefined) clearTimeout(timer)
        signal?.removeEventListener('abort', release)
        held.delete(release)
        resolve(elapsed)
      }
      const release = () => finish(false)
      if (signal?.aborted) {
        resolve(false)
        return
      }
      held.add(release)
      signal?.addEventListener('abort', release, { once: true })
      timer = setTimeout(() => finish(true), ms)
    })
  }

  /** Releases every held request as a dropped connection. */
  releaseAll(): void {
    for (const release of [...this.#held]) release()
  }

  /** The faulted answer; undefined when the request goes on (latency served). */
  async answer(fault: Fault, id: JsonRpcId, signal: AbortSignal | undefined): Promise<HttpResponse | undefined> {
    switch (fault.kind) {
      case 'close':
      case 'stall':
        // Socket-only kinds never fire on HTTP (faults.ts KIND_STAGES); a socket carries them out.
        return droppedResponse()
      case 'rateLimit':
        return rateLimitResponse(id, fault.retryAfter)
      case 'dailyLimit':
        return dailyLimitResponse(id)
      case 'serverError':
        return serverErrorResponse(fault.status ?? 503, id)
      case 'drop':
        return droppedResponse()
      case 'timeout':
        return (await this.hold(fault.ms ?? LOAD_BALANCER_IDLE_TIMEOUT_MS, signal)) ? serverErrorResponse(504, id) : droppedResponse()
      case 'latency':
        return (await this.hold(fault.ms ?? 0, signal)) ? undefined : droppedResponse()
    }
  }
}
