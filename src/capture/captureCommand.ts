/**
 * `gateway-double capture --rpc <url> (--tx <hash> | --call <json> [--block <n|tag>]) --out <dir|file.json>`:
 * captures what one call touches on a live node (see capture.ts) and writes it as
 * - a fixture folder (`--out <dir>`): genesis.json, chain.rlp (empty: the captured block is the
 *   genesis), forkchoice.json, accounts.json, plus `source.json` (the fixture source it was built
 *   from) and `capture.json` (where it came from, the node's answer, the request that replays it);
 * - or a fixture source (`--out <file>.json`), with `<file>.capture.json` beside it; serve it with
 *   `--fixture name=<file>.json` or build it with `gateway-double build`.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { CommandIo } from '../builder/buildCommand.ts'
import { buildFixtureFromSource, writeFixtureFiles } from '../builder/buildFixture.ts'
import { FixtureSourceError } from '../builder/errors.ts'
import { HARDFORKS } from '../builder/genesisFile.ts'
import type { Hardfork } from '../builder/genesisFile.ts'
import { capture } from './capture.ts'
import type { CaptureOptions, Captured, PrestateSource } from './capture.ts'
import { CaptureError } from './endpoint.ts'

export const CAPTURE_USAGE = `Usage: gateway-double capture --rpc <url> (--tx <hash> | --call <json> [--block <n|tag>]) --out <dir|file.json>

Captures the state one call touches on a live node into a fixture that reproduces it offline.

  --rpc <url>            the node's JSON-RPC endpoint
  --tx <hash>            a mined transaction, replayed as a call at its parent block
  --call <json>          a call object: {"from":..., "to":..., "data":..., "value":..., "gas":...}
  --block <n|tag>        with --call: the block it runs at (default latest)
  --out <dir|file.json>  a fixture folder, or a fixture source file
  --prestate <how>       auto (default): the prestate tracer, or eth_createAccessList + eth_getProof
                         where the node has no tracer; trace or proofs to choose one
  --hardfork <fork>      ${HARDFORKS.join(', ')} (default: from the chain and the block)
  --network <name>       the fixture's network name (default captured)
`

export async function captureCommand(args: readonly string[], io: CommandIo): Promise<number> {
  let values
  try {
    ;({ values } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        rpc: { type: 'string' },
        tx: { type: 'string' },
        call: { type: 'string' },
        block: { type: 'string' },
        out: { type: 'string' },
        prestate: { type: 'string' },
        hardfork: { type: 'string' },
        network: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }))
  } catch (err) {
    return usage(io, (err as Error).message)
  }
  if (values.help) {
    io.stdout(CAPTURE_USAGE)
    return 0
  }
  if (values.rpc === undefined) return usage(io, '--rpc <url> is required')
  if (values.out === undefined) return usage(io, '--out <dir|file.json> is required')
  if ((values.tx === undefined) === (values.call === undefined)) return usage(io, 'give either --tx <hash> or --call <json>')
  if (values.block !== undefined && values.tx !== undefined) return usage(io, '--block goes with --call (a transaction runs at its parent block)')
  if (values.prestate !== undefined && !['auto', 'trace', 'proofs'].includes(values.prestate)) return usage(io, `--prestate: expected auto, trace or proofs, got ${JSON.stringify(values.prestate)}`)
  if (values.hardfork !== undefined && !(HARDFORKS as readonly string[]).includes(values.hardfork)) return usage(io, `--hardfork: expected one of ${HARDFORKS.join(', ')}, got ${JSON.stringify(values.hardfork)}`)
  if (values.network !== undefined && !/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/.test(values.network)) return usage(io, `--network: lowercase letters, digits and inner hyphens, got ${JSON.stringify(values.network)}`)
  let call: Record<string, unknown> | undefined
  if (values.call !== undefined) {
    try {
      call = JSON.parse(values.call) as Record<string, unknown>
    } catch (err) {
      return usage(io, `--call: not JSON (${(err as Error).message})`)
    }
    if (typeof call !== 'object' || call === null || Array.isArray(call)) return usage(io, '--call: expected a JSON object')
  }
  const opts: CaptureOptions = {
    rpc: values.rpc,
    ...(values.tx === undefined ? {} : { tx: values.tx }),
    ...(call === undefined ? {} : { call }),
    ...(values.block === undefined ? {} : { block: values.block }),
    ...(values.prestate === undefined ? {} : { prestate: values.prestate as PrestateSource }),
    ...(values.hardfork === undefined ? {} : { hardfork: values.hardfork as Hardfork }),
    ...(values.network === undefined ? {} : { network: values.network }),
  }
  try {
    const captured = await capture(opts)
    const written = await writeCapture(captured, values.out)
    const outcome = captured.record.node.eth_estimateGas
    io.stdout(
      [
        `captured ${Object.keys(captured.source.accounts).length} accounts at block ${captured.record.block.number} of chain ${captured.record.chainId} (${captured.record.hardfork}; ${captured.record.prestate})`,
        `the node's eth_estimateGas: ${'result' in outcome ? outcome.result : `error ${outcome.error.code} ${outcome.error.message}`}`,
        `wrote ${written.join(', ')}`,
        `replay: ${captured.record.replay!.serve}`,
        `        ${captured.record.replay!.curl}`,
        '',
      ].join('\n'),
    )
    return 0
  } catch (err) {
    if (!(err instanceof CaptureError) && !(err instanceof FixtureSourceError)) throw err
    io.stderr(`gateway-double capture: ${err.message}\n`)
    return 1
  }
}

function usage(io: CommandIo, message: string): number {
  io.stderr(`gateway-double capture: ${message}\nTry 'gateway-double capture --help'.\n`)
  return 2
}

/** Writes the capture where `--out` says; returns the paths written. */
export async function writeCapture(captured: Captured, out: string): Promise<string[]> {
  const { source, record } = captured
  const network = source.network
  const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`
  const serveTarget = out
  record.replay = {
    serve: `npx gateway-double --fixture ${network}=${serveTarget}`,
    curl: `curl -s http://127.0.0.1:8545/v3/deadbeefdeadbeefdeadbeefdeadbeef -H 'Host: ${network}-mainnet.localhost' -H 'Content-Type: application/json' -d '${JSON.stringify(record.request)}'`,
  }
  if (out.endsWith('.json')) {
    mkdirSync(dirname(resolve(out)), { recursive: true })
    const recordPath = out.replace(/(\.scenario)?\.json$/, '.capture.json')
    // Built once here too, so a capture that does not load is refused now rather than at serve time.
    await buildFixtureFromSource(source, dirname(resolve(out)), out)
    writeFileSync(out, json(source))
    writeFileSync(recordPath, json(record))
    return [out, recordPath]
  }
  const built = await buildFixtureFromSource(source, resolve(out), join(out, 'source.json'))
  writeFixtureFiles(built, out)
  writeFileSync(join(out, 'source.json'), json(source))
  writeFileSync(join(out, 'capture.json'), json(record))
  return [out]
}
