/**
 * `npm run fuzz`: the fuzz run of test/fuzz/fuzz.test.ts, longer and with figures: requests,
 * seconds, answers by kind and status, the ledger against the documented prices, resident memory.
 * Exits 1 on any violation.
 *
 *   npm run fuzz -- --seed 7 --requests 100000 --minutes 10 --concurrency 8
 */
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { runFuzz } from './runFuzz.ts'
import type { FuzzFigures } from './runFuzz.ts'

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    requests: { type: 'string' },
    minutes: { type: 'string' },
    concurrency: { type: 'string' },
  },
})
const seed = Number(values.seed ?? 1)
const requests = Number(values.requests ?? 50_000)
const maxMs = Number(values.minutes ?? 5) * 60_000
const concurrency = Number(values.concurrency ?? 8)
const line = (f: FuzzFigures) =>
  `${f.requests} requests in ${f.seconds.toFixed(0)} s, RSS ${f.rssMiB.toFixed(0)} MiB, ${f.violations.length} violations`

process.stderr.write(`fuzz: seed ${seed}, up to ${requests} requests or ${maxMs / 60_000} min, ${concurrency} in flight; load average ${loadavg().map((v) => v.toFixed(2)).join(', ')}\n`)
const figures = await runFuzz({ seed, requests, maxMs, concurrency, progressEvery: 5000, onProgress: (f) => process.stderr.write(`  ${line(f)}\n`) })
const statuses = Object.entries(figures.statuses)
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([k, n]) => `${k}: ${n}`)
  .join(', ')
process.stdout.write(
  [
    `seed ${figures.seed}: ${figures.requests} requests in ${figures.seconds.toFixed(1)} s (${(figures.requests / figures.seconds).toFixed(0)}/s)`,
    `answers: ${statuses}`,
    `credits: ledger spent ${figures.creditsSpent}, documented prices of what was answered ${figures.creditsExpected} (${figures.creditsSpent === figures.creditsExpected ? 'exact' : 'DIFFERENT'})`,
    `memory at the end: RSS ${figures.rssMiB.toFixed(0)} MiB, heap ${figures.heapMiB.toFixed(0)} MiB`,
    `failures logged by the server: ${figures.failuresLogged.length}`,
    `violations: ${figures.violations.length}`,
    ...figures.violations.map((v) => `  ${v.slice(0, 500)}`),
    `load average: ${loadavg().map((v) => v.toFixed(2)).join(', ')}`,
    '',
  ].join('\n'),
)
process.exitCode = figures.violations.length === 0 ? 0 : 1
