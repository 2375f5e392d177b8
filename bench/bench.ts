/**
 * `npm run bench`: gateway-double against Anvil on the same chain (issue 6).
 *
 * 1. Builds `fixtures/bench/` from `fixtures/sources/bench/bench.scenario.json` if it is missing
 *    (or with `--rebuild`): the Token, 40 funded senders, a head block of 200 token transfers.
 * 2. Starts gateway-double serving it as network `bench` (a child process running `startServer`,
 *    called as a user would: `POST /v3/<key>`, `Host: bench-mainnet.localhost`) and Anvil from the
 *    npm package with the fixture's genesis, replays the fixture's signed transactions onto Anvil
 *    block by block, and checks that the two servers agree (receipts, storage, balances, nonces).
 * 3. For each measured call, drives each server in turn (A, B, A, B... for `--rounds` rounds of
 *    `--duration` seconds, `--concurrency` requests in flight) from this process, and pools the
 *    rounds into req/s, p50 and p99.
 * 4. Reads both servers' resident memory after the load, checks gateway-double's credit ledger
 *    against the calls it answered, then measures cold start to a first answer.
 * 5. Prints one table (and `--json <file>` writes it).
 *
 * Everything listens on 127.0.0.1; every child process is stopped at the end, on error too.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { methodCost } from '../src/gateway/credits.ts'
import { anvilBinary, anvilEndpoint, anvilVersion, spawnAnvil, startAnvilOnChain, waitForAnswer } from './anvil.ts'
import { coldStart, median } from './coldStart.ts'
import { BENCH_FIXTURE, BENCH_NETWORK, ROOT, benchFixtureExists, buildBenchFixture, readFixtureBlocks, readFixtureIndex, readGenesis } from './fixture.ts'
import type { FromServer, ToServer } from './gatewayServer.ts'
import { runLoad } from './load.ts'
import { newHeadsRows } from './newHeads.ts'
import { loopRowsOnFreshServers } from './loopPairs.ts'
import { LOOP_ROW_IDS } from './testLoop.ts'
import { GatewayChild } from './gatewayChild.ts'
import { localhostLookup } from '../src/http/client.ts'
import type { LoadResult } from './load.ts'
import type { Endpoint } from './processes.ts'
import { LOOPBACK, closeControlConnections, freePort, residentMemory, spawnTracked, stopAll } from './processes.ts'
import { figureOf, formatTable, targetsLine, withVerdicts } from './report.ts'
import { REFERENCE_ROW, TARGETS } from './targets.ts'
import { checkoutBefore } from './before.ts'
import type { ColdStartRow, LatencyRow, MemoryRow, ReferenceRow, Row, ServerStats, ThroughputRow } from './report.ts'
import { RpcClient } from './rpc.ts'
import { formatProfileSummary, readProfile, summariseProfiles } from './profile.ts'
import type { Mismatch, Verification } from './verify.ts'
import { LOG_FIELDS, RECEIPT_FIELDS, TX_FIELDS, balanceSlot, diffFields, verifyAgreement } from './verify.ts'

const USAGE = `Usage: npm run bench -- [options]

gateway-double against Anvil (@foundry-rs/anvil-linux-amd64) on the bench chain (fixtures/bench):
throughput and p50/p99 latency per method, cold start, resident memory, credit ledger exactness.

Options:
  --duration <s>      seconds per measured run (default 3)
  --concurrency <n>   requests in flight, one per keep-alive connection (default 8)
  --rounds <n>        rounds per row; each round runs gateway-double (and --before's build), the
                      bare node:http server for the rows judged against it, then Anvil (default 3)
  --warmup <s>        seconds of warm-up per server and row, not measured (default 0.5)
  --cold-runs <n>     cold starts per server, the median is reported (default 3)
  --newheads-blocks <n>  blocks mined per newHeads latency row (default 20, after 3 unmeasured)
  --mine-blocks <n>   empty blocks per anvil_mine of the transaction-loop rows (default 1000; 0: no loop rows)
  --json <file>       also write the results as JSON
  --rebuild           rebuild fixtures/bench from its source first
  --rows <ids>        only these rows, comma-separated ids as in bench/targets.ts (e.g.
                      eth_blockNumber,eth_getStorageAt; loop.*, newHeads.*, cold-start.*); the bare
                      node:http reference row and the memory reading always run
  --before <git ref>  also run the throughput rows, the transaction-loop rows and the memory row
                      against that commit, checked out and built in a temporary worktree, its
                      server alternated with this one; the table adds the ratio new/before
  --profile           record a CPU profile of gateway-double's server during each throughput row's
                      measured rounds (not the warm-up, Anvil, the reference or --before), and print
                      under the table, for each row, the top 12 functions by self time (% of the
                      row's samples, us per request, the module and dist's file:line), GC, (program)
                      and (idle). The profiler's sampling costs the server CPU: a profiled run's
                      figures are not the bench's. The newHeads, loop and cold-start rows are not profiled.
  --profile-dir <dir> where the .cpuprofile files go, one per row and round (default: a new folder
                      under the OS temp dir); they open in Chrome DevTools (Performance, Load profile)
  -h, --help          print this help
`

/** The dev key of config/default.json: the cold-start servers use it. */
const DEV_KEY = 'deadbeefdeadbeefdeadbeefdeadbeef'
/** The bench's own key, with a balance the load cannot exhaust. */
const BENCH_KEY = 'bec4bec4bec4bec4bec4bec4bec4bec4'
const BENCH_DAILY_CREDITS = 1_000_000_000_000_000
const HIVE_FIXTURE = resolve(ROOT, '../shared/conformance/execution-apis/tests')

interface Options {
  durationMs: number
  concurrency: number
  rounds: number
  warmupMs: number
  coldRuns: number
  newHeadsBlocks: number
  mineBlocks: number
  json: string | undefined
  rebuild: boolean
  before: string | undefined
  /** `--profile`: the folder the server's CPU profiles are written to (undefined: not profiled). */
  profileDir: string | undefined
  /** `--rows`: the row ids to run (every row when absent). */
  rows: ReadonlySet<string> | undefined
}

