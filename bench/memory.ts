/**
 * `npm run bench:memory`: how gateway-double's memory grows with what a test suite does (issue 19,
 * item 5). One server (bench/gatewayServer.ts on the bench chain, started with --expose-gc and the
 * control routes), driven through its test endpoint (`POST /_double/rpc/bench`):
 *
 * - empty blocks: `anvil_mine` of `--empty` blocks;
 * - one-transaction blocks: `--tx` value transfers by `eth_sendTransaction` (automine), one block each;
 * - snapshot cycles: `--cycles` times `evm_snapshot`, one transfer, `evm_revert`: nothing should stay.
 *
 * Each phase runs a tenth of itself first (the snapshot cycles: as many as it measures), not
 * measured: first-use allocations and compiled code. A cycle's code paths are many and each is
 * taken once per cycle, so V8 is still optimizing them after a hundred: two heap snapshots around
 * 1,000 cycles after 100 showed 1.8 MiB more, all of it compiled code and its deoptimization
 * data (code objects, `code deopt data`, `code relocation info`), ~10 KiB of strings. Then it is
 * measured between two readings of the server's resident memory (RSS) and JS heap, each
 * after a full GC, the RSS once it has settled after it (`Server.#settled`; as read at the GC,
 * too). Printed: the growth per block or cycle, its target, met or missed.
 * `--heap-snapshots <dir>` also writes a V8 heap snapshot at each reading (SIGUSR2), to compare
 * in Chrome's DevTools.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { BENCH_FIXTURE, BENCH_NETWORK, ROOT, benchFixtureExists, buildBenchFixture, readFixtureIndex } from './fixture.ts'
import type { FromServer, ToServer } from './gatewayServer.ts'
import type { TrackedChild } from './processes.ts'
import { LOOPBACK, closeControlConnections, residentMemory, sleep, spawnTracked, stopAll } from './processes.ts'
import { RpcClient } from './rpc.ts'

const USAGE = `Usage: npm run bench:memory -- [options]

gateway-double's memory growth per empty block, per one-transaction block and per
evm_snapshot / transaction / evm_revert cycle (RSS and JS heap after a full GC; RSS once
it has settled, and as read at the GC).

Options:
  --empty <n>            empty blocks mined by anvil_mine (default 1000)
  --tx <n>               one-transaction blocks (default 300)
  --cycles <n>           snapshot / transaction / revert cycles (default 1000)
  --heap-snapshots <dir> write a heap snapshot at each reading
  -h, --help             print this help
`

const KiB = 1024
const MiB = 1024 * KiB

/** The settled reading (`Server.#settled`): polled this often, done when unchanged this long, or at most this long. */
const POLL_MS = 25
const SETTLE_MS = 1000
const SETTLE_MAX_MS = 10_000

interface Reading {
  /** Resident memory read by the server right after its GCs (`process.memoryUsage().rss`). */
  rss: number
  /** Resident memory once it stops changing after them (read from /proc by this process): see `settled`. */
  rssSettled: number
  /** How long after the GCs' answer it stopped changing, in ms. */
  settleMs: number
  heapUsed: number
  external: number
  /** What V8 holds for the JS heap (used or not). */
  heapTotal: number
}

interface Slope {
  label: string
  count: number
  unit: string
  rssPer: number
  rssSettledPer: number
  heapPer: number
  /** Bytes per unit. */
  target: number
}

/** The server child, asked for its memory over IPC. */
class Server {
  constructor(readonly child: TrackedChild) {}

