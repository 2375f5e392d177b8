/**
 * `npm run bench:robustness`: what a heavy or hostile client costs everyone else (issue 11).
 *
 * 1. **Reads under heavy calls.** Two gateway-double children on the default fixtures, taking
 *    turns (A, B, A, B...): A as before the time limit (executions never yield, no limit:
 *    `evmSliceMs: 0, evmTimeoutMs: 0`), B as shipped (10 ms slices, 5 s limit). Against each,
 *    `--heavy` connections send batches of 10 `eth_call`s to the Reverter's gas-burning loop
 *    (2^24 gas each, out of gas after about 0.6 s) while one connection sends `eth_blockNumber`
 *    back to back: its p50/p99 is what any other client of a saturated server sees.
 * 2. **Memory under maximal requests.** A fresh server takes `--maximal` requests of a 5 MiB body
 *    whose method name is 5 MiB (each answered -32601, its method logged cut); its resident
 *    memory before and after.
 *
 * Prints one table, with the load average before and after (the machine is shared: compare the
 * two servers of one run, not runs).
 */
import { keccak256 } from 'ethereum-cryptography/keccak.js'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { ROOT } from './fixture.ts'
import type { FromServer } from './gatewayServer.ts'
import { percentile, runLoad } from './load.ts'
import type { LoadResult } from './load.ts'
import type { Endpoint, TrackedChild } from './processes.ts'
import { residentMemory, spawnTracked, stopAll } from './processes.ts'

const DEV_KEY = 'deadbeefdeadbeefdeadbeefdeadbeef'
const CONFIG = join(ROOT, 'config/default.json')
const REVERTER = '0x7a1ed59eb13421e5838bb1bc284cf07d410cf689'
const BURN = Buffer.from(keccak256(Buffer.from('burn(uint256)'))).toString('hex').slice(0, 8)
const MAX_BODY = 5 * 1024 * 1024

const USAGE = `Usage: npm run bench:robustness -- [options]

  --duration <s>    seconds per round and server of the heavy-call row (default 15)
  --rounds <n>      rounds of that row, each server once per round (default 2)
  --heavy <n>       connections sending batches of 10 heavy calls (default 2)
  --maximal <n>     maximal requests of the memory row (default 1000)
  -h, --help        print this help
`

interface Server {
  child: TrackedChild
  endpoint: Endpoint
}

