/**
 * Loads a fixture chain folder: a geth `genesis.json`, a `chain.rlp` of blocks (what `geth export`
 * writes and hive ships), and optionally the safe and finalized blocks, from our `forkchoice.json`
 * (`{"safe": 5, "finalized": 4}`, numbers or hashes) or hive's `headfcu.json` (without either, the
 * whole chain is final: safe = finalized = head), the state edits and impersonated senders of a
 * chain the double grew (`edits.json`, see editsFile.ts), and `accounts.json` (kept for an export).
 * The files are verified and opened by ./openFixture.ts. An Anvil state dump loads too
 * (./anvilState.ts), and a frozen fork (`fork.json` and `reads.jsonl`, ./fork/).
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Chain } from '../chain.ts'
import { withoutEthereumJsContext } from '../vm/ethereumjsMessage.ts'
import { checkForkchoice, checkHeadFcu, FixtureError } from './fixtureFiles.ts'
import type { Forkchoice } from './fixtureFiles.ts'
import { readContractNames } from './accountsFile.ts'
import { loadAnvilDump, looksLikeAnvilDump } from './anvilState.ts'
import { loadFixtureFiles, parseJson } from './openFixture.ts'
import type { LoadOptions } from './openFixture.ts'

export { FixtureError, loadFixtureFiles }
export type { FixtureFiles, LoadOptions } from './openFixture.ts'

/**
 * Loads a fixture folder (`genesis.json`, `chain.rlp`, optionally `forkchoice.json` or hive's
 * `headfcu.json`, `edits.json`, `accounts.json`), or an Anvil state dump: a file written by
 * `anvil --dump-state` or `anvil_dumpState`, or a folder holding one as `state.json` and no
 * `genesis.json` (see anvilState.ts).
 */
export async function loadFixture(folder: string, opts: LoadOptions = {}): Promise<Chain> {
  const dir = resolve(folder)
  const name = opts.name ?? dir.split('/').pop() ?? 'fixture'
  // A mistyped path is said as such, not as a fixture folder without its genesis.json.
  if (!existsSync(dir)) throw new FixtureError(`fixture ${name}: no such folder: ${dir}`)
  if (!statSync(dir).isDirectory() && !looksLikeAnvilDump(dir)) {
    throw new FixtureError(`fixture ${name}: ${dir} is a file, not a fixture folder (genesis.json, chain.rlp) or an Anvil state dump`)
  }
  try {
    return await load(dir, name, opts)
  } catch (err) {
    // Every failure names the fixture and its folder (the checks name the file too).
    if (err instanceof FixtureError) throw err
    throw new FixtureError(`fixture ${name} (${dir}): ${withoutEthereumJsContext(err)}`)
  }
}

async function load(dir: string, name: string, opts: LoadOptions): Promise<Chain> {
  const isFile = statSync(dir).isFile()
  if (!isFile && existsSync(join(dir, 'fork.json'))) {
    // A frozen fork (./fork/freeze.ts): served from its own reads, with no upstream.
    const { openFork } = await import('./fork/openFork.ts')
    return openFork({ frozen: dir }, { name, ...(opts.cache === undefined ? {} : { cache: opts.cache }), ...(opts.clock ? { clock: opts.clock } : {}), ...(opts.miningMode ? { miningMode: opts.miningMode } : {}) })
  }
  if (isFile || (!existsSync(join(dir, 'genesis.json')) && existsSync(join(dir, 'state.json')))) {
    return loadAnvilDump(isFile ? dir : join(dir, 'state.json'), { ...opts, name })
  }
  if (opts.chainId !== undefined || opts.hardfork !== undefined) {
    throw new FixtureError(`fixture ${name}: chainId and hardfork are options of an Anvil state dump; a fixture folder's genesis.json has its own`)
  }
  const genesisPath = join(dir, 'genesis.json')
  const rlpPath = join(dir, 'chain.rlp')
  const editsPath = join(dir, 'edits.json')
  const indexPath = join(dir, 'accounts.json')
  return loadFixtureFiles(
    {
      genesis: readBytes(genesisPath, name),
      chain: existsSync(rlpPath) ? readFileSync(rlpPath) : new Uint8Array(),
      ...(existsSync(editsPath) ? { edits: readBytes(editsPath, name) } : {}),
      ...readForkchoiceFile(dir, name),
      ...(existsSync(indexPath) ? { index: readIndex(indexPath) } : {}),
      contracts: readContractNames(dir, name),
    },
    { ...opts, name, dir },
  )
}

/** `accounts.json`, parsed; undefined when it is not JSON (the loader does not need it). */
function readIndex(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown
  } catch {
    return undefined
  }
}

function readBytes(path: string, name: string): Uint8Array {
  try {
    return readFileSync(path)
  } catch {
    throw new FixtureError(`fixture ${name}: cannot read ${path}`)
  }
}

function readJson<T>(path: string, name: string): T {
  return parseJson<T>(readBytes(path, name), path, name)
}

/** The safe and finalized blocks: our `forkchoice.json`, else hive's `headfcu.json`, else none. */
function readForkchoiceFile(dir: string, name: string): { forkchoice?: Forkchoice; forkchoicePath?: string } {
  const ours = join(dir, 'forkchoice.json')
  const hive = join(dir, 'headfcu.json')
  if (existsSync(ours)) return { forkchoice: checkForkchoice(readJson<unknown>(ours, name), ours, name), forkchoicePath: ours }
  if (existsSync(hive)) return { forkchoice: checkHeadFcu(readJson<unknown>(hive, name), hive, name), forkchoicePath: hive }
  return {}
}
