/**
 * `gateway-double build <source> <outDir>`: builds a fixture source into a fixture folder
 * (`genesis.json`, `chain.rlp`, `forkchoice.json`, `accounts.json`), the same bytes on every run.
 * A mistake in the source prints the file, the entry and the reason, and exits 1.
 */
import { buildFixture } from './buildFixture.ts'
import { FixtureSourceError } from './errors.ts'

export const BUILD_USAGE = `Usage: gateway-double build <source.json> <outDir>

Builds a fixture source (a .scenario.json file, or a capture's source.json) into a fixture
folder: genesis.json, chain.rlp, forkchoice.json and accounts.json. Same source, same bytes.
`

export interface CommandIo {
  stdout: (text: string) => void
  stderr: (text: string) => void
}

/** Runs the subcommand; resolves with the exit code (0, 1 for a refused source, 2 for usage). */
export async function buildCommand(args: readonly string[], io: CommandIo): Promise<number> {
  if (args.includes('-h') || args.includes('--help')) {
    io.stdout(BUILD_USAGE)
    return 0
  }
  if (args.length !== 2 || args.some((a) => a.startsWith('-'))) {
    io.stderr(`gateway-double build: expected <source.json> <outDir>, got ${args.length === 0 ? 'nothing' : args.map((a) => JSON.stringify(a)).join(' ')}\nTry 'gateway-double build --help'.\n`)
    return 2
  }
  const [source, outDir] = args as [string, string]
  try {
    const built = await buildFixture(source, outDir)
    const first = BigInt(built.genesis.number as string)
    const head = first + BigInt(built.blocks.length)
    io.stdout(`built ${built.network} (chain id ${built.genesis.config.chainId}): blocks ${first}..${head}, ${built.blocks.reduce((n, b) => n + b.transactions.length, 0)} transactions -> ${outDir}\n`)
    return 0
  } catch (err) {
    if (!(err instanceof FixtureSourceError)) throw err
    io.stderr(`gateway-double build: ${err.message}\n`)
    return 1
  }
}
