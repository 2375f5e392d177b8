/**
 * Interval mining (`evm_setIntervalMining`): a timer per network that mines a block every N
 * seconds with whatever the pool holds, while sent transactions wait for it (the chain's `manual`
 * mode). Timers never keep the process alive (`unref`), a tick is skipped while the previous
 * block is still being mined, a failure is logged and the timer goes on, and `close()` (the
 * gateway's, which `server.close()` calls) stops them all.
 */
import type { Logger } from './backend.ts'
import type { Network } from './request.ts'

export class IntervalMining {
  readonly #logger: Logger
  readonly #timers = new Map<string, { seconds: number; timer: NodeJS.Timeout }>()

  constructor(logger: Logger) {
    this.#logger = logger
  }

  /** Mines on `network` every `seconds` (replacing its timer); 0 stops. The chain goes `manual`. */
  set(network: Network, seconds: number): void {
    this.stop(network.name)
    if (seconds <= 0) return
    network.chain.setMiningMode('manual')
    let busy = false
    const timer = setInterval(() => {
      if (busy) return
      busy = true
      network.chain
        .mine()
        .catch((err: unknown) => this.#logger.error(`interval mining on ${network.name} failed`, err))
        .finally(() => {
          busy = false
        })
    }, seconds * 1000)
    timer.unref()
    this.#timers.set(network.name, { seconds, timer })
  }

  /** The period in seconds, or null. */
  get(name: string): number | null {
    return this.#timers.get(name)?.seconds ?? null
  }

  stop(name: string): void {
    const t = this.#timers.get(name)
    if (t) clearInterval(t.timer)
    this.#timers.delete(name)
  }

  close(): void {
    for (const name of [...this.#timers.keys()]) this.stop(name)
  }
}
