/**
 * `npm run bench:trace`: the time of one debug_traceTransaction with the struct logger (geth's
 * default tracer, default options) of the last transaction of the bench chain's 200-transaction
 * head block (fixtures/bench), through a real server (`startServer`, `POST /v3/<key>`,
 * `Host: bench-mainnet.localhost`), one request at a time. Tracing a mined transaction replays
 * its block on the parent's state up to it, so the last of 200 is the costliest. For scale, in the
 * same run and interleaved with it: the struct logger on the block's first transaction, the
 * callTracer on the last, and debug_traceBlockByNumber with the callTracer (all 200). With Anvil
 * installed (and no `--no-anvil`), the same struct-logger trace on Anvil serving the same chain.
 *
 * Anvil (started with `--steps-tracing`) answers from the steps it recorded when it mined the block:
 * it does not re-execute, so its row is a lookup, not a replay.
 *
 * Prints p50, max and mean per request, the ratio of the mean to the callTracer's on the same
 * (last) transaction, the trace's size, and the load average before and after (the machine is
 * shared: compare the rows of one run, not runs).
 */
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { isDeepStrictEqual, parseArgs } from 'node:util'
import { localhostFetch } from '../src/http/client.ts'
import { startServer } from '../src/http/server.ts'
import { anvilChainArgs, anvilEndpoint, anvilVersion, replayOnAnvil, spawnAnvil } from './anvil.ts'
import { BENCH_FIXTURE, BENCH_NETWORK, benchFixtureExists, buildBenchFixture, readFixtureBlocks, readGenesis } from './fixture.ts'
import { closeControlConnections, freePort, post, stopAll } from './processes.ts'
import type { Endpoint } from './processes.ts'
import { RpcClient } from './rpc.ts'
import { formatTable, targetsLine } from './report.ts'
import type { FigureRow } from './report.ts'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    'no-anvil': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
})
if (values.help) {
  console.log('Usage: npm run bench:trace -- [--runs <n> (default 10)] [--warmup <n> (default 2)] [--no-anvil]')
  process.exit(0)
}
const runs = Number(values.runs)
const warmup = Number(values.warmup)
const KEY = 'bec4bec4bec4bec4bec4bec4bec4bec4'
const CALL_TRACER_LAST = 'callTracer, last transaction'
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ')

if (!benchFixtureExists()) {
  console.error(`building ${BENCH_FIXTURE} from its source...`)
  await buildBenchFixture()
}
const blocks = readFixtureBlocks()
const head = blocks.length
const loadBefore = load()
const server = await startServer({
  port: 0,
  config: {
    serviceHost: 'localhost',
    networks: { [BENCH_NETWORK]: { fixture: BENCH_FIXTURE } },
    keys: [{ key: KEY, networks: [BENCH_NETWORK], dailyCredits: 1_000_000_000 }],
  },
})
const url = server.urls[BENCH_NETWORK]!
let id = 0

/**
 * The same steps, `failed` and `returnValue`. Not the top `gas` (geth's is the gas the transaction
 * used, Anvil writes another figure) nor `refund: 0` (geth leaves a zero refund out, Anvil writes it).
 */
function sameSteps(anvil: unknown, ours: unknown): boolean {
  type Trace = { failed: boolean; returnValue: string; structLogs: Record<string, unknown>[] }
  const strip = ({ failed, returnValue, structLogs }: Trace) => ({
    failed,
    returnValue,
    structLogs: structLogs.map(({ refund, ...step }) => (refund === 0 || refund === undefined ? step : { ...step, refund })),
  })
  return isDeepStrictEqual(strip(anvil as Trace), strip(ours as Trace))
}

/** One request: its time in ms (answer read and parsed) and the answer's size in bytes. */
async function timed(send: (body: string) => Promise<string>, method: string, params: unknown[]): Promise<{ ms: number; bytes: number; result: unknown }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })
  const started = performance.now()
  const text = await send(body)
  const answer = JSON.parse(text) as { result?: unknown; error?: unknown }
  const ms = performance.now() - started
  if (answer.error !== undefined) throw new Error(`${method}: ${JSON.stringify(answer.error)}`)
  return { ms, bytes: Buffer.byteLength(text), result: answer.result }
}
const toDouble = async (body: string) => (await localhostFetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).text()

