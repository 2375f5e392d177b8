#!/usr/bin/env node
// `npm run build`: compiles src/ to dist/ (ES modules and declaration files, tsconfig.build.json)
// from a clean folder, so that nothing of an older layout is left to be packed, then writes
// dist/.built, which bin/gateway-double.js compares with the sources' times.
//
// One entry also ships as CommonJS: `gateway-double/client` (src/http/client.ts, the helpers that
// reach `*.localhost` from Node; it imports only Node's own modules). Jest's module system runs
// test files as CommonJS and cannot require ES modules before Node 24.9, and its test files are
// where a dApp's suite needs these helpers. Everything else is ES modules only (`require` of it
// works from Node itself on Node >= 20.19, e.g. in a jest globalSetup).
//
// `--if-stale` (`npm run bench`, which measures the build): does nothing when dist/.built is newer
// than every file under src/ and than this script, package.json and the tsconfigs: the rule
// bin/gateway-double.js uses to run dist/, so what the bench starts is the build it would run.
//
// `--prepare` (the `prepare` script, run by `npm ci` and `npm install` in a clone): the same, but
// a failed build only prints a line (bin/ then runs the sources through tsx), and it does nothing
// under `npm pack` / `npm publish`, where `prepack` has just built.
import { spawnSync } from 'node:child_process'
import { copyFileSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const root = fileURLToPath(new URL('..', import.meta.url))
const at = (path) => new URL(`../${path}`, import.meta.url)
const prepare = process.argv.includes('--prepare')
if (prepare && ['pack', 'publish'].includes(process.env.npm_command ?? '')) process.exit(0)

/** The newest modification time of the files under `dir`, in ms. */
function newest(dir) {
  let latest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    const t = entry.isDirectory() ? newest(path) : statSync(path).mtimeMs
    if (t > latest) latest = t
  }
  return latest
}

if (process.argv.includes('--if-stale')) {
  try {
    const built = statSync(at('dist/.built')).mtimeMs
    const inputs = ['scripts/build.mjs', 'package.json', 'tsconfig.json', 'tsconfig.build.json'].map((f) => statSync(at(f)).mtimeMs)
    if (Math.max(newest(fileURLToPath(at('src'))), ...inputs) <= built) process.exit(0)
  } catch {
    // No build yet: build.
  }
}

function fail(message) {
  console.error(`gateway-double build: ${message}`)
  if (prepare) console.log('gateway-double: no build (see README, Benchmark); bin/gateway-double.js runs the sources with tsx')
  process.exit(prepare ? 0 : 1)
}

let ts
try {
  ts = require('typescript')
} catch {
  fail('typescript is not installed')
}
rmSync(at('dist'), { recursive: true, force: true })
const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' })
if (tsc.status !== 0) fail('tsc failed')

const client = ts.transpileModule(readFileSync(at('src/http/client.ts'), 'utf8'), {
  compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2023 },
  fileName: 'client.ts',
})
const foreign = [...client.outputText.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]).filter((m) => !m.startsWith('node:'))
if (foreign.length > 0) fail(`src/http/client.ts ships as CommonJS too and must import only node: modules, not ${foreign.join(', ')}`)
writeFileSync(at('dist/client.cjs'), client.outputText)
copyFileSync(at('dist/http/client.d.ts'), at('dist/client.d.cts'))

writeFileSync(at('dist/.built'), '')
