/**
 * Serving a source file directly: a network whose `fixture` is a `.json` file (a
 * `<name>.scenario.json`, or a capture's `source.json`) is built at start, the same way
 * `gateway-double build` builds it, and loaded like a folder. A folder, or an Anvil state dump
 * (`anvil --dump-state`'s file), is loaded as it is. Wherever a fixture is named (startServer, the
 * vitest globalSetup, a config file, the CLI), this is what loads it; a path that names nothing is
 * said to be missing.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import type { Chain } from '../chain/chain.ts'
import { looksLikeAnvilDump } from '../chain/loading/anvilState.ts'
import { loadFixture } from '../chain/loading/loadFixture.ts'
import { FixtureError } from '../chain/loading/fixtureFiles.ts'
import { buildFixtureFromSource, readScenarioFile, writeFixtureFiles } from './buildFixture.ts'

/**
 * Loads the fixture at `path` as network `name`: a folder as it is, a source file built first.
 * The built files only pass through a temporary folder (removed again) on their way to the
 * loader, whose verified-chain cache then makes the next start of the same source fast.
 */
export async function loadFixtureOrSource(path: string, name: string): Promise<Chain> {
  let isFile: boolean
  try {
    isFile = statSync(path).isFile()
  } catch {
    throw new FixtureError(`fixture ${name}: no such file or folder: ${path}`)
  }
  if (!isFile || looksLikeAnvilDump(path)) return loadFixture(path, { name })
  if (!path.endsWith('.json') || basename(path) === 'genesis.json') {
    throw new FixtureError(`fixture ${name}: ${path} is a file: expected a fixture folder (genesis.json, chain.rlp) or a source .json file, or an Anvil state dump`)
  }
  const { source, baseDir, file } = readScenarioFile(path)
  const built = await buildFixtureFromSource(source, baseDir, file)
  const dir = mkdtempSync(join(tmpdir(), 'gateway-double-source-'))
  try {
    writeFixtureFiles(built, dir)
    return await loadFixture(dir, { name })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
