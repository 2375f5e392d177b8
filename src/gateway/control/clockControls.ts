/**
 * The clock controls: read, set (an absolute time and/or an advance), reset to the base clock. The
 * ledger's 00:00 UTC and the timestamps of mined blocks follow the gateway's clock. A refused input
 * moves nothing.
 */
import type { ControllableClock } from '../clock.ts'
import { ControlInputError } from '../controlError.ts'
import { isRecord, iso, show } from './shared.ts'
import type { GatewayControl } from './types.ts'

export type ClockControls = Pick<GatewayControl, 'clock' | 'setClock' | 'resetClock'>

/**
 * The times the control clock can be set to: from the Unix epoch (block timestamps are unsigned)
 * to the last millisecond of year 9999 (ISO 8601's four-digit years), far inside what a `Date`
 * holds (±8.64e15 ms), so the clock can run on from there without leaving it.
 */
export const CLOCK_MIN_MS = 0
export const CLOCK_MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999)
const CLOCK_RANGE_TEXT = `${iso(CLOCK_MIN_MS)} to ${iso(CLOCK_MAX_MS)}`

/** ISO 8601 with a zone (`Z` or `±hh:mm`), or a date alone (UTC): a time without zone would be local. */
const ISO_TIME_RE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/

function inClockRange(ms: number): boolean {
  return Number.isSafeInteger(ms) && ms >= CLOCK_MIN_MS && ms <= CLOCK_MAX_MS
}

/** A control clock `time`: an ISO 8601 string or integer ms since the epoch, within the range. */
function parseClockTime(time: unknown): number {
  const ms = typeof time === 'number' ? time : typeof time === 'string' && ISO_TIME_RE.test(time) ? Date.parse(time) : Number.NaN
  if (!Number.isSafeInteger(ms)) {
    throw new ControlInputError('time', `must be an ISO 8601 time or ms since the epoch, got ${show(time)}`)
  }
  if (!inClockRange(ms)) throw new ControlInputError('time', `must be from ${CLOCK_RANGE_TEXT}, got ${show(time)}`)
  return ms
}

export function createClockControls(deps: { readonly clock: ControllableClock }): ClockControls {
  const { clock } = deps
  const clockInfo = () => {
    const ms = clock.now()
    return { now: iso(ms), ms, offsetMs: clock.offsetMs }
  }
  return {
    clock: clockInfo,

    setClock(input) {
      if (!isRecord(input)) throw new ControlInputError('clock', `must be an object, got ${show(input)}`)
      for (const name of Object.keys(input)) {
        if (name !== 'time' && name !== 'advanceSeconds') throw new ControlInputError(name, 'unknown field (allowed: time, advanceSeconds)')
      }
      const { time, advanceSeconds } = input
      if (time === undefined && advanceSeconds === undefined) throw new ControlInputError('time', 'give time, advanceSeconds, or both')
      // Everything is checked before anything moves: a refused input leaves the clock as it was.
      const ms = time === undefined ? undefined : parseClockTime(time)
      let advanceMs = 0
      if (advanceSeconds !== undefined) {
        if (typeof advanceSeconds !== 'number' || !Number.isFinite(advanceSeconds)) {
          throw new ControlInputError('advanceSeconds', `must be a number of seconds, got ${show(advanceSeconds)}`)
        }
        advanceMs = Math.round(advanceSeconds * 1000)
        if (!inClockRange((ms ?? clock.now()) + advanceMs)) {
          throw new ControlInputError('advanceSeconds', `would move the clock outside ${CLOCK_RANGE_TEXT}, got ${show(advanceSeconds)}`)
        }
      }
      if (ms !== undefined) clock.set(ms + advanceMs)
      else clock.advance(advanceMs / 1000)
      return clockInfo()
    },

    resetClock() {
      clock.reset()
      return clockInfo()
    },
  }
}
