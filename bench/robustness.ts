/**
 * `npm run bench:robustness`: what a heavy or hostile client costs everyone else (issue 11).
 *
 * 1. **Reads under heavy calls.** gateway-double children on the default fixtures, taking turns
 *    (A, B, C, A, B, C...): with `--before <dir>`, A is a checkout of an earlier commit (e.g.
 *    `git worktree add /tmp/before aa81767`, the commit before the robustness work, with its own
 *    `npm ci`), started by its own bench/gatewayServer.ts; B is this code with executions that
 *    never yield and no limit (`evmSliceMs: 0, evmTimeoutMs: 0`); C this code as shipped (10 ms
 *    slices, 5 s limit). Against each,
 *    `--heavy` connections send batches of 10 `eth_call`s to the Reverter's gas-burning loop
 *    (2^24 gas each, out of gas after about 0.6 s) while one connection sends `eth_blockNumber`
 *    back to back: its p50/p99 is what any other client of a saturated server sees.
 * 2. **Memory under maximal requests.** A fresh server takes `--maximal` requests, by turns the
 *    largest single call (a 5 MiB body whose method name is 5 MiB) and the largest batch (1,000
 *    calls, the batch limit, each with a method name of 5,000 characters, just under 5 MiB), all
 *    answered -32601 and logged with their methods cut; its resident memory before and after.
 *
 * Prints one table, with the load average before and after (the machine is shared: compare the
 * two servers of one run, not runs).
 */
import { keccak256 } from 'ethereum-cryptography/keccak.js'
import { loadavg } from 'node:os'
import { execFileSync } from 'node:child_process'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { ROOT } from './fixture.ts'
import type { FromServer } from './gatewayServer.ts'
import { percentile, runLoad } from './load.ts'
import type { LoadResult } from './load.ts'
import type { Endpoint, TrackedChild } from './processes.ts'
import { residentMemory, spawnTracked, stopAll } from './processes.ts'

const DEV_KEY = 'deadbeefdeadbeefdeadbeefdeadbeef'
const REVERTER = '0x7a1ed59eb13421e5838bb1bc284cf07d410cf689'
const BURN = Buffer.from(keccak256(Buffer.from('burn(uint256)'))).toString('hex').slice(0, 8)
const MAX_BODY = 5 * 1024 * 1024

const USAGE = `Usage: npm run bench:robustness -- [options]

  --duration <s>    seconds per round and server of the heavy-call row (default 15)
  --rounds <n>      rounds of that row, each server once per round (default 2)
  --heavy <n>       connections sending batches of 10 heavy calls (default 2)
  --gas <n>         gas of each heavy call, from 21000 (default: none given, so the cap, 2^24;
                    a small value makes the row short, e.g. to try the command)
  --maximal <n>     maximal requests of the memory row (default 1000)
  --before <dir>    also a checkout of an earlier commit (its own npm ci done), e.g.
                    git worktree add /tmp/before aa81767 && (cd /tmp/before && npm ci)
  -h, --help        print this help
`

interface Server {
  child: TrackedChild
  endpoint: Endpoint
}

/** A gateway-double child: this code's, or with `root` a checkout's own (which may ignore `options`). */
async function startGateway(name: string, options: object, root = ROOT): Promise<Server> {
  const child = spawnTracked(process.execPath, ['--import', 'tsx', join(root, 'bench/gatewayServer.ts'), join(root, 'config/default.json'), JSON.stringify(options)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  })
  const ready = await new Promise<FromServer>((resolve, reject) => {
    child.child.once('message', resolve)
    void child.exited.then(({ code, signal }) => reject(new Error(`${name} exited (${code ?? signal}):\n${child.output().slice(-2000)}`)))
  })
  if (ready.type !== 'ready') throw new Error(`${name} failed to start: ${JSON.stringify(ready)}`)
  return { child, endpoint: { name, port: ready.port, path: `/v3/${DEV_KEY}`, host: 'ethereum-mainnet.localhost' } }
}