async function startGateway(name: string, options: object): Promise<Server> {
  const child = spawnTracked(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/gatewayServer.ts'), CONFIG, JSON.stringify(options)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  })
  const ready = await new Promise<FromServer>((resolve, reject) => {
    child.child.once('message', resolve)
    void child.exited.then(({ code, signal }) => reject(new Error(`${name} exited (${code ?? signal}):\n${child.output().slice(-2000)}`)))
  })
  if (ready.type !== 'ready') throw new Error(`${name} failed to start: ${JSON.stringify(ready)}`)
  return { child, endpoint: { name, port: ready.port, path: `/v3/${DEV_KEY}`, host: 'ethereum-mainnet.localhost' } }
}

const heavyBatch = JSON.stringify(
  Array.from({ length: 10 }, (_, id) => ({
    jsonrpc: '2.0',
    id,
    method: 'eth_call',
    params: [{ to: REVERTER, data: `0x${BURN}${(10n ** 9n).toString(16).padStart(64, '0')}` }, 'latest'],
  })),
)
const blockNumber = '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}'

interface ReadsUnderLoad {
  reads: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  heavyBatches: number
  heavyCallsPerSec: number
}

async function readsUnderLoad(server: Server, durationMs: number, heavy: number): Promise<{ reads: LoadResult; heavy: LoadResult }> {
  const [heavyLoad, reads] = await Promise.all([
    runLoad(server.endpoint, () => heavyBatch, { durationMs, concurrency: heavy, requestTimeoutMs: 600_000 }),
    // The reads start once the heavy calls are in flight.
    new Promise<LoadResult>((resolve, reject) => {
      setTimeout(() => runLoad(server.endpoint, () => blockNumber, { durationMs: durationMs - 200, concurrency: 1, requestTimeoutMs: 600_000 }).then(resolve, reject), 200)
    }),
  ])
  return { reads, heavy: heavyLoad }
}

function pooled(runs: { reads: LoadResult; heavy: LoadResult }[]): ReadsUnderLoad {
  const latencies = Float64Array.from(runs.flatMap((r) => [...r.reads.latencies])).sort()
  const seconds = runs.reduce((s, r) => s + r.heavy.seconds, 0)
  const batches = runs.reduce((s, r) => s + r.heavy.answered, 0)
  return {
    reads: latencies.length,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies.length > 0 ? latencies[latencies.length - 1]! : Number.NaN,
    heavyBatches: batches,
    heavyCallsPerSec: (batches * 10) / seconds,
  }
}

async function memoryRow(count: number): Promise<{ beforeKiB: number; afterKiB: number; peakKiB: number; seconds: number; statuses: Record<number, number> }> {
  const server = await startGateway('memory', {})
  try {
    const method = `eth_${'x'.repeat(MAX_BODY - 100)}`
    const body = `{"jsonrpc":"2.0","id":1,"method":"${method}","params":[]}`
    await runLoad(server.endpoint, () => blockNumber, { durationMs: 300, concurrency: 1 })
    const before = residentMemory(server.child.pid).rssKiB
    let sent = 0
    const started = performance.now()
    const statuses: Record<number, number> = {}
    // A fixed number of requests, 4 in flight: runLoad stops at a time, so it is run in short windows.
    while (sent < count) {
      const left = count - sent
      const result = await runLoad(server.endpoint, (i) => (i < left ? body : blockNumber), { durationMs: 1, concurrency: Math.min(4, left) })
      sent += Math.min(result.answered, left)
      for (const [status, n] of Object.entries(result.statuses)) statuses[Number(status)] = (statuses[Number(status)] ?? 0) + n
    }
    const after = residentMemory(server.child.pid)
    return { beforeKiB: before, afterKiB: after.rssKiB, peakKiB: after.peakKiB, seconds: (performance.now() - started) / 1000, statuses }
  } finally {
    server.child.child.kill('SIGTERM')
    await server.child.exited
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string' },
      rounds: { type: 'string' },
      heavy: { type: 'string' },
      maximal: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) {
    process.stdout.write(USAGE)
    return
  }
  const durationMs = Number(values.duration ?? 15) * 1000
  const rounds = Number(values.rounds ?? 2)
  const heavy = Number(values.heavy ?? 2)
  const maximal = Number(values.maximal ?? 1000)
  const loadBefore = loadavg()
  const log = (line: string) => process.stderr.write(`${line}\n`)

  const before = await startGateway('before', { evmSliceMs: 0, evmTimeoutMs: 0 })
  const after = await startGateway('after', {})
  const runs = { before: [] as { reads: LoadResult; heavy: LoadResult }[], after: [] as { reads: LoadResult; heavy: LoadResult }[] }
  for (let round = 1; round <= rounds; round++) {
    for (const [name, server] of [['before', before], ['after', after]] as const) {
      log(`round ${round}/${rounds}: ${name} (no turns, no limit / 10 ms turns, 5 s limit)...`)
      runs[name].push(await readsUnderLoad(server, durationMs, heavy))
    }
  }
  before.child.child.kill('SIGTERM')
  after.child.child.kill('SIGTERM')
  log(`memory: ${maximal} requests of 5 MiB with a 5 MiB method name...`)
  const memory = await memoryRow(maximal)
  const loadAfter = loadavg()

  const rows = (['before', 'after'] as const).map((name) => ({ name, ...pooled(runs[name]) }))
  const ms = (v: number) => `${v.toFixed(1)} ms`
  const out = [
    `eth_blockNumber while ${heavy} connections send batches of 10 heavy eth_calls (${rounds} x ${durationMs / 1000} s per server):`,
    '',
    '  server                                   reads   p50        p99        max        heavy calls/s',
    ...rows.map(
      (r) =>
        `  ${(r.name === 'before' ? 'before: no turns, no time limit' : 'after: 10 ms turns, 5 s limit').padEnd(40)} ${String(r.reads).padStart(6)}   ${ms(r.p50Ms).padEnd(10)} ${ms(r.p99Ms).padEnd(10)} ${ms(r.maxMs).padEnd(10)} ${r.heavyCallsPerSec.toFixed(1)}`,
    ),
    '',
    `Resident memory, ${maximal} requests of a 5 MiB body with a 5 MiB method name (answered in ${memory.seconds.toFixed(1)} s, statuses ${JSON.stringify(memory.statuses)}):`,
    `  before ${(memory.beforeKiB / 1024).toFixed(0)} MiB, after ${(memory.afterKiB / 1024).toFixed(0)} MiB (peak ${(memory.peakKiB / 1024).toFixed(0)} MiB)`,
    '',
    `Load average (1, 5, 15 min): before ${loadBefore.map((v) => v.toFixed(2)).join(', ')}; after ${loadAfter.map((v) => v.toFixed(2)).join(', ')}`,
  ]
  process.stdout.write(`${out.join('\n')}\n`)
}

main()
  .catch((err: unknown) => {
    process.stderr.write(`bench:robustness: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    process.exitCode = 1
  })
  .finally(() => stopAll())
