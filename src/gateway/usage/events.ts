/**
 * The control event stream's source: quota alerts (../credits.ts `QuotaAlert`) as they happen,
 * the last `RECENT_ALERTS` kept for a reader that comes later. The HTTP control routes serve it
 * as server-sent events (`GET /_double/events`).
 */
import type { QuotaAlert } from '../credits.ts'

export const RECENT_ALERTS = 100

export class ControlEvents {
  readonly #recent: QuotaAlert[] = []
  readonly #listeners = new Set<(alert: QuotaAlert) => void>()

  emit(alert: QuotaAlert): void {
    this.#recent.push(alert)
    if (this.#recent.length > RECENT_ALERTS) this.#recent.shift()
    for (const listener of this.#listeners) listener(alert)
  }

  /** The last alerts, oldest first. */
  recent(): QuotaAlert[] {
    return [...this.#recent]
  }

  /** Calls `listener` with each alert from now on; returns the unsubscribe. */
  subscribe(listener: (alert: QuotaAlert) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }
}
