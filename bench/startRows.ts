/**
 * The start-up rows (issue 19, item 6), from the build (`npm run build`: the bundle
 * bin/gateway-double.js runs), each figure a median of `runs` samples taken in turns:
 *
 * - `import('gateway-double')`: the import alone, timed inside a fresh `node` process;
 * - `gateway-double --version`: `node bin/gateway-double.js --version`, from spawn to exit, beside
 *   `anvil --version`;
 * - cold start to the first answer of `eth_blockNumber` on the default fixtures (bench/coldStart.ts),
 *   beside Anvil with no chain, after one unmeasured start that fills the verified-chain cache;
 * - for scale: `node -e 0` (Node's own start, in every figure above) and `npx --version` (npm's own
 *   start, which `npx gateway-double --version` adds to the bin's);
 * - when the environment sets NODE_EXTRA_CA_CERTS (these machines set it to the system's bundle of
 *   about 140 certificates): `node -e 0` and the cold start again with it unset. Node 20 parses those
 *   certificates at every start, before any script runs (about 400 million instructions of a
 *   500-million `node -e 0` under callgrind here), so the rows above include it for us and not for
 *   Anvil; these two show what a machine without it gets.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { anvilBinary, anvilEndpoint, spawnAnvil } from './anvil.ts'
import { coldStart, median } from './coldStart.ts'
import { ROOT } from './fixture.ts'
import type { Endpoint } from './processes.ts'
import { LOOPBACK, freePort, spawnTracked } from './processes.ts'
import type { FigureRow } from './report.ts'

/** The dev key of config/default.json. */
const DEV_KEY = 'deadbeefdeadbeefdeadbeefdeadbeef'
const IMPORT_SCRIPT = "const t = performance.now(); await import('gateway-double'); process.stdout.write(String(performance.now() - t))"

/** Runs a command to its exit: its wall time from spawn, and its stdout. */
function timedRun(command: string, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<{ ms: number; stdout: string }> {
  const t0 = performance.now()
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd: ROOT, timeout: 120_000, env }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${command} ${args.join(' ')}: ${err.message}\n${stderr}`))
      else resolve({ ms: performance.now() - t0, stdout })
    })
  })
}

interface Sampler {
  id: string
  label: string
  gatewayDouble: () => Promise<number>
  anvil?: () => Promise<number>
}

/** The environment without NODE_EXTRA_CA_CERTS, or undefined when it is not set. */
function withoutExtraCaCerts(): NodeJS.ProcessEnv | undefined {
  const { NODE_EXTRA_CA_CERTS: extra, ...rest } = process.env
  return extra === undefined || extra === '' ? undefined : rest
}

/**
 * The rows of `ids` (all by default: start.node, start.npx, start.import, start.version,
 * cold-start.default, and with NODE_EXTRA_CA_CERTS set start.node.no-extra-ca and
 * cold-start.default.no-extra-ca).
 */
export async function startRows(runs: number, log: (line: string) => void, ids?: readonly string[]): Promise<FigureRow[]> {
  const anvil = anvilBinary()
  const gdColdStart = async (env?: NodeJS.ProcessEnv) => {
    const port = await freePort()
    const endpoint: Endpoint = { name: 'gateway-double', port, path: `/v3/${DEV_KEY}`, host: 'ethereum-mainnet.localhost' }
    return (await coldStart(() => spawnTracked(process.execPath, [join(ROOT, 'bin/gateway-double.js'), '--port', String(port)], { cwd: ROOT, env }), endpoint)).ms
  }
  const anvilColdStart = async () => {
    const port = await freePort()
    return (await coldStart(() => spawnAnvil(['--host', LOOPBACK, '--port', String(port)]), anvilEndpoint(port))).ms
  }
  const noExtraCa = withoutExtraCaCerts()
  const samplers: Sampler[] = [
    { id: 'start.node', label: 'for scale: node -e 0 (Node\'s own start)', gatewayDouble: async () => (await timedRun(process.execPath, ['-e', '0'])).ms },
    { id: 'start.npx', label: "for scale: npx --version (npm's own start, added by npx)", gatewayDouble: async () => (await timedRun('npx', ['--version'])).ms },
    {
      id: 'start.import', label: "import('gateway-double'), in a fresh node",
      gatewayDouble: async () => Number((await timedRun(process.execPath, ['--input-type=module', '-e', IMPORT_SCRIPT])).stdout),
    },
    {
      id: 'start.version', label: 'gateway-double --version (Anvil: anvil --version), spawn to exit',
      gatewayDouble: async () => (await timedRun(process.execPath, [join(ROOT, 'bin/gateway-double.js'), '--version'])).ms,
      anvil: async () => (await timedRun(anvil, ['--version'])).ms,
    },
    {
      id: 'cold-start.default', label: 'cold start to first answer, default fixtures (Anvil: no chain)',
      gatewayDouble: () => gdColdStart(),
      anvil: anvilColdStart,
    },
    ...(noExtraCa === undefined ? [] : [
      {
        id: 'start.node.no-extra-ca', label: 'for scale: node -e 0 with NODE_EXTRA_CA_CERTS unset (set here)',
        gatewayDouble: async () => (await timedRun(process.execPath, ['-e', '0'], noExtraCa)).ms,
      },
      {
        id: 'cold-start.default.no-extra-ca', label: 'for scale: cold start, default fixtures, NODE_EXTRA_CA_CERTS unset (Anvil: no chain)',
        gatewayDouble: () => gdColdStart(noExtraCa),
        anvil: anvilColdStart,
      },
    ]),
  ].filter((s) => ids === undefined || ids.includes(s.id))
  // The first start verifies the default fixtures once and fills the cache: not measured.
  if (samplers.some((s) => s.id === 'cold-start.default')) log(`first start (fills the verified-chain cache, not measured): ${Math.round(await gdColdStart())} ms`)
  const samples = new Map(samplers.map((s) => [s.id, { gatewayDouble: [] as number[], anvil: [] as number[] }]))
  for (let i = 0; i < runs; i++) {
    for (const s of samplers) {
      const kept = samples.get(s.id)!
      kept.gatewayDouble.push(await s.gatewayDouble())
      if (s.anvil) kept.anvil.push(await s.anvil())
    }
    log(`  ${i + 1}/${runs}: ${samplers.map((s) => `${s.id} ${Math.round(samples.get(s.id)!.gatewayDouble.at(-1)!)} ms`).join(', ')}`)
  }
  return samplers.map((s) => {
    const kept = samples.get(s.id)!
    return {
      kind: 'figure', id: s.id, label: `${s.label} (median of ${runs})`, unit: 'ms', better: 'lower',
      gatewayDouble: median(kept.gatewayDouble), ...(s.anvil ? { anvil: median(kept.anvil) } : {}),
      samples: { gatewayDouble: kept.gatewayDouble, ...(s.anvil ? { anvil: kept.anvil } : {}) },
    } satisfies FigureRow
  })
}