/** The ids of the rows `--rows` chooses from (the reference row and the memory reading always run). */
const THROUGHPUT_ROWS = [
  'eth_blockNumber', 'eth_getStorageAt', 'eth_getTransactionByBlockNumberAndIndex', 'eth_getBlockReceipts',
  'eth_estimateGas.repeated', 'eth_estimateGas.distinct', 'eth_call.distinct', 'eth_getFilterChanges',
] as const
const LOOP_ROWS = LOOP_ROW_IDS
const NEWHEADS_ROWS = ['newHeads.1', 'newHeads.100']
const COLD_ROWS = ['cold-start.default', 'cold-start.execution-apis']
const ROW_IDS: readonly string[] = [...THROUGHPUT_ROWS, ...NEWHEADS_ROWS, ...LOOP_ROWS, ...COLD_ROWS]

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      duration: { type: 'string' },
      concurrency: { type: 'string' },
      rounds: { type: 'string' },
      warmup: { type: 'string' },
      'cold-runs': { type: 'string' },
      'newheads-blocks': { type: 'string' },
      'mine-blocks': { type: 'string' },
      json: { type: 'string' },
      rebuild: { type: 'boolean' },
      before: { type: 'string' },
      rows: { type: 'string' },
      profile: { type: 'boolean' },
      'profile-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) {
    process.stdout.write(USAGE)
    return undefined
  }
  const num = (v: string | undefined, name: string, dflt: number, { integer = false, min = 0, max = Infinity } = {}) => {
    if (v === undefined) return dflt
    const n = Number(v)
    if (!Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
      throw new Error(`--${name}: expected ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${JSON.stringify(v)}`)
    }
    return n
  }
  return {
    durationMs: num(values.duration, 'duration', 3, { min: 0.1, max: 600 }) * 1000,
    concurrency: num(values.concurrency, 'concurrency', 8, { integer: true, min: 1, max: 1024 }),
    rounds: num(values.rounds, 'rounds', 3, { integer: true, min: 1, max: 100 }),
    warmupMs: num(values.warmup, 'warmup', 0.5, { min: 0, max: 60 }) * 1000,
    coldRuns: num(values['cold-runs'], 'cold-runs', 3, { integer: true, min: 0, max: 50 }),
    newHeadsBlocks: num(values['newheads-blocks'], 'newheads-blocks', 20, { integer: true, min: 0, max: 10_000 }),
    mineBlocks: num(values['mine-blocks'], 'mine-blocks', 1000, { integer: true, min: 0, max: 10_000 }),
    json: values.json === undefined ? undefined : resolve(process.env.INIT_CWD ?? process.cwd(), values.json),
    rebuild: values.rebuild ?? false,
    before: values.before,
    rows: values.rows === undefined ? undefined : rowIds(values.rows),
    profileDir: profileDirOf(values.profile ?? false, values['profile-dir']),
  }
}

/** `--profile [--profile-dir <dir>]`: the profiles' folder, made now (a new one under the OS temp dir by default). */
function profileDirOf(profile: boolean, dir: string | undefined): string | undefined {
  if (!profile) {
    if (dir !== undefined) throw new Error('--profile-dir: only with --profile')
    return undefined
  }
  if (dir === undefined) return mkdtempSync(join(tmpdir(), 'gateway-double-profile-'))
  const path = resolve(process.env.INIT_CWD ?? process.cwd(), dir)
  mkdirSync(path, { recursive: true })
  return path
}

/** `--rows a,b,c`: each a row id of ROW_IDS. */
function rowIds(list: string): ReadonlySet<string> {
  const ids = list.split(',').map((id) => id.trim()).filter((id) => id !== '')
  const unknown = ids.filter((id) => !ROW_IDS.includes(id))
  if (ids.length === 0 || unknown.length > 0) {
    throw new Error(`--rows: ${ids.length === 0 ? 'no row id' : `unknown row id(s) ${unknown.join(', ')}`}; the ids: ${ROW_IDS.join(', ')}`)
  }
  return new Set(ids)
}

const log = (line: string) => process.stderr.write(`${line}\n`)
const hex = (n: number | bigint) => `0x${n.toString(16)}`
const pad32 = (h: string) => h.replace(/^0x/, '').padStart(64, '0')
const transferData = (to: string, amount: bigint) => `0xa9059cbb${pad32(to)}${pad32(amount.toString(16))}`

/** Credits gateway-double should have charged: every call it answered with HTTP 200, at its method's price. */
class CreditTally {
  spent = 0
  calls = 0
  refused: Record<number, number> = {}
  add(method: string, status: number, count = 1): void {
    if (count === 0) return
    if (status === 200) {
      this.spent += methodCost(method) * count
      this.calls += count
    } else {
      this.refused[status] = (this.refused[status] ?? 0) + count
    }
  }
}

type ServerName = 'gateway-double' | 'anvil' | 'before'

interface RowSpec {
  id: (typeof THROUGHPUT_ROWS)[number]
  label: string
  method: string
  /** Params of request i to a server; `fixed` rows send one identical body (per server). */
  params: (i: number, server: ServerName) => unknown[]
  fixed: boolean
  /** Compares one answer of each server; differences are reported, not fatal. */
  compare: (gd: unknown, anvil: unknown) => Mismatch[]
}

/**
 * Estimates may differ within geth's tolerance: geth's estimator (which gateway-double follows)
 * stops its binary search once within 1.5% of the lowest limit known to fail; Anvil's searches further.
 */
