/**
 * The gateway's clock, controllable by tests: an offset over a base clock (the system clock, or
 * one a test injected). Setting the time or advancing it moves the offset, so time keeps flowing
 * at the base clock's pace from the new point; over a base clock that never moves (a test's
 * manual clock), the time stays where it was put. The credit ledger's days follow it, so a suite
 * can cross 00:00 UTC without waiting.
 */
import type { Clock } from './credits.ts'
import { systemClock } from './credits.ts'

export interface ControllableClock extends Clock {
  /** Makes `now()` answer `ms` (ms since the Unix epoch) from here on, plus the base clock's progress. */
  set(ms: number): void
  /** Moves the time forward (or back, if negative) by `seconds`. */
  advance(seconds: number): void
  /** Back to the base clock's own time (offset 0). */
  reset(): void
  /** How far `now()` is from the base clock, in ms. */
  readonly offsetMs: number
}

export function createControllableClock(base: Clock = systemClock): ControllableClock {
  let offset = 0
  return {
    now: () => base.now() + offset,
    set(ms) {
      offset = ms - base.now()
    },
    advance(seconds) {
      offset += Math.round(seconds * 1000)
    },
    reset() {
      offset = 0
    },
    get offsetMs() {
      return offset
    },
  }
}
