/**
 * The transaction-loop rows of `npm run bench` (./testLoop.ts) alone, for working on them:
 * `npx tsx bench/loop.ts [--duration <s>] [--rounds <n>] [--mine-blocks <n>] [--only <id,...>] [--cpu-prof <dir>]`.
 * Starts gateway-double (bench/gatewayServer.ts, control on; with `--cpu-prof`, its CPU profile
 * written to <dir> when it stops) and Anvil on the bench chain, as `npm run bench` does, and prints the rows.
 */
import { join, resolve } from 'node:path'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { parseArgs } from 'node:util'
import type { Hex } from 'viem'
import { anvilChainArgs, anvilEndpoint, replayOnAnvil, spawnAnvil } from './anvil.ts'
import { BENCH_FIXTURE, BENCH_NETWORK, ROOT, benchFixtureExists, buildBenchFixture, readFixtureBlocks, readFixtureIndex, readGenesis } from './fixture.ts'
import type { FromServer } from './gatewayServer.ts'
import { LOOPBACK, closeControlConnections, freePort, spawnTracked, stopAll } from './processes.ts'
import { formatTable } from './report.ts'
import { RpcClient } from './rpc.ts'
import { testLoopRows } from './testLoop.ts'

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '3' },
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
  const gd = spawnTracked(process.execPath, [...profile, '--import', 'tsx', join(ROOT, 'bench/gatewayServer.ts'), configPath, JSON.stringify({ control: true })], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  })
  const ready = await new Promise<FromServer>((r) => gd.child.once('message', r))
  if (ready.type !== 'ready') throw new Error(`gateway-double: ${JSON.stringify(ready)}`)
  const anvilPort = await freePort()
  spawnAnvil(anvilChainArgs(anvilPort, join(BENCH_FIXTURE, 'genesis.json'), BigInt(genesis.gasLimit)))
  const anvil = anvilEndpoint(anvilPort)
  for (let tries = 0; ; tries++) {
    try {
      await new RpcClient(anvil).call('eth_chainId')
      break
    } catch (err) {
      if (tries > 300) throw err
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  await replayOnAnvil(new RpcClient(anvil), blocks)
  const keys = index.accounts.filter((a) => /^s3\d$/.test(a.name)).map((a) => a.privateKey as Hex)
  const rows = await testLoopRows({
    gatewayDouble: { name: 'gateway-double', port: ready.port, path: `/_double/rpc/${BENCH_NETWORK}`, host: `${LOOPBACK}:${ready.port}` },
    anvil,
    chainId: index.chainId,
    token: index.contracts.find((c) => c.name === 'token')!.address as Hex,
    deployData: blocks[0]!.calls.find((c) => c.to === undefined)!.data as Hex,
    keys,
    durationMs: Number(values.duration) * 1000,
    rounds: Number(values.rounds),
    mineBlocks: Number(values['mine-blocks']),
    ...(values.only === undefined ? {} : { only: values.only.split(',') }),
    log,
  })
  process.stdout.write(`${formatTable(rows)}\n`)
} finally {
  closeControlConnections()
  await stopAll()
  rmSync(tmp, { recursive: true, force: true })
}