function compareEstimates(what: string, a: unknown, b: unknown): Mismatch[] {
  if (a === b) return []
  const x = Number(BigInt(String(a)))
  const y = Number(BigInt(String(b)))
  const off = Math.abs(x - y) / Math.max(x, y)
  if (off <= 0.015) {
    return [{ what, gatewayDouble: `${a} (${x})`, anvil: `${b} (${y})`, expected: `${(off * 100).toFixed(2)}% apart: geth's estimator stops within 1.5%` }]
  }
  return [{ what, gatewayDouble: a, anvil: b }]
}

function pool(results: LoadResult[]): ServerStats {
  const answered = results.reduce((n, r) => n + r.answered, 0)
  const seconds = results.reduce((n, r) => n + r.seconds, 0)
  const total = results.reduce((n, r) => n + r.latencies.length, 0)
  const all = new Float64Array(total)
  let at = 0
  for (const r of results) {
    all.set(r.latencies, at)
    at += r.latencies.length
  }
  all.sort()
  const pct = (p: number) => (all.length === 0 ? Number.NaN : all[Math.min(all.length, Math.max(1, Math.ceil((p / 100) * all.length))) - 1]!)
  const statuses: Record<number, number> = {}
  for (const r of results) for (const [s, n] of Object.entries(r.statuses)) statuses[Number(s)] = (statuses[Number(s)] ?? 0) + n
  const firstErrorBody = results.find((r) => r.firstErrorBody !== undefined)?.firstErrorBody ?? results.find((r) => r.failureMessage)?.failureMessage
  return {
    reqPerSec: answered / seconds,
    p50Ms: pct(50),
    p99Ms: pct(99),
    answered,
    ok: results.reduce((n, r) => n + r.ok, 0),
    rpcErrors: results.reduce((n, r) => n + r.rpcErrors, 0),
    failures: results.reduce((n, r) => n + r.failures, 0),
    statuses,
    rounds: results.map((r) => r.reqPerSec),
    ...(firstErrorBody === undefined ? {} : { firstErrorBody }),
  }
}

