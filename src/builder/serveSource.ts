/**
 * Serving a source file directly: a network whose `fixture` is a `.json` file (a
 * `<name>.scenario.json`, or a capture's `source.json`) is built at start, the same way
 * `gateway-double build` builds it, and loaded like a folder. A folder is loaded as it is.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Chain } from '../chain/chain.ts'
import { loadFixture } from '../chain/loading/loadFixture.ts'
import { buildFixtureFromSource, readScenarioFile, writeFixtureFiles } from './buildFixture.ts'

/** True when `path` names a source file rather than a fixture folder. */
export function isSourceFile(path: string): boolean {
  try {
    return path.endsWith('.json') && statSync(path).isFile()
  } catch {
    return false
  }
}

/**
 * Loads the fixture at `path` as network `name`: a folder as it is, a source file built first.
 * The built files only pass through a temporary folder (removed again) on their way to the
 * loader, whose verified-chain cache then makes the next start of the same source fast.
 */
export async function loadFixtureOrSource(path: string, name: string): Promise<Chain> {
  if (!isSourceFile(path)) return loadFixture(path, { name })
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
