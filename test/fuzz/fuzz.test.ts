/**
 * The seeded fuzz run of `npm test`: a few thousand requests through a real server (careless and
 * hostile ones: see ./generate.ts), each answered with a documented status and body, no stack
 * trace, nothing logged as a failure, the ledger exact, the server still serving, the heap bounded.
 * `npm run fuzz` runs the same for longer (test/fuzz/cli.ts).
 */
import { describe, expect, it } from 'vitest'
import { gc } from '../support/heap.ts'
import { runFuzz } from './runFuzz.ts'

describe('fuzzing', () => {
  it('seed 1, 2,000 requests: only documented answers, exact credits, bounded memory', async () => {
    gc()
    const heapBefore = process.memoryUsage().heapUsed
    const figures = await runFuzz({ seed: 1, requests: 2000, concurrency: 8 })
    gc()
    gc()
    expect(figures.violations).toEqual([])
    expect(figures.requests).toBe(2000)
    expect(figures.creditsSpent).toBe(figures.creditsExpected)
    expect(figures.creditsSpent).toBeGreaterThan(0)
    // The server (in this process) is closed; what it kept is gone, what a leak keeps is not.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024)
  }, 600_000)
})
