/**
 * `gateway-double fork freeze (--from <fork cache folder> | --url <url> [--block <n>] [--cache <dir>]) --out <dir>`:
 * turns what a fork read from its upstream (its cache folder, found by the upstream's URL and the
 * fork block under the verified-chain cache) into a fixture folder that serves with no upstream
 * (`--fixture <name>=<dir>`), its proofs checked against the fork block's state root
 * (src/chain/loading/fork/freeze.ts).
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { CommandIo } from '../builder/buildCommand.ts'
import { findForkCache } from '../chain/loading/fork/forkCache.ts'
import { freezeFork } from '../chain/loading/fork/freeze.ts'
import { redactUrl } from '../chain/loading/fork/upstream.ts'
import { FixtureError } from '../chain/loading/fixtureFiles.ts'
import { defaultCacheDir } from '../chain/loading/verifiedCache.ts'

export const FORK_USAGE = `Usage: gateway-double fork freeze (--from <folder> | --url <url> [--block <n>] [--cache <dir>]) --out <dir>

Freezes what a fork read from its upstream into a fixture folder that serves with no upstream
(--fixture <name>=<dir>); the proofs it holds are checked against the fork block's state root.

  --from <folder>   a fork's cache folder (<cache>/forks/<chain id>-<block>-<hash>)
  --url <url>       or: the upstream the fork read from (its key is never printed)
  --block <n>       with --url: the fork block (default: the highest cached)
  --cache <dir>     with --url: the verified-chain cache (default: GATEWAY_DOUBLE_CACHE_DIR, else
                    node_modules/.cache/gateway-double)
  --out <dir>       the fixture folder to write
`

export async function forkCommand(args: readonly string[], io: CommandIo): Promise<number> {
  const usage = (message: string) => {
    io.stderr(`gateway-double fork: ${message}\nTry 'gateway-double fork --help'.\n`)
    return 2
  }
  let values
  let positionals
  try {
    ;({ values, positionals } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: true,
      options: { from: { type: 'string' }, url: { type: 'string' }, block: { type: 'string' }, cache: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }))
  } catch (err) {
    return usage((err as Error).message.replaceAll(/https?:\/\/\S+/g, (url) => redactUrl(url)))
  }
  if (values.help) {
    io.stdout(FORK_USAGE)
    return 0
  }
  if (positionals[0] !== 'freeze' || positionals.length !== 1) return usage('expected the subcommand freeze')
  if (values.out === undefined) return usage('--out <dir> is required')
  if ((values.from === undefined) === (values.url === undefined)) return usage('give either --from <folder> or --url <url>')
  if (values.block !== undefined && !/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(values.block)) return usage(`--block: expected a block number, got ${JSON.stringify(values.block)}`)
  let from = values.from === undefined ? undefined : resolve(values.from)
  if (values.url !== undefined) {
    const cache = values.cache === undefined ? defaultCacheDir() : resolve(values.cache)
    const label = redactUrl(values.url)
    const found = findForkCache(cache, label, values.block === undefined ? undefined : BigInt(values.block))
    if (found === undefined) {
      io.stderr(`gateway-double fork: no fork of ${label}${values.block === undefined ? '' : ` at block ${values.block}`} cached in ${cache}\n`)
      return 1
    }
    from = found.dir
  }
  try {
    const out = resolve(values.out)
    const { reads, proofs } = await freezeFork(from!, out)
    io.stdout(`froze ${reads} reads (${proofs} proofs checked against the fork block's state root) into ${out}\nServe it with: gateway-double --fixture <name>=${out}\n`)
    return 0
  } catch (err) {
    if (!(err instanceof FixtureError)) throw err
    io.stderr(`gateway-double fork: ${err.message}\n`)
    return 1
  }
}
