/**
 * `npm run build:fixtures`: rebuilds every default fixture (see defaultFixtures.ts). A script,
 * not a module: importing it builds.
 */
import { buildFixtureFromSource } from './buildFixture.ts'
import { readScenarioFile, writeFixtureFiles } from './buildFixture.ts'
import { defaultScenarios } from './defaultFixtures.ts'
import { FixtureSourceError } from './errors.ts'

try {
  for (const { sourcePath, network, outDir } of defaultScenarios()) {
    const started = performance.now()
    const { source, baseDir, file } = readScenarioFile(sourcePath)
    const built = await buildFixtureFromSource(source, baseDir, file)
    // The folder is named after the file; a source naming another network would be confusing.
    if (built.network !== network) throw new FixtureSourceError(file, 'network', `must be "${network}", as the file is named`)
    writeFixtureFiles(built, outDir)
    const txs = built.blocks.reduce((n, b) => n + b.transactions.length, 0)
    const ms = Math.round(performance.now() - started)
    console.log(`${outDir}: ${built.blocks.length} blocks, ${txs} transactions, ${built.files['chain.rlp'].length} bytes of RLP (${ms} ms)`)
  }
} catch (e) {
  console.error(e instanceof FixtureSourceError ? e.message : e)
  process.exitCode = 1
}