async function main(argv: string[]): Promise<number> {
  const opts = parseOptions(argv)
  if (opts === undefined) return 0
  const startedAt = new Date()
  const t0 = performance.now()
  anvilBinary() // fails early, with a clear message, where Anvil cannot run
  const tmp = mkdtempSync(join(tmpdir(), 'gateway-double-bench-'))
  /** What to undo at the end: the --before checkout's worktree. */
  const removeAtEnd: (() => void)[] = []
  const tally = new CreditTally()
  /** Whether `--rows` chose row `id` (every row when it is absent). */
  const wanted = (id: string) => opts.rows === undefined || opts.rows.has(id)
  try {
    // 1. The chain.
    if (opts.rebuild || !benchFixtureExists()) {
      log(`building ${BENCH_FIXTURE} from its source...`)
      const built = await buildBenchFixture()
      log(`  ${built.txs.length} blocks (${built.txs.join(', ')} transactions) in ${Math.round(built.ms)} ms`)
    }
    const blocks = readFixtureBlocks()
    const index = readFixtureIndex()
    const genesis = readGenesis()
    const head = blocks.length
    const headBlock = blocks[head - 1]!
    const token = index.contracts.find((c) => c.name === 'token')?.address
    if (token === undefined) throw new Error('fixtures/bench/accounts.json names no "token"')
    const senders = index.accounts.filter((a) => /^s\d+$/.test(a.name)).map((a) => a.address)
    const alice = index.accounts.find((a) => a.name === 'alice')!.address
    // Everyone the head block's token transfers paid (transfer(address,uint256) calldata).
    const recipients = [
      ...new Set(headBlock.calls.filter((c) => c.to === token && c.data.startsWith('0xa9059cbb')).map((c) => `0x${c.data.slice(34, 74)}`)),
    ]
    log(`bench chain: chain id ${genesis.config.chainId}, ${head} blocks, head block ${head} with ${headBlock.rawTransactions.length} transactions, token ${token}, ${senders.length} senders`)

    // 2. The two servers.
    const config = {
      serviceHost: 'localhost',
      networks: { [BENCH_NETWORK]: { fixture: BENCH_FIXTURE } },
      keys: [{ key: BENCH_KEY, networks: [BENCH_NETWORK], dailyCredits: BENCH_DAILY_CREDITS }],
    }
    const configPath = join(tmp, 'bench.config.json')
    writeFileSync(configPath, JSON.stringify(config, null, 2))
    const genesisPath = join(BENCH_FIXTURE, 'genesis.json')
    log(`starting gateway-double (bench fixture) and ${anvilVersion()} on 127.0.0.1...`)
    // Anvil starts and takes the replay while gateway-double loads (awaited below).
    const anvilStarting = startAnvilOnChain(genesisPath, BigInt(genesis.gasLimit), blocks)
    anvilStarting.catch(() => {})
    // The control routes (under /_double/, off the measured lane) mine the newHeads rows' blocks.
    const gdChild = await GatewayChild.start(configPath, { control: true })
    const gdEndpoint: Endpoint = { name: 'gateway-double', port: gdChild.port, path: `/v3/${BENCH_KEY}`, host: `${BENCH_NETWORK}-mainnet.localhost` }
    const gd = new RpcClient(gdEndpoint, (method, status) => tally.add(method, status))
    log(`  gateway-double loaded the bench chain in ${Math.round(gdChild.loadMs)} ms (port ${gdChild.port}, pid ${gdChild.process.pid})`)
    // --before: that commit's server on the same chain and config, started as this one is (its own bench/gatewayServer.ts).
    const before = opts.before === undefined ? undefined : checkoutBefore(opts.before, join(tmp, 'before'), log)
    if (before !== undefined) removeAtEnd.push(before.remove)
    const beforeChild = before === undefined ? undefined : await GatewayChild.start(configPath, {}, before.dir)
    const beforeEndpoint: Endpoint | undefined = beforeChild && { ...gdEndpoint, name: 'before', port: beforeChild.port }
    if (beforeChild) log(`  before (${before!.commit.slice(0, 12)}) loaded the bench chain in ${Math.round(beforeChild.loadMs)} ms (port ${beforeChild.port})`)
    const { process: anvilProcess, endpoint: anvilEp, replayMs } = await anvilStarting
    const anvilPort = anvilEp.port
    const anvil = new RpcClient(anvilEp)
    log(`  replayed ${blocks.reduce((n, b) => n + b.rawTransactions.length, 0)} signed transactions onto Anvil in ${head} blocks in ${Math.round(replayMs)} ms (port ${anvilPort}, pid ${anvilProcess.pid})`)

    // 3. Do they serve the same chain?
    const verification: Verification = await verifyAgreement(gd, anvil, {
      head,
      token,
      holders: [alice, ...senders, ...recipients],
      accounts: [alice, ...senders, headBlock.coinbase],
    })
    printVerification(verification)

    // 4. The load.
    const s0 = senders[0]!
    const s1 = senders[1]!
    let distinctNext = 0
    // A log filter on the token on each server, polled by the eth_getFilterChanges row (nothing is
    // mined meanwhile: each poll answers []; polling keeps it alive).
    const filterIds: Record<ServerName, string> = {
      'gateway-double': (await gd.call('eth_newFilter', [{ address: token }])) as string,
      anvil: (await anvil.call('eth_newFilter', [{ address: token }])) as string,
      before: beforeEndpoint === undefined ? '' : ((await new RpcClient(beforeEndpoint).call('eth_newFilter', [{ address: token }])) as string),
    }
    const specs: RowSpec[] = [
      { id: 'eth_blockNumber', label: 'eth_blockNumber', method: 'eth_blockNumber', fixed: true, params: () => [], compare: (a, b) => (a === b ? [] : [{ what: 'eth_blockNumber', gatewayDouble: a, anvil: b }]) },
      {
        id: 'eth_getStorageAt', label: 'eth_getStorageAt (token balance slot)', method: 'eth_getStorageAt', fixed: true,
        params: () => [token, balanceSlot(s0), 'latest'],
        compare: (a, b) => (String(a).toLowerCase() === String(b).toLowerCase() ? [] : [{ what: 'eth_getStorageAt', gatewayDouble: a, anvil: b }]),
      },
      {
        id: 'eth_getTransactionByBlockNumberAndIndex', label: `eth_getTransactionByBlockNumberAndIndex (block ${head}, index i % ${headBlock.rawTransactions.length})`,
        method: 'eth_getTransactionByBlockNumberAndIndex', fixed: false,
        params: (i) => [hex(head), hex(i % headBlock.rawTransactions.length)],
        compare: (a, b) => diffFields('transaction', a as Record<string, unknown>, b as Record<string, unknown>, TX_FIELDS),
      },
      {
        id: 'eth_getBlockReceipts', label: `eth_getBlockReceipts (${headBlock.rawTransactions.length}-transaction block)`, method: 'eth_getBlockReceipts', fixed: true,
        params: () => [hex(head)],
        compare: (a, b) => {
          const x = a as Record<string, unknown>[]
          const y = b as Record<string, unknown>[]
          if (x.length !== y.length) return [{ what: 'receipts', gatewayDouble: x.length, anvil: y.length }]
          return x.flatMap((r, i) => diffFields(`receipt ${i}`, r, y[i], RECEIPT_FIELDS, { logs: LOG_FIELDS }))
        },
      },
      {
        id: 'eth_estimateGas.repeated', label: 'eth_estimateGas, ERC-20 transfer, repeated', method: 'eth_estimateGas', fixed: true,
        params: () => [{ from: s0, to: token, data: transferData(s1, 10n ** 18n) }],
        compare: (a, b) => compareEstimates('eth_estimateGas (repeated body)', a, b),
      },
      {
        id: 'eth_estimateGas.distinct', label: 'eth_estimateGas, ERC-20 transfer, distinct', method: 'eth_estimateGas', fixed: false,
        // A new recipient and amount for every request, never repeated within the bench.
        params: () => {
          const n = distinctNext++
          return [{ from: senders[n % senders.length]!, to: token, data: transferData(`0xcafe${n.toString(16).padStart(36, '0')}`, BigInt((n % 1000) + 1) * 10n ** 15n) }]
        },
        compare: (a, b) => compareEstimates('eth_estimateGas (distinct body)', a, b),
      },
      {
        id: 'eth_call.distinct', label: 'eth_call balanceOf, a different address each time', method: 'eth_call', fixed: false,
        // A holder for request 7 (the compared answer), a new address never asked before otherwise.
        params: (i) => {
          const n = distinctNext++
          const who = i === 7 ? s1 : `0xba1a${n.toString(16).padStart(36, '0')}`
          return [{ to: token, data: `0x70a08231${pad32(who)}` }, 'latest']
        },
        compare: (a, b) => (a === b ? [] : [{ what: 'eth_call balanceOf', gatewayDouble: a, anvil: b }]),
      },
      {
        id: 'eth_getFilterChanges', label: 'eth_getFilterChanges (log filter on the token, nothing new)', method: 'eth_getFilterChanges', fixed: true,
        params: (_i, server) => [filterIds[server]],
        compare: (a, b) => (JSON.stringify(a) === JSON.stringify(b) ? [] : [{ what: 'eth_getFilterChanges', gatewayDouble: a, anvil: b }]),
      },
    ]

    const rows: Row[] = []
    /** --profile: each throughput row's profile files and the requests gateway-double answered while profiled. */
    const profiled: { id: string; files: string[]; answered: number }[] = []
    const answerMismatches: Mismatch[] = []
    const loadOpts = { durationMs: opts.durationMs, concurrency: opts.concurrency }

    // For scale: what Node and this client do with nothing behind them. A row judged against it
    // runs it in each of its rounds, alternated with the servers, so a drift of the machine's
    // speed during the run moves both sides of that ratio alike.
    const referencePort = await freePort()
    const reference = spawnTracked(process.execPath, ['-e', fixedReplyServer(referencePort)])
    const referenceEp: Endpoint = { name: 'node:http', port: referencePort, path: '/', host: `${LOOPBACK}:${referencePort}` }
    await waitForAnswer(new RpcClient(referenceEp), reference)
    const referenceBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })
    const runReference = (durationMs: number) => runLoad(referenceEp, () => referenceBody, { ...loadOpts, durationMs })
    const referenceRuns: LoadResult[] = []
    if (opts.warmupMs > 0) await runReference(opts.warmupMs)
    for (const spec of specs.filter((sp) => wanted(sp.id))) {
      const body = (params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: spec.method, params })
      const bodiesFor = (server: ServerName) => {
        const fixedBody = spec.fixed ? body(spec.params(0, server)) : undefined
        return fixedBody !== undefined ? () => fixedBody : (i: number) => body(spec.params(i, server))
      }
      const bodyAt = { 'gateway-double': bodiesFor('gateway-double'), anvil: bodiesFor('anvil'), before: bodiesFor('before') }
      // One answer of each, compared.
      const [a, b] = await Promise.all([gd.call(spec.method, spec.params(7, 'gateway-double')), anvil.call(spec.method, spec.params(7, 'anvil'))])
      const diffs = spec.compare(a, b)
      answerMismatches.push(...diffs.map((d) => ({ ...d, what: `${spec.id}: ${d.what}` })))
      const runOn = async (endpoint: Endpoint, durationMs: number) => {
        const result = await runLoad(endpoint, bodyAt[endpoint === gdEndpoint ? 'gateway-double' : endpoint === beforeEndpoint ? 'before' : 'anvil'], { ...loadOpts, durationMs })
        if (endpoint === gdEndpoint) for (const [status, n] of Object.entries(result.statuses)) tally.add(spec.method, Number(status), n)
        return result
      }
      if (opts.warmupMs > 0) {
        await runOn(gdEndpoint, opts.warmupMs)
        if (beforeEndpoint) await runOn(beforeEndpoint, opts.warmupMs)
        await runOn(anvilEp, opts.warmupMs)
      }
      const gdRuns: LoadResult[] = []
      const anvilRuns: LoadResult[] = []
      const beforeRuns: LoadResult[] = []
      const judgedOnReference = TARGETS[spec.id]?.of === REFERENCE_ROW
      const profile = opts.profileDir === undefined ? undefined : { id: spec.id, files: [] as string[], answered: 0 }
      if (profile) profiled.push(profile)
      for (let round = 1; round <= opts.rounds; round++) {
        if (profile) await gdChild.profileStart()
        const x = await runOn(gdEndpoint, opts.durationMs)
        if (profile) {
          const file = join(opts.profileDir!, `${spec.id}.round${round}.cpuprofile`)
          await gdChild.profileStop(file)
          profile.files.push(file)
          profile.answered += x.answered
        }
        gdRuns.push(x)
        if (beforeEndpoint) beforeRuns.push(await runOn(beforeEndpoint, opts.durationMs))
        const r = judgedOnReference ? await runReference(opts.durationMs) : undefined
        if (r) referenceRuns.push(r)
        const y = await runOn(anvilEp, opts.durationMs)
        anvilRuns.push(y)
        log(`  ${spec.id} round ${round}/${opts.rounds}: gateway-double ${Math.round(x.reqPerSec)} req/s, ${beforeEndpoint ? `before ${Math.round(beforeRuns.at(-1)!.reqPerSec)} req/s, ` : ''}${r ? `node:http ${Math.round(r.reqPerSec)} req/s (${(x.reqPerSec / r.reqPerSec).toFixed(2)}x), ` : ''}anvil ${Math.round(y.reqPerSec)} req/s`)
      }
      const g = pool(gdRuns)
      const v = pool(anvilRuns)
      for (const [name, s] of [['gateway-double', g], ['anvil', v]] as const) {
        if (s.failures > 0 || s.ok < s.answered) {
          log(`  ! ${spec.id} on ${name}: ${s.answered - s.ok} answers not ok, ${s.failures} failures; first: ${s.firstErrorBody ?? '?'}`)
        }
      }
      const ratio = g.reqPerSec / v.reqPerSec
      rows.push({ kind: 'throughput', id: spec.id, label: spec.label, gatewayDouble: g, anvil: v, ratio, ...(beforeEndpoint ? { before: pool(beforeRuns) } : {}) } satisfies ThroughputRow)
    }
    const unexpected = answerMismatches.filter((m) => m.expected === undefined)
    for (const m of answerMismatches.filter((m) => m.expected !== undefined)) {
      log(`answers differ as expected: ${m.what}: gateway-double ${String(m.gatewayDouble)}, anvil ${String(m.anvil)} (${m.expected})`)
    }
    if (unexpected.length > 0) {
      log(`ANSWERS THAT DIFFER between the servers (${unexpected.length}):`)
      for (const m of unexpected.slice(0, 20)) log(`  ${m.what}: gateway-double ${JSON.stringify(m.gatewayDouble)}, anvil ${JSON.stringify(m.anvil)}`)
    } else {
      log('otherwise the measured calls answer the same on both servers (one sample of each compared)')
    }

    // The reference row pools the rounds run beside the rows judged against it; alone (no such row
    // asked for), it runs its own rounds here.
    if (referenceRuns.length === 0) for (let round = 1; round <= opts.rounds; round++) referenceRuns.push(await runReference(opts.durationMs))
    const referenceRow: ReferenceRow = {
      kind: 'reference', id: REFERENCE_ROW, label: 'for scale: bare node:http server, fixed reply (not gateway-double)', stats: pool(referenceRuns),
    }
    log(`  reference: bare node:http ${Math.round(referenceRow.stats.reqPerSec)} req/s (${referenceRuns.length} runs)`)
    await reference.stop()

    // 5. Memory after the load, then the ledger.
    const gdMem = residentMemory(gdChild.process.pid)
    const anvilMem = residentMemory(anvilProcess.pid)
    const memoryRow: MemoryRow = {
      kind: 'memory', id: 'rss-after-load', label: 'resident memory after load (VmRSS)',
      gatewayDoubleKiB: gdMem.rssKiB, anvilKiB: anvilMem.rssKiB, gatewayDoublePeakKiB: gdMem.peakKiB, anvilPeakKiB: anvilMem.peakKiB,
      ratio: gdMem.rssKiB / anvilMem.rssKiB,
      ...(beforeChild ? { beforeKiB: residentMemory(beforeChild.process.pid).rssKiB } : {}),
    }
    await beforeChild?.process.stop()
    const dayBefore = Math.floor(startedAt.getTime() / 86_400_000)
    const { balance, utcDay } = await gdChild.balance(BENCH_KEY)
    const ledgerSpent = balance === undefined ? undefined : BENCH_DAILY_CREDITS - balance
    const credits = {
      ledgerSpent,
      answeredCalls: tally.calls,
      sumOfCosts: tally.spent,
      refusedByStatus: tally.refused,
      exact: ledgerSpent === tally.spent,
      dayRolledOver: utcDay !== dayBefore,
    }

    // 5b. newHeads latency, after the ledger was read (the subscriptions' credits are not in the tally).
    const latencyRows: LatencyRow[] = []
    const newHeadsSubscribers = [1, 100].filter((n) => wanted(`newHeads.${n}`))
    if (opts.newHeadsBlocks > 0 && newHeadsSubscribers.length > 0) {
      log(`newHeads latency (${opts.newHeadsBlocks} blocks per row, after 3 unmeasured)...`)
      // Mined as Anvil's blocks are, by `evm_mine`: on the test endpoint (until session 9 the control
      // route `POST /_double/networks/bench/mine`, which goes through Express: ~10% of the row's CPU).
      const testEndpoint = new RpcClient({ name: 'gateway-double test endpoint', port: gdChild.port, path: `/_double/rpc/${BENCH_NETWORK}`, host: `${LOOPBACK}:${gdChild.port}` })
      const blockTimes = new Map<number, number>()
      gdChild.process.child.on('message', (m: FromServer) => {
        if (m.type === 'block') blockTimes.set(m.number, m.at)
      })
      const watching = new Promise<void>((resolveWatching) => gdChild.process.child.on('message', (m: FromServer) => m.type === 'watching' && resolveWatching()))
      gdChild.process.child.send({ type: 'watchBlocks', network: BENCH_NETWORK } satisfies ToServer)
      await watching
      latencyRows.push(
        ...(await newHeadsRows({
          gatewayDouble: { port: gdChild.port, network: BENCH_NETWORK, key: BENCH_KEY, blockTimes },
          anvil: { port: anvilPort, mine: async () => void (await anvil.call('evm_mine')) },
          mineGatewayDouble: async () => void (await testEndpoint.call('evm_mine')),
          subscribers: newHeadsSubscribers,
          blocks: opts.newHeadsBlocks,
          warmup: 3,
          lookup: localhostLookup,
          log,
        })),
      )
    }
    await Promise.all([gdChild.process.stop(), anvilProcess.stop()])
    closeControlConnections()
    // 5c. The transaction loop (./testLoop.ts), on the test endpoint (no credits), each row on a
    // fresh pair of servers (./loopPairs.ts says why).
    const loopRows = LOOP_ROWS.filter(wanted)
    if (opts.mineBlocks > 0 && loopRows.length > 0) {
      log('transaction loop (sends, deploys, snapshots, anvil_mine, a 20-test suite), one operation at a time, each row on a fresh pair of servers...')
      const keys = index.accounts.filter((a) => /^s3\d$/.test(a.name)).map((a) => a.privateKey as `0x${string}`)
      const deployData = blocks[0]!.calls.find((c) => c.to === undefined)!.data as `0x${string}`
      const startGatewayDouble = async (root?: string) => {
        const child = await GatewayChild.start(configPath, { control: true }, root)
        return { port: child.port, stop: () => child.process.stop() }
      }
      rows.push(
        ...(await loopRowsOnFreshServers({
          ids: loopRows, startGatewayDouble: () => startGatewayDouble(), ...(before ? { startBefore: () => startGatewayDouble(before.dir) } : {}), genesisPath, gasLimit: BigInt(genesis.gasLimit), blocks,
          chainId: index.chainId, token: token as `0x${string}`, deployData, keys,
          durationMs: opts.durationMs, warmupMs: opts.warmupMs, rounds: opts.rounds, mineBlocks: opts.mineBlocks, log,
        })),
      )
    }

    // 6. Cold starts.
    const coldRows: ColdStartRow[] = []
    const primeMs: { defaultFixtures?: number; executionApis?: number } = {}
    if (opts.coldRuns > 0 && COLD_ROWS.some(wanted)) {
      log(`cold starts (${opts.coldRuns} each)...`)
      const gdDefault: number[] = []
      const gdHive: number[] = []
      const anvilBare: number[] = []
      // `--rows` without cold-start.execution-apis: the default fixtures' starts only (they are the loop's pace).
      const hiveWanted = wanted('cold-start.execution-apis')
      const hivePresent = hiveWanted && existsSync(join(HIVE_FIXTURE, 'chain.rlp'))
      if (hiveWanted && !hivePresent) log(`  the execution-apis chain is absent (${HIVE_FIXTURE}): its cold start is not measured`)
      const hiveConfig = join(tmp, 'hive.config.json')
      if (hivePresent) {
        writeFileSync(hiveConfig, JSON.stringify({ networks: { hive: { fixture: HIVE_FIXTURE } }, keys: [{ key: DEV_KEY, networks: ['hive'] }] }, null, 2))
      }
      // gateway-double verifies a chain once and starts later from what it verified (a cache keyed
      // by the fixture's bytes and the code): one unmeasured start first, so the samples are the
      // starts a user gets every time after the first.
      const gdDefaultStart = (port: number) => () =>
        spawnTracked(process.execPath, [join(ROOT, 'bin/gateway-double.js'), '--port', String(port)], { cwd: ROOT })
      const gdDefaultEp = (port: number): Endpoint => ({ name: 'gateway-double', port, path: `/v3/${DEV_KEY}`, host: 'ethereum-mainnet.localhost' })
      const gdHiveStart = (port: number) => () =>
        spawnTracked(process.execPath, [join(ROOT, 'bin/gateway-double.js'), '--config', hiveConfig, '--port', String(port)], { cwd: ROOT })
      const gdHiveEp = (port: number): Endpoint => ({ name: 'gateway-double', port, path: `/v3/${DEV_KEY}`, host: 'hive-mainnet.localhost' })
      let port = await freePort()
      primeMs.defaultFixtures = (await coldStart(gdDefaultStart(port), gdDefaultEp(port))).ms
      if (hivePresent) {
        port = await freePort()
        primeMs.executionApis = (await coldStart(gdHiveStart(port), gdHiveEp(port))).ms
      }
      log(`  first start (may verify and fill the cache, not measured): default fixtures ${Math.round(primeMs.defaultFixtures)} ms${hivePresent ? `, execution-apis chain ${Math.round(primeMs.executionApis!)} ms` : ''}`)
      for (let i = 0; i < opts.coldRuns; i++) {
        // Alternated, like the load.
        port = await freePort()
        const a = await coldStart(gdDefaultStart(port), gdDefaultEp(port))
        gdDefault.push(a.ms)
        port = await freePort()
        const b = await coldStart(() => spawnAnvil(['--host', LOOPBACK, '--port', String(port)]), anvilEndpoint(port))
        anvilBare.push(b.ms)
        let line = `  ${i + 1}/${opts.coldRuns}: gateway-double (default fixtures) ${Math.round(a.ms)} ms, anvil ${Math.round(b.ms)} ms`
        if (hivePresent) {
          port = await freePort()
          const c = await coldStart(gdHiveStart(port), gdHiveEp(port))
          gdHive.push(c.ms)
          line += `, gateway-double (execution-apis chain) ${Math.round(c.ms)} ms`
        }
        log(line)
      }
      const mGd = median(gdDefault)
      const mAnvil = median(anvilBare)
      coldRows.push({
        kind: 'cold-start', id: 'cold-start.default', label: `cold start to first answer, default fixtures (median of ${opts.coldRuns}; Anvil: no chain)`,
        gatewayDoubleMs: mGd, anvilMs: mAnvil, gatewayDoubleSamplesMs: gdDefault, anvilSamplesMs: anvilBare,
        ratio: mGd / mAnvil,
      })
      if (hiveWanted) coldRows.push(
        hivePresent
          ? {
              kind: 'cold-start', id: 'cold-start.execution-apis', label: `cold start to first answer, execution-apis chain (median of ${opts.coldRuns})`,
              gatewayDoubleMs: median(gdHive), anvilMs: undefined, gatewayDoubleSamplesMs: gdHive, anvilSamplesMs: [],
              ratio: undefined, note: 'n/a',
            }
          : {
              kind: 'cold-start', id: 'cold-start.execution-apis', label: 'cold start to first answer, execution-apis chain (absent: not measured)',
              gatewayDoubleMs: undefined, anvilMs: undefined, gatewayDoubleSamplesMs: [], anvilSamplesMs: [],
              ratio: undefined, note: 'n/a',
            },
      )
    }

    // 7. The table.
    const allRows: Row[] = [...rows, referenceRow, ...latencyRows, ...coldRows, memoryRow]
    const environment = {
      date: startedAt.toISOString(),
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      anvil: anvilVersion(),
    }
    const settings = {
      durationS: opts.durationMs / 1000, concurrency: opts.concurrency, rounds: opts.rounds, warmupS: opts.warmupMs / 1000, coldRuns: opts.coldRuns,
      gatewayDoubleBenchLoadMs: Math.round(gdChild.loadMs), anvilReplayMs: Math.round(replayMs),
      gatewayDoubleFirstStartMs: primeMs,
      ...(before === undefined ? {} : { before: { ref: before.ref, commit: before.commit, dependencies: before.dependencies } }),
    }
    const out: string[] = []
    out.push('')
    out.push(
      `gateway-double vs ${environment.anvil} on the bench chain: ${opts.rounds} rounds x ${opts.durationMs / 1000} s per server and row (alternated), ` +
        `${opts.concurrency} requests in flight; node ${environment.node}, ${environment.cpus} CPUs`,
    )
    out.push('')
    out.push(formatTable(allRows))
    out.push('')
    if (primeMs.defaultFixtures !== undefined) {
      out.push(
        `cold start samples follow one unmeasured first start (gateway-double verifies a chain once, then starts from its cache): ` +
          `it took ${Math.round(primeMs.defaultFixtures)} ms (default fixtures)${primeMs.executionApis === undefined ? '' : `, ${Math.round(primeMs.executionApis)} ms (execution-apis chain)`}`,
      )
    }
    out.push(`gd/Anvil: throughput ratio (higher is better) for the calls, time ratio for cold start and newHeads p50 (lower is better), memory ratio for RSS. "!" marks a server that gave errors.`)
    const throughputOf = (id: string) => rows.find((r): r is ThroughputRow => r.kind === 'throughput' && r.id === id)
    const polls = throughputOf('eth_getFilterChanges')
    const blockNumbers = throughputOf('eth_blockNumber')
    if (polls !== undefined && blockNumbers !== undefined) {
      // An idle poll against the cheapest call, on each server: what a filter's lookup adds.
      const share = (a: ServerStats, b: ServerStats) => (a.reqPerSec / b.reqPerSec).toFixed(2)
      out.push(
        `eth_getFilterChanges (an idle poll) / eth_blockNumber throughput in this run: gateway-double ${share(polls.gatewayDouble, blockNumbers.gatewayDouble)}, ` +
          `Anvil ${share(polls.anvil, blockNumbers.anvil)}`,
      )
    }
    if (latencyRows.length > 0) {
      out.push(`newHeads: from the mine request (evm_mine on both) to each subscriber's notification; the last subscriber's median: ${latencyRows.map((r) => `${r.id} gateway-double ${r.gatewayDouble.lastP50Ms.toFixed(2)} ms, Anvil ${r.anvil.lastP50Ms.toFixed(2)} ms`).join('; ')}`)
      const delivery = latencyRows.filter((r) => r.gatewayDouble.fromBlock !== undefined)
      if (delivery.length > 0) {
        out.push(`newHeads delivery in gateway-double, from the block's chain event to each notification (no mining): ${delivery.map((r) => `${r.id} p50 ${r.gatewayDouble.fromBlock!.p50Ms.toFixed(2)} ms, p99 ${r.gatewayDouble.fromBlock!.p99Ms.toFixed(2)} ms`).join('; ')}`)
      }
    }
    out.push(
      `chain agreement: ${verification.mismatches.length === 0 ? 'receipts, token storage, balances and nonces identical' : `${verification.mismatches.length} MISMATCHES (above)`}; ` +
        `block hashes ${verification.blockHashesMatch ? 'identical' : 'differ (mixHash/extraData: see above)'}`,
    )
    out.push(
      credits.dayRolledOver
        ? `credits: the run crossed 00:00 UTC, the ledger restarted: not checked (ledger ${ledgerSpent}, calls since start ${tally.spent})`
        : `credits: ledger spent ${ledgerSpent?.toLocaleString('en-US')} ${credits.exact ? '==' : '!='} sum of the costs of the ${tally.calls.toLocaleString('en-US')} answered calls ${tally.spent.toLocaleString('en-US')}: ${credits.exact ? 'exact' : 'NOT EXACT'}` +
            (Object.keys(tally.refused).length > 0 ? ` (refused: ${JSON.stringify(tally.refused)})` : ''),
    )
    if (before !== undefined) {
      const ratios = allRows.flatMap((r) => {
        const f = figureOf(r)
        return f.value !== undefined && f.before !== undefined ? [`${r.id} ${(f.value / f.before).toFixed(2)}x`] : []
      })
      out.push(`new/before: this code against ${before.ref} (${before.commit.slice(0, 12)}, node_modules ${before.dependencies}), alternated in this run: ${ratios.join(', ')} (throughput: higher is better; memory: lower is better)`)
    }
    out.push(targetsLine(allRows))
    if (profiled.length > 0) {
      out.push('')
      out.push(
        `CPU profiles of gateway-double's server during each row's measured rounds (--profile; V8's sampling profiler: self time, sampled wall time of the main thread, not CPU; ` +
          `positions are in dist/, which has no source maps, under the module esbuild bundled there). The profiler costs the server CPU: ` +
          `this run's figures are not the bench's.`,
      )
      for (const p of profiled) {
        out.push(formatProfileSummary(p.id, summariseProfiles(p.files.map(readProfile), p.answered, ROOT), p.files))
      }
    }
    out.push(`total ${Math.round((performance.now() - t0) / 1000)} s`)
    process.stdout.write(`${out.join('\n')}\n`)

    if (opts.json !== undefined) {
      const json = {
        environment,
        settings,
        rows: withVerdicts(allRows),
        verification,
        answerMismatches,
        credits,
      }
      writeFileSync(opts.json, `${JSON.stringify(json, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2)}\n`)
      log(`wrote ${opts.json}`)
    }
    const failed = verification.mismatches.length > 0 || (!credits.exact && !credits.dayRolledOver)
    return failed ? 1 : 0
  } finally {
    closeControlConnections()
    await stopAll()
    for (const remove of removeAtEnd) remove()
    rmSync(tmp, { recursive: true, force: true })
  }
}