/** 10 calls to the Reverter's loop, which burns all its gas: the cap (2^24) or, with `gas`, that much. */
const heavyBatch = (gas: number | undefined) =>
  JSON.stringify(
    Array.from({ length: 10 }, (_, id) => ({
      jsonrpc: '2.0',
      id,
      method: 'eth_call',
      params: [{ to: REVERTER, ...(gas === undefined ? {} : { gas: `0x${gas.toString(16)}` }), data: `0x${BURN}${(10n ** 9n).toString(16).padStart(64, '0')}` }, 'latest'],
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

async function readsUnderLoad(server: Server, durationMs: number, heavy: number, gas: number | undefined): Promise<{ reads: LoadResult; heavy: LoadResult }> {
  const batch = heavyBatch(gas)
  const [heavyLoad, reads] = await Promise.all([
    runLoad(server.endpoint, () => batch, { durationMs, concurrency: heavy, requestTimeoutMs: 600_000 }),
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

async function memoryRow(count: number): Promise<{ beforeKiB: number; halfKiB: number; afterKiB: number; peakKiB: number; seconds: number; statuses: Record<number, number> }> {
  // Credits for 500 batches of 1,000 calls at 160 credits.
  const server = await startGateway('memory', { keys: [{ key: DEV_KEY, networks: ['ethereum'], dailyCredits: 1e12 }] })
  try {
    const method = `eth_${'x'.repeat(MAX_BODY - 100)}`
    const single = `{"jsonrpc":"2.0","id":1,"method":"${method}","params":[]}`
    const batch = JSON.stringify(Array.from({ length: 1000 }, (_, id) => ({ jsonrpc: '2.0', id, method: `eth_${'y'.repeat(5000)}${id}`, params: [] })))
    if (batch.length > MAX_BODY) throw new Error(`the maximal batch is ${batch.length} bytes`)
    const body = (i: number) => (i % 2 === 0 ? single : batch)
    await runLoad(server.endpoint, () => blockNumber, { durationMs: 300, concurrency: 1 })
    const before = residentMemory(server.child.pid).rssKiB
    let sent = 0
    let half = 0
    const started = performance.now()
    const statuses: Record<number, number> = {}
    // A fixed number of requests, 4 in flight: runLoad stops at a time, so it is run in short windows.
    while (sent < count) {
      const left = count - sent
      const result = await runLoad(server.endpoint, (i) => (i < left ? body(sent + i) : blockNumber), { durationMs: 1, concurrency: Math.min(4, left) })
      sent += Math.min(result.answered, left)
      for (const [status, n] of Object.entries(result.statuses)) statuses[Number(status)] = (statuses[Number(status)] ?? 0) + n
      // Halfway, to tell a plateau from a climb.
      if (half === 0 && sent >= count / 2) half = residentMemory(server.child.pid).rssKiB
    }
    const after = residentMemory(server.child.pid)
    return { beforeKiB: before, halfKiB: half, afterKiB: after.rssKiB, peakKiB: after.peakKiB, seconds: (performance.now() - started) / 1000, statuses }
  } finally {
    server.child.child.kill('SIGTERM')
    await server.child.exited
  }
}

/** A number flag, checked: a typo is an error, not a NaN in the table. */
function numberOption(v: string | undefined, name: string, dflt: number, { integer = false, min = 0, max = Infinity } = {}): number {
  if (v === undefined) return dflt
  const n = Number(v)
  if (v.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    throw new Error(`--${name}: expected ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${JSON.stringify(v)}`)
  }
  return n
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string' },
      rounds: { type: 'string' },
      heavy: { type: 'string' },
      gas: { type: 'string' },
      maximal: { type: 'string' },
      before: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) {
    process.stdout.write(USAGE)
    return
  }
  const durationMs = numberOption(values.duration, 'duration', 15, { min: 0.3, max: 3600 }) * 1000
  const rounds = numberOption(values.rounds, 'rounds', 2, { integer: true, min: 0, max: 100 })
  const heavy = numberOption(values.heavy, 'heavy', 2, { integer: true, min: 1, max: 256 })
  const gas = values.gas === undefined ? undefined : numberOption(values.gas, 'gas', 0, { integer: true, min: 21_000, max: 2 ** 24 })
  const maximal = numberOption(values.maximal, 'maximal', 1000, { integer: true, min: 1, max: 1_000_000 })
  const loadBefore = loadavg()
  const log = (line: string) => process.stderr.write(`${line}\n`)

  const servers: { label: string; server: Server; runs: { reads: LoadResult; heavy: LoadResult }[] }[] = []
  // --rounds 0: the memory row alone.
  if (rounds > 0 && values.before !== undefined) {
    const dir = resolve(values.before)
    const commit = execFileSync('git', ['-C', dir, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).trim()
    servers.push({ label: `before: commit ${commit} (${dir})`, server: await startGateway('commit', {}, dir), runs: [] })
  }
  if (rounds > 0) {
    servers.push({ label: 'this code, no turns, no time limit', server: await startGateway('unsliced', { evmSliceMs: 0, evmTimeoutMs: 0 }), runs: [] })
    servers.push({ label: 'after: this code, 10 ms turns, 5 s limit', server: await startGateway('shipped', {}), runs: [] })
  }
  for (let round = 1; round <= rounds; round++) {
    for (const s of servers) {
      log(`round ${round}/${rounds}: ${s.label}...`)
      s.runs.push(await readsUnderLoad(s.server, durationMs, heavy, gas))
    }
  }
  for (const s of servers) s.server.child.child.kill('SIGTERM')
  log(`memory: ${maximal} maximal requests...`)
  const memory = await memoryRow(maximal)
  const loadAfter = loadavg()

  const rows = servers.map((s) => ({ label: s.label, ...pooled(s.runs) }))
  const width = Math.max(40, ...rows.map((r) => r.label.length))
  const ms = (v: number) => `${v.toFixed(1)} ms`
  const readsTable = [
    `eth_blockNumber while ${heavy} connections send batches of 10 heavy eth_calls${gas === undefined ? '' : ` of ${gas.toLocaleString('en-US')} gas`} (${rounds} x ${durationMs / 1000} s per server):`,
    '',
    `  ${'server'.padEnd(width)}  reads   p50        p99        max        heavy calls/s`,
    ...rows.map(
      (r) =>
        `  ${r.label.padEnd(width)} ${String(r.reads).padStart(6)}   ${ms(r.p50Ms).padEnd(10)} ${ms(r.p99Ms).padEnd(10)} ${ms(r.maxMs).padEnd(10)} ${r.heavyCallsPerSec.toFixed(1)}`,
    ),
    '',
  ]
  const out = [
    ...(rounds > 0 ? readsTable : []),
    `Resident memory, ${maximal} maximal requests, by turns a 5 MiB method name and a batch of 1,000 calls with 5,000-character method names (answered in ${memory.seconds.toFixed(1)} s, statuses ${JSON.stringify(memory.statuses)}):`,
    `  before ${(memory.beforeKiB / 1024).toFixed(0)} MiB, halfway ${(memory.halfKiB / 1024).toFixed(0)} MiB, after ${(memory.afterKiB / 1024).toFixed(0)} MiB (peak ${(memory.peakKiB / 1024).toFixed(0)} MiB)`,
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
