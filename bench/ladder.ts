/**
 * The request path's ladder: where the CPU of one `eth_blockNumber` on `/v3/<key>` goes, between
 * the bench's bare `node:http` reference row and gateway-double. Each rung (./ladderServer.ts) is a
 * server one step closer to gateway-double's lane than the one before; all run at once, each in
 * its own process, and each round loads every rung in turn (8 keep-alive connections, one request
 * in flight on each, as the bench's rows), the order reversed every other round. A rung's figure
 * is its process's CPU (user + system, from /proc/<pid>/stat, its threads included) over the
 * answers of the round: server CPU per request, which the machine's load moves less than req/s.
 * The difference between two rungs is what that step costs.
 *
 *   npx tsx bench/ladder.ts [--rounds 5] [--duration 3] [--rungs bare,listener,gateway]
 *
 * It prints each rung's median CPU per request (and every round's), its step from the rung
 * before, and req/s beside the first rung's. Nothing is judged: it is an instrument for profiling
 * the request path, not a target.
 */
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { BENCH_FIXTURE, BENCH_NETWORK, ROOT, benchFixtureExists } from './fixture.ts'
import { runLoad } from './load.ts'
import type { Endpoint } from './processes.ts'
import { LOOPBACK, freePort, spawnTracked, stopAll } from './processes.ts'
import type { TrackedChild } from './processes.ts'

const KEY = 'bec4bec4bec4bec4bec4bec4bec4bec4'
/** As the bench's key: a balance no run spends (a refusal would be another path). */
const DAILY_CREDITS = 1_000_000_000_000_000
const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })
/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100

interface Rung {
  readonly name: string
  readonly server: TrackedChild
  readonly endpoint: Endpoint
  readonly cpuPerRequest: number[]
  readonly reqPerSec: number[]
}

/** The process's CPU time so far (user + system, every thread), in microseconds. */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

async function startRung(name: string, config: string): Promise<Rung> {
  const port = await freePort()
  const server = spawnTracked(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/ladderServer.ts'), name, String(port), config], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  })
  await new Promise<void>((resolve, reject) => {
    server.child.once('message', () => resolve())
    server.exited.then(({ code }) => reject(new Error(`rung ${name} exited (${code}): ${server.output()}`)))
  })
  const endpoint: Endpoint = { name, port, path: `/v3/${KEY}`, host: `${BENCH_NETWORK}-mainnet.localhost` }
  return { name, server, endpoint, cpuPerRequest: [], reqPerSec: [] }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { rounds: { type: 'string', default: '5' }, duration: { type: 'string', default: '3' }, rungs: { type: 'string', default: 'bare,body,json,headers,handler,listener,gateway' } },
  })
  const rounds = Number(values.rounds)
  const durationMs = Number(values.duration) * 1000
  if (!benchFixtureExists()) throw new Error('fixtures/bench is not built: run `npm run bench -- --rebuild` once')
  const config = join(mkdtempSync(join(tmpdir(), 'gateway-double-ladder-')), 'ladder.config.json')
  writeFileSync(config, JSON.stringify({ serviceHost: 'localhost', networks: { [BENCH_NETWORK]: { fixture: BENCH_FIXTURE } }, keys: [{ key: KEY, networks: [BENCH_NETWORK], dailyCredits: DAILY_CREDITS }] }))
  const rungs: Rung[] = []
  for (const name of values.rungs.split(',')) rungs.push(await startRung(name, config))
  const load = (rung: Rung, ms: number) => runLoad(rung.endpoint, () => BODY, { durationMs: ms, concurrency: 8 })
  for (const rung of rungs) {
    const warm = await load(rung, 1500)
    if (warm.ok !== warm.answered) throw new Error(`rung ${rung.name} answered ${warm.firstErrorBody ?? warm.firstBody}`)
  }
  for (let round = 0; round < rounds; round++) {
    for (const rung of round % 2 === 0 ? rungs : [...rungs].reverse()) {
      const before = cpuMicros(rung.server.pid)
      const result = await load(rung, durationMs)
      if (result.ok !== result.answered) throw new Error(`rung ${rung.name}: ${result.answered - result.ok} answers not ok (${result.firstErrorBody})`)
      rung.cpuPerRequest.push((cpuMicros(rung.server.pid) - before) / result.answered)
      rung.reqPerSec.push(result.reqPerSec)
    }
  }
  const loadavg = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
  console.log(`eth_blockNumber, 8 in flight, ${rounds} rounds of ${durationMs / 1000} s per rung, load average ${loadavg}`)
  console.log('rung        CPU us/request (median; each round)      step      req/s   x first')
  const firstRps = median(rungs[0]!.reqPerSec)
  let previous: number | undefined
  for (const rung of rungs) {
    const cpu = median(rung.cpuPerRequest)
    const rounds = rung.cpuPerRequest.map((c) => c.toFixed(0)).join(' ')
    const step = previous === undefined ? '' : `${cpu >= previous ? '+' : ''}${(cpu - previous).toFixed(1)}`
    const rps = median(rung.reqPerSec)
    console.log(`${rung.name.padEnd(10)}  ${cpu.toFixed(1).padStart(6)} (${rounds})`.padEnd(52) + `${step.padStart(6)}  ${rps.toFixed(0).padStart(8)}   ${(rps / firstRps).toFixed(2)}`)
    previous = cpu
  }
}

main().then(
  () => stopAll(),
  async (err: unknown) => {
    console.error(err instanceof Error ? err.message : err)
    await stopAll()
    process.exitCode = 1
  },
)