/** Polls eth_blockNumber until the server answers (at most 30 s). */
/** A bare node:http server answering every request with one fixed JSON-RPC reply (CommonJS, for `node -e`). */
function fixedReplyServer(port: number): string {
  return `const http = require('node:http')
const body = Buffer.from('{"jsonrpc":"2.0","id":1,"result":"0x3"}')
http.createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length })
    res.end(body)
  })
}).listen(${port}, '${LOOPBACK}')
process.on('SIGTERM', () => process.exit(0))`
}

function printVerification(v: Verification): void {
  log(`chain agreement over ${v.blocks} blocks: ${v.receiptsCompared} receipts, ${v.storageSlotsCompared} token storage reads, ${v.accountsCompared} accounts (balance, nonce)`)
  for (const h of v.headerFields) {
    if (h.differsIn.length > 0) log(`  header ${h.field} differs in blocks ${h.differsIn.join(', ')}${h.reason ? `: ${h.reason}` : ' (UNEXPECTED)'}`)
  }
  const same = v.headerFields.filter((h) => h.differsIn.length === 0).map((h) => h.field)
  log(`  header fields identical in every block: ${same.join(', ')}`)
  for (const note of v.notes) log(`  ${note}`)
  if (v.mismatches.length === 0) log('  no mismatch in receipts, token storage, balances or nonces')
  else {
    log(`  ${v.mismatches.length} MISMATCHES:`)
    for (const m of v.mismatches.slice(0, 30)) log(`    ${m.what}: gateway-double ${JSON.stringify(m.gatewayDouble)}, anvil ${JSON.stringify(m.anvil)}`)
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  async (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    await stopAll()
    process.exitCode = 1
  },
)
