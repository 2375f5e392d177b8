/**
 * `npm run bench:start`: what starting costs a user (issue 19, item 6), the rows of
 * bench/startRows.ts with their targets: `import('gateway-double')`, `gateway-double --version`,
 * cold start to the first answer on the default fixtures, against Anvil where it has a figure.
 */
import { parseArgs } from 'node:util'
import { stopAll } from './processes.ts'
import { formatTable, targetsLine } from './report.ts'
import { startRows } from './startRows.ts'

const USAGE = `Usage: npm run bench:start -- [--runs <n>]

Start-up costs, medians of <n> samples in turns (default 5): import('gateway-double'),
gateway-double --version, cold start to the first answer (default fixtures), against Anvil.
`

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { runs: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true })
  if (values.help) {
    process.stdout.write(USAGE)
    return 0
  }
  const runs = Number(values.runs ?? 5)
  if (!Number.isInteger(runs) || runs < 1 || runs > 100) throw new Error(`--runs: expected an integer from 1 to 100, got ${JSON.stringify(values.runs)}`)
  try {
    const rows = await startRows(runs, (line) => process.stderr.write(`${line}\n`))
    process.stdout.write(`\nstart-up, ${runs} samples of each in turns; node ${process.version}\n\n${formatTable(rows)}\n\n${targetsLine(rows)}\n`)
    return 0
  } finally {
    await stopAll()
  }
}

main().then(
  (code) => {
    process.exitCode = code
  },
  async (err: unknown) => {
    process.stderr.write(`bench:start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    await stopAll()
    process.exitCode = 1
  },
)
