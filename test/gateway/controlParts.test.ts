/** The control facet's parts on their own: the request log's bounds, the clock's offset, the PRNG. */
import { describe, expect, it } from 'vitest'
import { createControllableClock } from '../../src/gateway/clock.ts'
import { createPrng } from '../../src/gateway/faults.ts'
import { RequestLog } from '../../src/gateway/requestLog.ts'
import { manualClock } from './helpers.ts'

const draft = { time: '2025-01-01T00:00:00.000Z', key: 'k', network: 'ethereum', batch: false, calls: [], credits: 0, status: 200, fault: null, transport: 'http' as const, socket: null }

describe('RequestLog', () => {
  it('keeps the last entries; seq goes on across clear; truncate goes back to a position', () => {
    const log = new RequestLog(3)
    for (let i = 0; i < 5; i++) log.record(draft)
    expect(log.entries().map((e) => e.seq)).toEqual([3, 4, 5])
    expect(log.entries(4).map((e) => e.seq)).toEqual([5])
    log.truncate(4)
    expect(log.position).toBe(4)
    expect(log.record(draft).seq).toBe(5)
    log.clear()
    expect(log.entries()).toEqual([])
    expect(log.record(draft).seq).toBe(6)
  })
})

describe('createControllableClock', () => {
  it('sets, advances and resets an offset over its base clock', () => {
    const base = manualClock('2025-01-01T00:00:00Z')
    const clock = createControllableClock(base)
    clock.set(Date.parse('2025-06-01T23:59:59Z'))
    clock.advance(1.5)
    expect(new Date(clock.now()).toISOString()).toBe('2025-06-02T00:00:00.500Z')
    base.set('2025-01-01T00:00:01Z')
    expect(new Date(clock.now()).toISOString()).toBe('2025-06-02T00:00:01.500Z')
    clock.reset()
    expect(clock.now()).toBe(base.now())
  })
})

describe('createPrng', () => {
  it('is deterministic per seed and answers in [0, 1)', () => {
    const a = createPrng(1)
    const b = createPrng(1)
    const xs = Array.from({ length: 1000 }, () => a())
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()))
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0)
    expect(Math.max(...xs)).toBeLessThan(1)
    expect(xs.filter((x) => x < 0.3).length).toBeGreaterThan(250)
    expect(xs.filter((x) => x < 0.3).length).toBeLessThan(350)
  })
})
