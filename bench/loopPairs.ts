/**
 * The transaction-loop rows (./testLoop.ts), each on a fresh pair of servers: a gateway-double the
 * caller starts and an Anvil with the bench chain replayed, both stopped once the row is done.
 *
 * Why fresh: run one after another on the same two servers, a row met a chain grown by the rows
 * before it (session 8: thousands of blocks by the time `anvil_mine` and the suite ran). Anvil slows
 * as its chain grows (its deploys went 70.9 -> 51.1 per second across one row's three rounds, and an
 * `anvil_mine`'d empty block cost it 22 ms there against under 1 ms on the bench chain as loaded),
 * so the late rows measured Anvil at a cost that a suite which snapshots and reverts, keeping its
 * chain short, never sees, and gateway-double looked faster than it is. Each row now starts
 * from the bench chain as loaded on both sides; within a row, the rounds still alternate the two
 * servers, and both chains grow by what the row itself does.
 */
import { startAnvilOnChain } from './anvil.ts'
import type { FixtureBlock } from './fixture.ts'
import { BENCH_NETWORK } from './fixture.ts'
import { LOOPBACK } from './processes.ts'
import type { ThroughputRow } from './report.ts'
import type { TestLoopOptions } from './testLoop.ts'
import { testLoopRows } from './testLoop.ts'

/** A gateway-double serving the bench chain as network `bench`, with its control routes on. */
export interface LoopServer {
  port: number
  stop(): Promise<void>
}

export interface FreshPairsOptions extends Omit<TestLoopOptions, 'gatewayDouble' | 'anvil' | 'only'> {
  /** The rows to run, in this order, each on its own pair. */
  ids: readonly string[]
  startGatewayDouble(): Promise<LoopServer>
  /** The `--before` build's server, started beside it for each row when given (`bench.ts --before`). */
  startBefore?(): Promise<LoopServer>
  /** What Anvil is started with: the bench chain's genesis, gas limit and blocks to replay. */
  genesisPath: string
  gasLimit: bigint
  blocks: readonly FixtureBlock[]
}

export async function loopRowsOnFreshServers(opts: FreshPairsOptions): Promise<ThroughputRow[]> {
  const { ids, startGatewayDouble, startBefore, genesisPath, gasLimit, blocks, ...loop } = opts
  const out: ThroughputRow[] = []
  for (const id of ids) {
    // Anvil starts and takes the replay while gateway-double loads.
    const anvilStarting = startAnvilOnChain(genesisPath, gasLimit, blocks)
    anvilStarting.catch(() => {})
    const gd = await startGatewayDouble()
    let before: LoopServer | undefined
    const testEndpoint = (name: string, port: number) => ({ name, port, path: `/_double/rpc/${BENCH_NETWORK}`, host: `${LOOPBACK}:${port}` })
    try {
      before = await startBefore?.()
      const anvil = await anvilStarting
      try {
        const gatewayDouble = testEndpoint('gateway-double', gd.port)
        out.push(...(await testLoopRows({ ...loop, gatewayDouble, ...(before ? { before: testEndpoint('before', before.port) } : {}), anvil: anvil.endpoint, only: [id] })))
      } finally {
        await anvil.process.stop()
      }
    } finally {
      await Promise.all([gd.stop(), before?.stop()])
    }
  }
  return out
}
