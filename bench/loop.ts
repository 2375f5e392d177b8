/**
 * The transaction-loop rows of `npm run bench` (./testLoop.ts) alone, for working on them:
 * `npx tsx bench/loop.ts [--duration <s>] [--warmup <s>] [--rounds <n>] [--mine-blocks <n>] [--only <id,...>] [--cpu-prof <dir>]`.
 * Runs each row on a fresh pair of servers, as `npm run bench` does (./loopPairs.ts): gateway-double
 * from the source (bench/gatewayServer.ts through tsx, control on; with `--cpu-prof`, a CPU profile per
 * row written to <dir> when it stops) and Anvil with the bench chain replayed; prints the rows.
 */
import { join, resolve } from 'node:path'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { parseArgs } from 'node:util'
import type { Hex } from 'viem'
import { BENCH_FIXTURE, BENCH_NETWORK, ROOT, benchFixtureExists, buildBenchFixture, readFixtureBlocks, readFixtureIndex, readGenesis } from './fixture.ts'
import type { FromServer } from './gatewayServer.ts'
import { closeControlConnections, spawnTracked, stopAll } from './processes.ts'
import { loopRowsOnFreshServers } from './loopPairs.ts'
import { formatTable } from './report.ts'
import { LOOP_ROW_IDS } from './testLoop.ts'

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '0.5' },
    rounds: { type: 'string', default: '3' },
    'mine-blocks': { type: 'string', default: '1000' },
    only: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
})
const log = (line: string) => process.stderr.write(`${line}\n`)
const tmp = mkdtempSync(join(tmpdir(), 'gateway-double-loop-'))
try {
  if (!benchFixtureExists()) await buildBenchFixture()
  const blocks = readFixtureBlocks()
  const index = readFixtureIndex()
  const genesis = readGenesis()
  const configPath = join(tmp, 'config.json')
  writeFileSync(configPath, JSON.stringify({ serviceHost: 'localhost', networks: { [BENCH_NETWORK]: { fixture: BENCH_FIXTURE } }, keys: [] }))
  const profile = values['cpu-prof'] === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', resolve(values['cpu-prof'])]
  const startGatewayDouble = async () => {
    const gd = spawnTracked(process.execPath, [...profile, '--import', 'tsx', join(ROOT, 'bench/gatewayServer.ts'), configPath, JSON.stringify({ control: true })], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    })
    const ready = await new Promise<FromServer>((r) => gd.child.once('message', r))
    if (ready.type !== 'ready') throw new Error(`gateway-double: ${JSON.stringify(ready)}`)
    return { port: ready.port, stop: () => gd.stop(10_000) }
  }
  const ids = values.only === undefined ? LOOP_ROW_IDS : values.only.split(',')
  const rows = await loopRowsOnFreshServers({
    ids,
    startGatewayDouble,
    genesisPath: join(BENCH_FIXTURE, 'genesis.json'),
    gasLimit: BigInt(genesis.gasLimit),
    blocks,
    chainId: index.chainId,
    token: index.contracts.find((c) => c.name === 'token')!.address as Hex,
    deployData: blocks[0]!.calls.find((c) => c.to === undefined)!.data as Hex,
    keys: index.accounts.filter((a) => /^s3\d$/.test(a.name)).map((a) => a.privateKey as Hex),
    durationMs: Number(values.duration) * 1000,
    warmupMs: Number(values.warmup) * 1000,
    rounds: Number(values.rounds),
    mineBlocks: Number(values['mine-blocks']),
    log,
  })
  process.stdout.write(`${formatTable(rows)}\n`)
} finally {
  closeControlConnections()
  await stopAll()
  rmSync(tmp, { recursive: true, force: true })
}
