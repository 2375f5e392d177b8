/**
 * The request log's times (`IsoTimes`, src/gateway/logEntry.ts) against `Date#toISOString`, which
 * they stand in for: every millisecond of a few seconds in order, second, minute, day and year
 * boundaries, times before 1970 and past year 9999, repeated and backward times, a fraction.
 */
import { describe, expect, it } from 'vitest'
import { IsoTimes } from '../../src/gateway/logEntry.ts'

describe('IsoTimes', () => {
  it('writes each millisecond as Date#toISOString does', () => {
    const times = new IsoTimes()
    const start = Date.UTC(2026, 10, 27, 23, 59, 58, 0)
    for (let ms = start; ms < start + 3000; ms++) expect(times.of(ms)).toBe(new Date(ms).toISOString())
  })

  it('agrees at boundaries, before 1970, past year 9999, backwards and on repeats', () => {
    const times = new IsoTimes()
    const samples = [
      0, -0, 1, -1, 999, 1000, -999, -1000, -1001, 9, 10, 99, 100,
      Date.UTC(1969, 11, 31, 23, 59, 59, 999), Date.UTC(2000, 1, 29, 12, 0, 0, 7), Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10000, 0, 1, 0, 0, 0, 42), Date.UTC(-1, 5, 1, 0, 0, 0, 5), 8.64e15, -8.64e15, 1_700_000_000_123, 1_700_000_000_123, 1_600_000_000_050,
    ]
    for (const ms of samples) expect(times.of(ms)).toBe(new Date(ms).toISOString())
  })

  it('leaves a fraction of a millisecond and an invalid time to Date', () => {
    const times = new IsoTimes()
    expect(times.of(1_700_000_000_123.75)).toBe(new Date(1_700_000_000_123.75).toISOString())
    expect(() => times.of(8.64e15 + 1)).toThrow(RangeError)
    expect(() => times.of(Number.NaN)).toThrow(RangeError)
  })
})
