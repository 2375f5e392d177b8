/**
 * Where the project's default fixtures live: sources in `fixtures/sources/<network>.scenario.json`
 * (contracts in `fixtures/sources/contracts/`), output in `fixtures/<network>/`.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

export const FIXTURES_DIR = 'fixtures'
export const SOURCES_DIR = join(FIXTURES_DIR, 'sources')
const SUFFIX = '.scenario.json'

/** The default scenario files under `root`, in a fixed order, with the network each builds. */
export function defaultScenarios(root = '.'): { sourcePath: string; network: string; outDir: string }[] {
  return readdirSync(join(root, SOURCES_DIR))
    .filter((f) => f.endsWith(SUFFIX))
    .sort()
    .map((f) => {
      const network = f.slice(0, -SUFFIX.length)
      return { sourcePath: join(root, SOURCES_DIR, f), network, outDir: join(root, FIXTURES_DIR, network) }
    })
}