try {
  const block = (await timed(toDouble, 'eth_getBlockByNumber', [`0x${head.toString(16)}`, false])).result as { transactions: string[] }
  const first = block.transactions[0]!
  const last = block.transactions.at(-1)!
  const STRUCT_LAST = `struct logger, last transaction (index ${block.transactions.length - 1})`
  let ourStructLast: unknown
  const requests: Record<string, [string, unknown[]]> = {
    [STRUCT_LAST]: ['debug_traceTransaction', [last]],
    'struct logger, first transaction (index 0)': ['debug_traceTransaction', [first]],
    [CALL_TRACER_LAST]: ['debug_traceTransaction', [last, { tracer: 'callTracer' }]],
    [`callTracer, whole block (${block.transactions.length} transactions)`]: ['debug_traceBlockByNumber', [`0x${head.toString(16)}`, { tracer: 'callTracer' }]],
  }
  const times = new Map<string, { ms: number[]; bytes: number; steps?: number }>()
  for (let i = 0; i < warmup + runs; i++) {
    for (const [name, [method, params]] of Object.entries(requests)) {
      const { ms, bytes, result } = await timed(toDouble, method, params)
      const steps = (result as { structLogs?: unknown[] }).structLogs?.length
      const row = times.get(name) ?? { ms: [], bytes, ...(steps === undefined ? {} : { steps }) }
      if (i === 0 && name === STRUCT_LAST) ourStructLast = result
      if (i >= warmup) row.ms.push(ms)
      times.set(name, row)
    }
  }

  let anvilRow: { ms: number[]; bytes: number; steps?: number; version: string; agrees?: boolean } | undefined
  if (values['no-anvil'] !== true) {
    const port = await freePort()
    const genesis = readGenesis()
    // Anvil keeps no opcode steps unless asked: without --steps-tracing its struct logger answers none.
    spawnAnvil([...anvilChainArgs(port, join(BENCH_FIXTURE, 'genesis.json'), BigInt(genesis.gasLimit)), '--steps-tracing'])
    const endpoint: Endpoint = anvilEndpoint(port)
    const anvil = new RpcClient(endpoint)
    for (let tries = 0; ; tries++) {
      try {
        await anvil.call('eth_chainId')
        break
      } catch (err) {
        if (tries > 100) throw err
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    await replayOnAnvil(anvil, blocks)
    const toAnvil = async (body: string) => (await post(endpoint, body, 120_000)).body
    anvilRow = { ms: [], bytes: 0, version: anvilVersion() }
    for (let i = 0; i < warmup + runs; i++) {
      const { ms, bytes, result } = await timed(toAnvil, 'debug_traceTransaction', [last])
      anvilRow.bytes = bytes
      anvilRow.steps = (result as { structLogs?: unknown[] }).structLogs?.length
      anvilRow.agrees = sameSteps(result, ourStructLast)
      if (i >= warmup) anvilRow.ms.push(ms)
    }
  }

  const stats = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b)
    return { p50: s[Math.floor(s.length / 2)]!, max: s.at(-1)!, mean: xs.reduce((a, b) => a + b, 0) / xs.length }
  }
  console.log(`debug_trace* bench: ${runs} runs each (after ${warmup}), one request at a time, bench chain head block ${head} (${block.transactions.length} transactions)`)
  console.log(`load average before: ${loadBefore}`)
  // The callTracer of the same transaction replays the same 199 before it: the ratio is what the
  // struct logger's per-opcode entries cost on top of the replay.
  const base = stats(times.get(CALL_TRACER_LAST)!.ms).mean
  console.log('request                                                  p50 ms   max ms   mean ms   mean / callTracer   answer bytes   struct logs')
  const line = (name: string, r: { ms: number[]; bytes: number; steps?: number }) => {
    const s = stats(r.ms)
    console.log(
      `${name.padEnd(54)} ${s.p50.toFixed(1).padStart(8)} ${s.max.toFixed(1).padStart(8)} ${s.mean.toFixed(1).padStart(9)} ${(s.mean / base).toFixed(2).padStart(19)} ${String(r.bytes).padStart(14)} ${String(r.steps ?? '').padStart(13)}`,
    )
  }
  for (const [name, r] of times) line(name, r)
  if (anvilRow) {
    line(`${anvilRow.version}: struct logger, last transaction`, anvilRow)
    console.log(`${anvilRow.version}'s steps, failed and returnValue ${anvilRow.agrees ? 'are' : 'are NOT'} gateway-double's (Anvil answers from steps recorded when it mined)`)
    // The figures compare the same trace only if the traces are the same.
    if (anvilRow.agrees !== true) process.exitCode = 1
  }
  // Issue 19's target for this row (bench/targets.ts), in the bench's table.
  const judged: FigureRow = {
    kind: 'figure', id: 'trace.struct-last', label: `target: ${STRUCT_LAST}, p50`, unit: 'ms', better: 'lower',
    gatewayDouble: stats(times.get(STRUCT_LAST)!.ms).p50, anvil: anvilRow && stats(anvilRow.ms).p50,
  }
  console.log(`\n${formatTable([judged])}\n${targetsLine([judged])}${anvilRow ? '' : ' (no Anvil: not judged)'}`)
  console.log(`load average after: ${load()}`)
} finally {
  await server.close()
  await stopAll()
  closeControlConnections()
}
