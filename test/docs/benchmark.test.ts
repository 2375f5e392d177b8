/**
 * docs/benchmark.md's commands, run as a user copies them: every line of every ```sh block of the
 * page, read from the page itself, through bash, with only the parameters that make it short
 * changed (fewer seconds, rounds and requests: `SMALL` below). Each must exit 0, print the rows
 * and figures the page describes, and leave no process behind (Anvil, servers: its process group
 * is empty once it exited). Figures are never judged: speed lives in the bench, not in a test.
 *
 * `npm run bench` builds dist/ when stale and `--rebuild` rewrites fixtures/bench/, so its lines
 * run in a copy of the project (timestamps kept, node_modules and ../shared linked), never under
 * the rest of the suite's feet. The other commands write nothing and run in the project itself,
 * where the `--before` recipe's git commands find the repository: its `npm ci` is replaced by a
 * link to this project's node_modules, after checking that the earlier commit's lock pins its
 * direct dependencies at the versions installed here (so the link installs what npm ci would).
 *
 * The two lanes (the copy, the project) run side by side; the commands of a lane one at a time.
 */
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readProfile } from '../../bench/profile.ts'
import { describeRun, runShell } from '../support/userShell.ts'
import type { ShellRun } from '../support/userShell.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PAGE = readFileSync(join(ROOT, 'docs/benchmark.md'), 'utf8')
const SHARED = resolve(ROOT, '../shared')

/** The smallest value of each flag the scripts accept (or that still runs every row), by npm script. */
const SMALL: Record<string, Record<string, string>> = {
  bench: { duration: '0.1', concurrency: '1', rounds: '1', warmup: '0', 'mine-blocks': '10' },
  'bench:simulate': { runs: '1', warmup: '0' },
  'bench:trace': { runs: '1', warmup: '0' },
  'bench:start': { runs: '1' },
  // 200,000 gas a call: a few iterations of each loop.
  'bench:evm': { duration: '0.1', rounds: '1', gas: '200000' },
  // The smallest counts it takes: a slope from a few blocks and cycles.
  'bench:memory': { empty: '100', tx: '10', cycles: '10' },
  // 100,000 gas: the loop runs and runs out of gas in milliseconds, not seconds; 2 maximal requests: one of each kind.
  'bench:robustness': { duration: '0.3', rounds: '1', heavy: '1', gas: '100000', maximal: '2' },
  'bench:fork': { rounds: '1' },
}

interface DocLine {
  /** The line as the page shows it, its comment cut. */
  line: string
  /** The heading it sits under. */
  heading: string
}

