/**
 * `gateway-double export --url <server> --network <name> --out <dir>`: asks a running server's
 * control endpoint (`GET /_double/networks/<name>/export`, the server started with `--control`)
 * for the network's chain as a fixture folder (genesis.json, chain.rlp, forkchoice.json,
 * accounts.json, and edits.json when the chain has state edits or impersonated transactions) and
 * writes it to `<dir>`, which `--fixture <name>=<dir>` then serves: the same blocks, receipts and
 * state. Usage errors exit 2; a server that cannot be reached or refuses exits 1.
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { writeFixtureFolder } from '../chain/loading/exportChain.ts'
import { CONTROL_PREFIX } from './controlPrefix.ts'

export const EXPORT_USAGE = `Usage: gateway-double export --url <server> --network <name> --out <dir>

Writes a network of a running gateway-double (started with --control) as a fixture folder: what it
was loaded from plus every block mined since, with its state edits and impersonated senders.

  --url <server>     the server's origin (http://127.0.0.1:8545) or its control URL (.../_double)
  --network <name>   the network to export
  --out <dir>        the folder to write (created if missing; the fixture's files are replaced)
`

export interface ExportIo {
  stdout: (text: string) => void
  stderr: (text: string) => void
}

/** How long the server may take to answer (a big chain is a big answer). */
const TIMEOUT_MS = 120_000

interface ExportAnswer {
  network: string
  headNumber: number
  encoding: 'base64'
  files: Record<string, string>
}

export async function exportCommand(args: readonly string[], io: ExportIo, fetchFn: typeof fetch = fetch): Promise<number> {
  let values
  try {
    ;({ values } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: { url: { type: 'string' }, network: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }))
  } catch (err) {
    return usage(io, (err as Error).message)
  }
  if (values.help) {
    io.stdout(EXPORT_USAGE)
    return 0
  }
  if (values.url === undefined || values.network === undefined || values.out === undefined) return usage(io, 'give --url, --network and --out')
  let base: URL
  try {
    base = new URL(values.url)
  } catch {
    return usage(io, `--url: not a URL: ${JSON.stringify(values.url)}`)
  }
  const control = base.pathname.replace(/\/+$/, '').endsWith(CONTROL_PREFIX) ? base.pathname.replace(/\/+$/, '') : `${base.pathname.replace(/\/+$/, '')}${CONTROL_PREFIX}`
  const url = `${base.origin}${control}/networks/${encodeURIComponent(values.network)}/export`
  let res: Response
  try {
    res = await fetchFn(url, { signal: AbortSignal.timeout(TIMEOUT_MS) })
  } catch (err) {
    io.stderr(`gateway-double export: cannot reach ${base.origin} (${(err as Error).message}); is the server started with --control?\n`)
    return 1
  }
  const text = await res.text()
  if (res.status !== 200) {
    let message = text.slice(0, 300)
    try {
      message = (JSON.parse(text) as { error: { message: string } }).error.message
    } catch {}
    const hint = res.status === 404 && !message.startsWith('unknown network') ? ' (is the server started with --control?)' : ''
    io.stderr(`gateway-double export: ${url} answered ${res.status}: ${message}${hint}\n`)
    return 1
  }
  const answer = JSON.parse(text) as ExportAnswer
  const files = new Map(Object.entries(answer.files).map(([name, data]) => [name, Buffer.from(data, 'base64')]))
  const out = resolve(values.out)
  try {
    writeFixtureFolder(out, files)
  } catch (err) {
    io.stderr(`gateway-double export: cannot write ${out} (${(err as Error).message})\n`)
    return 1
  }
  io.stdout(`Exported network ${answer.network} at block ${answer.headNumber} to ${out}: ${[...files.keys()].join(', ')}\nServe it with: gateway-double --fixture ${answer.network}=${values.out}\n`)
  return 0
}

function usage(io: ExportIo, message: string): number {
  io.stderr(`gateway-double export: ${message}\nTry 'gateway-double export --help'.\n`)
  return 2
}