  static async start(configPath: string, snapshotDir: string | undefined): Promise<{ server: Server; port: number }> {
    const flags = ['--expose-gc', ...(snapshotDir ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshotDir}`] : [])]
    const child = spawnTracked(process.execPath, [...flags, '--import', 'tsx', join(ROOT, 'bench/gatewayServer.ts'), configPath, JSON.stringify({ control: true })], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    })
    const ready = await Server.#next(child, 'ready', 180_000)
    if (ready.type !== 'ready') throw new Error(`gateway-double failed to start: ${ready.type === 'failed' ? ready.message : JSON.stringify(ready)}`)
    return { server: new Server(child), port: ready.port }
  }

  static #next(child: TrackedChild, type: FromServer['type'] | 'ready', timeoutMs: number): Promise<FromServer> {
    return new Promise((resolveNext, reject) => {
      const timer = setTimeout(() => reject(new Error(`gateway-double: no '${type}' answer within ${timeoutMs} ms:\n${child.output().slice(-2000)}`)), timeoutMs)
      const onMessage = (m: FromServer) => {
        if (m.type !== type && m.type !== 'failed') return
        clearTimeout(timer)
        child.child.off('message', onMessage)
        resolveNext(m)
      }
      child.child.on('message', onMessage)
      void child.exited.then(({ code, signal }) => {
        clearTimeout(timer)
        reject(new Error(`gateway-double exited (${code ?? signal}):\n${child.output().slice(-3000)}`))
      })
    })
  }

  /** Memory after two full GCs (the second collects what the first's finalizers released). */
  async read(snapshotDir: string | undefined): Promise<Reading> {
    await this.#ask()
    const m = await this.#ask()
    const { rss, ms } = await this.#settled()
    if (snapshotDir !== undefined) await this.#snapshot(snapshotDir)
    return { rss: m.rss, rssSettled: rss, settleMs: ms, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external }
  }

  /**
   * The server's resident memory once it has stopped changing after the GCs (the same value for
   * `SETTLE_MS`, read every `POLL_MS` from /proc/<pid>/status; at most `SETTLE_MAX_MS`). The
   * server is idle then: what it still gives back is the pages the GC freed, which V8's unmapper
   * (a background thread) hands back to the kernel after `memoryUsage()` has read them. Around the
   * same 1,000 empty blocks, RSS grew 13.5 MiB read at the GC and 7.4 MiB settled, and read the same
   * 1 and 3 s later (docs/benchmark.md, "Memory: growth per block..."): what stays is what the
   * process holds.
   */
  async #settled(): Promise<{ rss: number; ms: number }> {
    const t0 = performance.now()
    let last = residentMemory(this.child.pid).rssKiB
    let since = t0
    for (;;) {
      await sleep(POLL_MS)
      const now = performance.now()
      const rss = residentMemory(this.child.pid).rssKiB
      if (rss !== last) {
        last = rss
        since = now
      } else if (now - since >= SETTLE_MS || now - t0 >= SETTLE_MAX_MS) return { rss: last * KiB, ms: Math.round(since - t0) }
    }
  }

  /** SIGUSR2, then waits until the new snapshot file stops growing. */
  async #snapshot(dir: string): Promise<void> {
    const files = () => readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot'))
    const before = new Set(files())
    this.child.child.kill('SIGUSR2')
    let size = -1
    for (;;) {
      await sleep(500)
      const made = files().find((f) => !before.has(f))
      if (made === undefined) continue
      const now = statSync(join(dir, made)).size
      if (now === size && now > 0) break
      size = now
    }
    // The server held its event loop while writing: the keep-alive connections may have timed out.
    closeControlConnections()
  }

  async #ask(): Promise<Extract<FromServer, { type: 'memory' }>> {
    const answer = Server.#next(this.child, 'memory', 120_000)
    this.child.child.send({ type: 'memory' } satisfies ToServer)
    const m = await answer
    if (m.type !== 'memory') throw new Error(`gateway-double: ${JSON.stringify(m)}`)
    if (!m.gc) throw new Error('gateway-double runs without --expose-gc: no full GC before the reading')
    return m
  }
}

const hex = (n: number | bigint) => `0x${n.toString(16)}`

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      empty: { type: 'string' },
      tx: { type: 'string' },
      cycles: { type: 'string' },
      'heap-snapshots': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) {
    process.stdout.write(USAGE)
    return 0
  }
  const count = (v: string | undefined, name: string, dflt: number) => {
    const n = v === undefined ? dflt : Number(v)
    if (!Number.isInteger(n) || n < 10 || n > 100_000) throw new Error(`--${name}: expected an integer from 10 to 100000, got ${JSON.stringify(v)}`)
    return n
  }
  const empty = count(values.empty, 'empty', 1000)
  const txs = count(values.tx, 'tx', 300)
  const cycles = count(values.cycles, 'cycles', 1000)
  const snapshotDir = values['heap-snapshots'] === undefined ? undefined : resolve(process.env.INIT_CWD ?? process.cwd(), values['heap-snapshots'])
  if (snapshotDir) mkdirSync(snapshotDir, { recursive: true })

  if (!benchFixtureExists()) {
    process.stderr.write(`building ${BENCH_FIXTURE} from its source...\n`)
    await buildBenchFixture()
  }
  const alice = readFixtureIndex().accounts.find((a) => a.name === 'alice')!.address
  const tmp = mkdtempSync(join(tmpdir(), 'gateway-double-bench-memory-'))
  try {
    const configPath = join(tmp, 'bench.config.json')
    writeFileSync(configPath, JSON.stringify({ serviceHost: 'localhost', networks: { [BENCH_NETWORK]: { fixture: BENCH_FIXTURE } }, keys: [] }))
    const { server, port } = await Server.start(configPath, snapshotDir)
    const rpc = new RpcClient({ name: 'gateway-double', port, path: `/_double/rpc/${BENCH_NETWORK}`, host: `${LOOPBACK}:${port}` })
    await rpc.call('anvil_impersonateAccount', [alice])
    await rpc.call('evm_setAutomine', [true])
    let nonce = 0
    const transfer = () =>
      rpc.call('eth_sendTransaction', [{ from: alice, to: `0x${(++nonce).toString(16).padStart(40, '0')}`, value: '0x1', gas: '0x5208' }])
    const start = await server.read(undefined)
    process.stderr.write(`gateway-double started: RSS ${(start.rssSettled / MiB).toFixed(1)} MiB, JS heap ${(start.heapUsed / MiB).toFixed(1)} MiB\n`)

    const phases: { label: string; unit: string; count: number; warmup?: number; target: number; run: (n: number) => Promise<void> }[] = [
      { label: 'empty blocks (anvil_mine)', unit: 'block', count: empty, target: 8 * KiB, run: async (n) => {
          // In calls of 100 blocks: a loaded machine mines 1,000 slower than the client's timeout.
          for (let left = n; left > 0; left -= 100) await rpc.call('anvil_mine', [hex(Math.min(100, left))])
        },
      },
      {
        label: 'one-transaction blocks (eth_sendTransaction, automine)',
        unit: 'block',
        count: txs,
        target: 16 * KiB,
        run: async (n) => {
          for (let i = 0; i < n; i++) await transfer()
        },
      },
      {
        label: 'evm_snapshot / transaction / evm_revert',
        unit: 'cycle',
        count: cycles,
        warmup: cycles,
        target: 1 * KiB,
        run: async (n) => {
          for (let i = 0; i < n; i++) {
            const id = await rpc.call<string>('evm_snapshot')
            await transfer()
            if ((await rpc.call('evm_revert', [id])) !== true) throw new Error(`evm_revert ${id} did not revert`)
            nonce-- // the transfer was reverted: its nonce is free again
          }
        },
      },
    ]
    const slopes: Slope[] = []
    for (const phase of phases) {
      await phase.run(phase.warmup ?? Math.max(1, Math.round(phase.count / 10)))
      const before = await server.read(snapshotDir)
      const t0 = performance.now()
      await phase.run(phase.count)
      const ms = performance.now() - t0
      const after = await server.read(snapshotDir)
      const slope = {
        label: phase.label,
        count: phase.count,
        unit: phase.unit,
        rssPer: (after.rss - before.rss) / phase.count,
        rssSettledPer: (after.rssSettled - before.rssSettled) / phase.count,
        heapPer: (after.heapUsed - before.heapUsed) / phase.count,
        target: phase.target,
      }
      slopes.push(slope)
      process.stderr.write(`  ${phase.label}: ${phase.count} in ${Math.round(ms)} ms; RSS ${(after.rssSettled / MiB).toFixed(1)} MiB settled after ${after.settleMs} ms (${(after.rss / MiB).toFixed(1)} at the GC), heap ${(after.heapUsed / MiB).toFixed(1)} MiB (V8 holds ${(after.heapTotal / MiB).toFixed(1)})\n`)
    }
    const end = await server.read(undefined)
    printSlopes(slopes, start, end)
    return 0
  } finally {
    closeControlConnections()
    await stopAll()
    rmSync(tmp, { recursive: true, force: true })
  }
}

const kib = (bytes: number) => `${(bytes / KiB).toFixed(2)} KiB`

function printSlopes(slopes: Slope[], start: Reading, end: Reading): void {
  const rows = [
    ['growth per', 'count', 'RSS', '(at the GC)', 'JS heap', 'target', ''],
    ...slopes.map((s) => {
      const met = s.rssSettledPer <= s.target && s.heapPer <= s.target
      return [`${s.unit}: ${s.label}`, String(s.count), kib(s.rssSettledPer), `(${kib(s.rssPer)})`, kib(s.heapPer), `<= ${kib(s.target)}`, met ? 'met' : 'MISSED']
    }),
  ]
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  const out = [line(rows[0]!), ...rows.slice(1).map(line)]
  out.push(
    '',
    `RSS ${(start.rssSettled / MiB).toFixed(1)} -> ${(end.rssSettled / MiB).toFixed(1)} MiB settled (${(start.rss / MiB).toFixed(1)} -> ${(end.rss / MiB).toFixed(1)} at the GC), JS heap ${(start.heapUsed / MiB).toFixed(1)} -> ${(end.heapUsed / MiB).toFixed(1)} MiB (V8 holds ${(start.heapTotal / MiB).toFixed(1)} -> ${(end.heapTotal / MiB).toFixed(1)} MiB for it), external ${(start.external / MiB).toFixed(1)} -> ${(end.external / MiB).toFixed(1)} MiB (each after a full GC).`,
    'Both RSS and the JS heap must stay within the target. RSS is the process\'s once it stops changing after the GCs (V8 hands the pages',
    'they freed back from a background thread, after the reading "at the GC"); both are shown. V8 keeps some freed pages: a small negative slope is noise.',
  )
  process.stdout.write(`${out.join('\n')}\n`)
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench:memory: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    process.exit(1)
  },
)