/** Every line of every ```sh block, under its heading. */
function shellLines(page: string): DocLine[] {
  const lines: DocLine[] = []
  let heading = ''
  for (const m of page.matchAll(/^(#{2,4}) (.+)$|^```sh\n([\s\S]*?)^```$/gm)) {
    if (m[2] !== undefined) heading = m[2]
    else for (const raw of m[3]!.split('\n')) if (raw.trim() !== '') lines.push({ line: raw.replace(/\s+#.*$/, '').trim(), heading })
  }
  return lines
}

/** `npm run <script> -- <flags>` with each of `flags` set (its value replaced, or added). */
function withFlags(line: string, flags: Record<string, string>): string {
  const m = /^npm run (\S+)(?: -- (.*))?$/.exec(line)
  if (!m) throw new Error(`not an npm run line: ${line}`)
  const args = (m[2] ?? '').split(/\s+/).filter((a) => a !== '')
  for (const [flag, value] of Object.entries(flags)) {
    const at = args.indexOf(`--${flag}`)
    if (at >= 0) args[at + 1] = value
    else args.push(`--${flag}`, value)
  }
  return `npm run ${m[1]} -- ${args.join(' ')}`
}

/** The first column of the markdown table that follows `after` in the page (its rows' names). */
function tableRowNames(after: string): string[] {
  const from = PAGE.indexOf(after)
  expect(from, after).toBeGreaterThan(0)
  const table = /\n(\|[^\n]*\|\n)+/.exec(PAGE.slice(from))![0]
  return table
    .trim()
    .split('\n')
    .slice(2)
    .map((row) => row.split('|')[1]!.trim())
}

/** The line of `out` that starts with `name`, which must hold at least `figures` numbers after it. */
function row(out: string, name: string, figures: number): string {
  const line = out.split('\n').find((l) => l.startsWith(name))
  expect(line, `a row "${name}" in:\n${out}`).toBeDefined()
  expect(line!.slice(name.length).match(/\d[\d,]*(\.\d+)?/g)?.length ?? 0, line).toBeGreaterThanOrEqual(figures)
  return line!
}

/** A clean exit and nothing left running. */
function expectClean(r: ShellRun): void {
  expect(r.leftBehind, describeRun(r)).toEqual([])
  expect(r.code, describeRun(r)).toBe(0)
}

const LINES = shellLines(PAGE)
const isBench = (l: DocLine) => /^npm run bench(\s|$)/.test(l.line)
/** `npm run bench -- --before <ref>` needs the repository's history: it runs in the project, after the other scripts. */
const isBeforeBench = (l: DocLine) => isBench(l) && / --before /.test(l.line)
const BENCH = LINES.filter((l) => isBench(l) && !isBeforeBench(l))
const OTHERS = LINES.filter((l) => !isBench(l))
const BEFORE_BENCH = LINES.filter(isBeforeBench)
const beforeRef = BEFORE_BENCH.map((l) => / --before (\S+)/.exec(l.line)![1]!)[0]
const BEFORE = /^git worktree add (\S+) (\S+) && \(cd \S+ && npm ci --no-audit --no-fund\)$/
const beforeCommit = OTHERS.map((l) => BEFORE.exec(l.line)?.[2]).find((c) => c !== undefined)
/** The recipe checks out an earlier commit: it needs git and the repository's history. */
const haveHistory = (() => {
  try {
    execFileSync('git', ['-C', ROOT, 'cat-file', '-e', `${beforeCommit}^{commit}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()
const haveBeforeRef = (() => {
  try {
    execFileSync('git', ['-C', ROOT, 'rev-parse', '--verify', '--quiet', `${beforeRef}^{commit}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

let work: string
let copy: string
let beforeDir: string
const runs = new Map<string, Promise<ShellRun>>()

/** Runs the lines in order in `cwd`, each as `rewrite` makes it; their runs by the page's line. */
function lane(lines: DocLine[], cwd: () => string, rewrite: (l: DocLine, i: number) => string): void {
  let previous: Promise<unknown> = Promise.resolve()
  for (const [i, l] of lines.entries()) {
    const run = previous.then(() => runShell(rewrite(l, i), cwd()))
    runs.set(l.line, run)
    previous = run
  }
}

/** What the test runs for a line of the page: only sizes, paths and the before-commit's install changed. */
function rewriteOther(l: DocLine): string {
  const line = l.line.replaceAll('/tmp/before', beforeDir)
  const script = /^npm run (\S+)/.exec(line)?.[1]
  if (script !== undefined) {
    const small = SMALL[script]
    if (small === undefined) throw new Error(`docs/benchmark.md runs "${script}", which this test cannot make small: add it to SMALL`)
    return withFlags(line, small)
  }
  if (BEFORE.test(l.line)) return line.replace('npm ci --no-audit --no-fund', `ln -s ${JSON.stringify(join(ROOT, 'node_modules'))} node_modules`)
  if (/^git worktree remove --force \S+$/.test(l.line)) return line
  throw new Error(`docs/benchmark.md shows a command this test does not run: ${l.line}`)
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'gd-bench-docs-'))
  copy = join(work, 'gateway-double')
  beforeDir = join(work, 'before')
  // As a clone has it, with dist/ and the sources' times kept: `npm run bench` builds there when the
  // project's build is stale, as it would here.
  const skip = new Set(['node_modules', '.git', '.cache', 'scratch', 'bench.json'])
  cpSync(ROOT, copy, { recursive: true, preserveTimestamps: true, filter: (src) => !skip.has(src.slice(ROOT.length).split('/')[0]!) })
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'))
  if (existsSync(SHARED)) symlinkSync(SHARED, join(work, 'shared'))
  // The first `npm run bench` prints every row (one cold start, one newHeads block); the others
  // show their own flag, without the rows the first one showed.
  lane(BENCH, () => copy, (l, i) => withFlags(l.line, { ...SMALL.bench, 'cold-runs': i === 0 ? '1' : '0', 'newheads-blocks': i === 0 ? '1' : '0', 'mine-blocks': i === 0 ? '10' : '0' }))
  lane([...(haveHistory ? OTHERS : OTHERS.filter((l) => l.heading !== beforeHeading())), ...(haveBeforeRef ? BEFORE_BENCH : [])], () => ROOT, rewriteOther)
}, 60_000)

afterAll(async () => {
  await Promise.allSettled(runs.values())
  if (haveHistory && existsSync(beforeDir)) execFileSync('git', ['-C', ROOT, 'worktree', 'remove', '--force', beforeDir], { stdio: 'ignore' })
  if (work !== undefined) rmSync(work, { recursive: true, force: true })
}, 300_000)

/** The heading of the `--before` recipe. */
function beforeHeading(): string {
  return OTHERS.find((l) => BEFORE.test(l.line))!.heading
}

const ran = (line: string) => {
  const run = runs.get(line)
  expect(run, line).toBeDefined()
  return run!
}

describe('docs/benchmark.md: the commands it shows', () => {
  it('shows the commands this test knows how to run, each of the bench scripts at least once', () => {
    expect(BEFORE_BENCH.length, 'an npm run bench -- --before <ref> line').toBe(1)
    for (const script of ['bench', 'bench:simulate', 'bench:trace', 'bench:robustness', 'bench:start', 'bench:fork']) {
      expect(LINES.some((l) => l.line.startsWith(`npm run ${script} `) || l.line === `npm run ${script}`), script).toBe(true)
    }
    // Every script of package.json the page names is one of them (a new one needs its small form).
    const scripts = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts)
    for (const script of scripts.filter((s) => s.startsWith('bench'))) expect(Object.keys(SMALL), script).toContain(script)
    for (const l of OTHERS) expect(() => rewriteOther(l)).not.toThrow()
    expect(beforeCommit).toBeDefined()
  })

  describe('npm run bench (in a copy of the project)', () => {
    it.each(BENCH.map((l) => [l.line, l] as const))('%s', async (_line, l) => {
      const r = await ran(l.line)
      expectClean(r)
      const out = r.stdout
      // The table: a row per method of "Throughput and latency", each with gateway-double's and Anvil's figures.
      const throughput = /- \*\*Throughput and latency\*\*([\s\S]*?)\n- \*\*/.exec(PAGE)![1]!
      const methods = [...new Set([...throughput.matchAll(/`(eth_\w+)`/g)].map((m) => m[1]!))]
      expect(methods.length).toBeGreaterThanOrEqual(6)
      for (const method of methods) expect(row(out, method, 6), method).toMatch(/req\/s.*req\/s/)
      for (const kind of ['repeated', 'distinct']) row(out, `eth_estimateGas, ERC-20 transfer, ${kind}`, 4)
      expect(row(out, 'for scale: bare node:http server', 3)).toMatch(/req\/s/)
      expect(row(out, 'resident memory after load', 2)).toMatch(/\d+ MiB .* \d+ MiB/)
      expect(out).toMatch(/^chain agreement: receipts, token storage, balances and nonces identical/m)
      expect(out).toMatch(/^credits: ledger spent [\d,]+ == sum of the costs of the [\d,]+ answered calls [\d,]+: exact$/m)
      expect(out).toMatch(/^targets: \d+ met, \d+ missed/m)
      if (l === BENCH[0]) {
        // "1 and 100 WebSocket subscribers": a newHeads row each, on both servers.
        expect(row(out, 'newHeads: mine request to notification, 1 subscriber', 6)).toMatch(/notif\..*notif\./)
        expect(row(out, 'newHeads: mine request to notification, 100 subscribers', 6)).toMatch(/notif\..*notif\./)
        expect(row(out, 'cold start to first answer, default fixtures', 3)).toMatch(/\d ms .*\d ms/)
        // The transaction loop: each row on both servers in its own unit, none with a failed operation ("!").
        for (const [label, unit] of [['viem sendTransaction', 'tx'], ['ERC-20 transfer sent raw', 'tx'], ['deploy a 1.5 KB contract', 'deploys'], ['evm_snapshot, an ERC-20 transfer', 'pairs'], ['anvil_mine of 10 empty blocks', 'calls'], ['20-test suite', 'suites']] as const) {
          expect(row(out, label, 6), label).toMatch(new RegExp(`\\d ${unit}/s {2}.*\\d ${unit}/s {2}`))
        }
        if (existsSync(join(SHARED, 'conformance/execution-apis/tests/chain.rlp'))) row(out, 'cold start to first answer, execution-apis chain (median of 1)', 2)
      }
      if (l.line.includes('--json')) {
        const file = join(copy, /--json (\S+)/.exec(l.line)![1]!)
        const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown> & { rows: { id: string; kind: string }[]; credits: { exact: boolean }; settings: { durationS: number } }
        // The keys the page lists, and no other.
        const sentence = /`--json <file>` writes ([\s\S]*?)\.\s/.exec(PAGE)![1]!.replace(/\([^)]*\)/g, '')
        expect(Object.keys(json).sort()).toEqual([...sentence.matchAll(/`(\w+)`/g)].map((m) => m[1]).sort())
        const ids = json.rows.filter((r) => r.kind === 'throughput').map((r) => r.id)
        for (const method of methods) expect(ids.some((id) => id === method || id.startsWith(`${method}.`)), method).toBe(true)
        expect(json.credits.exact).toBe(true)
        expect(json.settings.durationS).toBe(0.1)
      }
      if (l.line.includes('--profile')) {
        // "Profiles": each throughput row summed under the table, its busy share and top functions,
        // and the files it names, each a DevTools profile, in a new folder under the OS temp dir.
        for (const method of methods) expect(out, method).toMatch(new RegExp(`^${method}(\\.\\w+)?: 1 profiled round, [\\d,]+ ms sampled .* busy [\\d.]+% = [\\d.]+ us/req, GC [\\d.]+%`, 'm'))
        const files = [...out.matchAll(/^ {2}files: (.+)$/gm)].flatMap((m) => m[1]!.split(', '))
        expect(files.length).toBeGreaterThanOrEqual(methods.length)
        for (const file of files) {
          expect(file.startsWith(tmpdir()), file).toBe(true)
          expect(readProfile(file).samples.length, file).toBeGreaterThan(0)
        }
        for (const folder of new Set(files.map((f) => dirname(f)))) rmSync(folder, { recursive: true, force: true })
      }
      if (l.line.includes('--rebuild')) {
        expect(r.stderr).toContain(`building ${join(copy, 'fixtures/bench')} from its source...`)
        // "the same bytes as the committed fixtures/bench/"
        for (const file of ['genesis.json', 'chain.rlp', 'accounts.json', 'forkchoice.json']) {
          expect(readFileSync(join(copy, 'fixtures/bench', file)).equals(readFileSync(join(ROOT, 'fixtures/bench', file))), file).toBe(true)
        }
      }
    }, 300_000)
  })

  describe('npm run bench -- --before (in the project: it needs the history)', () => {
    it.skipIf(!haveBeforeRef).each(BEFORE_BENCH.map((l) => [l.line, l] as const))(`%s${haveBeforeRef ? '' : `: skipped, no ${beforeRef} in this repository`}`, async (_line, l) => {
      const r = await ran(l.line)
      expectClean(r)
      const commit = execFileSync('git', ['-C', ROOT, 'rev-parse', `${beforeRef}^{commit}`], { encoding: 'utf8' }).trim()
      // Each throughput row and the memory row with a ratio to the earlier commit, and the line naming it.
      expect(r.stdout).toMatch(/ gd\/Anvil +new\/before +target/)
      expect(row(r.stdout, 'eth_blockNumber', 7)).toMatch(/req\/s.*req\/s.*x +[\d.]+x +>=/)
      expect(row(r.stdout, 'resident memory after load', 3)).toMatch(/MiB .*MiB .*x +[\d.]+x/)
      const line = r.stdout.split('\n').find((x) => x.startsWith('new/before: '))
      expect(line, r.stdout).toContain(`against ${beforeRef} (${commit.slice(0, 12)}, node_modules `)
      // The transaction-loop rows too (the test runs them: SMALL gives --mine-blocks 10), each with its own earlier-commit server.
      expect(row(r.stdout, 'ERC-20 transfer sent raw + receipt', 7)).toMatch(/tx\/s.*tx\/s.*x +[\d.]+x +>=/)
      for (const id of ['eth_blockNumber', 'eth_getStorageAt', 'eth_estimateGas.distinct', 'rss-after-load', 'loop.erc20-raw', 'loop.snapshot-revert', 'loop.suite']) expect(line).toMatch(new RegExp(`${id.replace('.', '\\.')} [\\d.]+x`))
      // The temporary worktree is gone.
      expect(execFileSync('git', ['-C', ROOT, 'worktree', 'list'], { encoding: 'utf8' })).not.toContain('gateway-double-bench-')
    }, 600_000)
  })

  describe('the other bench scripts (in the project)', () => {
    const simulate = OTHERS.find((l) => l.line.startsWith('npm run bench:simulate'))!
    it(`${simulate.line}: the page's rows, each with p50, p99, mean and ratio`, async () => {
      const r = await ran(simulate.line)
      expectClean(r)
      for (const name of tableRowNames(simulate.line)) row(r.stdout, name, 4)
      expect(r.stdout).toMatch(/^load average before: [\d.]+ [\d.]+ [\d.]+$/m)
      expect(r.stdout).toMatch(/^load average after: [\d.]+ [\d.]+ [\d.]+$/m)
    }, 300_000)

    const trace = OTHERS.find((l) => l.line.startsWith('npm run bench:trace'))!
    it(`${trace.line}: the page's rows, Anvil's steps the double's`, async () => {
      const r = await ran(trace.line)
      expectClean(r)
      for (const name of tableRowNames(trace.line)) row(r.stdout, name, 5)
      expect(r.stdout).toMatch(/^Anvil [\d.]+'s steps, failed and returnValue are gateway-double's/m)
    }, 300_000)

    const start = OTHERS.find((l) => l.line.startsWith('npm run bench:start'))!
    it(`${start.line}: import, --version and cold start, each with its target`, async () => {
      const r = await ran(start.line)
      expectClean(r)
      expect(row(r.stdout, "import('gateway-double')", 2)).toMatch(/\d ms .*<= 150 ms +(met|MISSED)$/)
      expect(row(r.stdout, 'gateway-double --version', 3)).toMatch(/\d ms .*\d ms .*<= 300 ms +(met|MISSED)$/)
      expect(row(r.stdout, 'cold start to first answer, default fixtures', 3)).toMatch(/\d ms .*\d ms .*<= 250 ms +(met|MISSED)$/)
      for (const scale of ['for scale: node -e 0', 'for scale: npx --version']) row(r.stdout, scale, 1)
      expect(r.stdout).toMatch(/^targets: \d+ met, \d+ missed/m)
    }, 300_000)

    const evm = OTHERS.find((l) => l.line.startsWith('npm run bench:evm'))!
    it(`${evm.line}: the page's rows, each with both servers' Mgas/s, the ratio and the target`, async () => {
      const r = await ran(evm.line)
      expectClean(r)
      for (const name of tableRowNames(evm.line)) expect(row(r.stdout, name, 7)).toMatch(/Mgas\/s\) +(met|missed)$/)
      expect(r.stdout).toMatch(/^targets: \d+ met, \d+ missed/m)
    }, 300_000)

    const memory = OTHERS.find((l) => l.line.startsWith('npm run bench:memory'))!
    it(`${memory.line}: growth per empty block, per one-transaction block and per reverted snapshot, each with its target`, async () => {
      const r = await ran(memory.line)
      expectClean(r)
      for (const name of ['block: empty blocks', 'block: one-transaction blocks', 'cycle: evm_snapshot']) expect(r.stdout).toMatch(new RegExp(`^${name}.* KiB +\\(-?[\\d.]+ KiB\\) +-?[\\d.]+ KiB +<= [\\d.]+ KiB +(met|MISSED)$`, 'm'))
      expect(r.stdout).toMatch(/^RSS [\d.]+ -> [\d.]+ MiB settled \([\d.]+ -> [\d.]+ at the GC\), JS heap [\d.]+ -> [\d.]+ MiB/m)
    }, 300_000)

    const fork = OTHERS.find((l) => l.line.startsWith('npm run bench:fork'))!
    it(`${fork.line}: upstream requests and the time to the first eth_call, cold, warm and Anvil's`, async () => {
      const r = await ran(fork.line)
      expectClean(r)
      for (const name of ['gateway-double cold', 'gateway-double warm (cached)', 'anvil --fork-url']) expect(r.stdout).toMatch(new RegExp(`^${name.replace(/[()]/g, '\\$&')} +\\d+ +\\d+$`, 'm'))
    }, 300_000)

    const robustness = OTHERS.filter((l) => l.line.startsWith('npm run bench:robustness'))
    it.each(robustness.map((l) => [l.line, l] as const))('%s: reads under heavy calls, memory under maximal requests', async (_line, l) => {
      const before = BEFORE.test(OTHERS[OTHERS.indexOf(l) - 1]?.line ?? '')
      if (before && !haveHistory) return // no history to check out (the test below says so)
      const r = await ran(l.line)
      expectClean(r)
      const out = r.stdout
      expect(out).toMatch(/^eth_blockNumber while 1 connections send batches of 10 heavy eth_calls of 100,000 gas \(1 x 0\.3 s per server\):$/m)
      if (before) expect(row(out, `  before: commit ${beforeCommit} (${beforeDir})`, 5)).toMatch(/ms/)
      expect(row(out, '  this code, no turns, no time limit', 5)).toMatch(/\d+ +[\d.]+ ms +[\d.]+ ms +[\d.]+ ms +[\d.]+$/)
      expect(row(out, '  after: this code, 10 ms turns, 5 s limit', 5)).toMatch(/\d+ +[\d.]+ ms +[\d.]+ ms +[\d.]+ ms +[\d.]+$/)
      // Both maximal requests answered, whatever their status.
      const statuses = /^Resident memory, 2 maximal requests, .* statuses (\{.*\})\):$/m.exec(out)
      expect(statuses, out).not.toBeNull()
      expect(Object.values(JSON.parse(statuses![1]!) as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(2)
      expect(out).toMatch(/^ {2}before \d+ MiB, halfway \d+ MiB, after \d+ MiB \(peak \d+ MiB\)$/m)
      expect(out).toMatch(/^Load average \(1, 5, 15 min\): before [\d.]+, [\d.]+, [\d.]+; after [\d.]+, [\d.]+, [\d.]+$/m)
    }, 300_000)

    const recipe = OTHERS.filter((l) => l.heading === beforeHeading() && !l.line.startsWith('npm run'))
    it.skipIf(!haveHistory).each(recipe.map((l) => [l.line, l] as const))(`%s (the --before recipe${haveHistory ? '' : `: skipped, no git history holding ${beforeCommit}`})`, async (_line, l) => {
      if (BEFORE.test(l.line)) {
        // The link stands for npm ci: the earlier commit's lock pins its direct dependencies at the versions installed here.
        const show = (path: string) => JSON.parse(execFileSync('git', ['-C', ROOT, 'show', `${beforeCommit}:${path}`], { encoding: 'utf8' })) as Record<string, Record<string, Record<string, string>>>
        const { dependencies = {}, devDependencies = {} } = show('package.json')
        const theirs = show('package-lock.json').packages!
        const ours = (JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> }).packages
        for (const name of Object.keys({ ...dependencies, ...devDependencies })) {
          expect(ours[`node_modules/${name}`]?.version, name).toBe(theirs[`node_modules/${name}`]!.version)
        }
      }
      const r = await ran(l.line)
      expectClean(r)
      // The checkout itself shows in the --before run's row ("before: commit ...", above).
      if (BEFORE.test(l.line)) expect(r.stdout + r.stderr).toContain(`HEAD is now at ${beforeCommit}`)
      else expect(existsSync(beforeDir)).toBe(false)
    }, 300_000)
  })
})
