#!/usr/bin/env node
// `npm run build`: compiles src/ to dist/ (ES modules and declaration files, tsconfig.build.json)
// from a clean folder, so that nothing of an older layout is left to be packed, then writes
// dist/.built (the folders and files under src/), which bin/gateway-double.js compares with the
// sources' times.
//
// One entry also ships as CommonJS: `gateway-double/client` (src/http/client.ts, the helpers that
// reach `*.localhost` from Node; it imports only Node's own modules). Jest's module system runs
// test files as CommonJS and cannot require ES modules before Node 24.9, and its test files are
// where a dApp's suite needs these helpers. Everything else is ES modules only (`require` of it
// works from Node itself on Node >= 20.19, e.g. in a jest globalSetup).
//
// Then the start path is bundled (esbuild, issue 19: module resolution and file reads were most of
// a start): each entry of package.json's exports and the CLI becomes one file, the modules they
// share go to dist/chunks/, and what they import with import() (the subcommands, the builder,
// capture) stays in chunks of its own, loaded when used. The dependencies are bundled too
// (EthereumJS, noble, ws...): Node's ES module loader resolving, reading and compiling their ~600
// files was most of `import('gateway-double')`. So the package runs its own copy of them, as the
// CLI does, and its run-time changes to EthereumJS (patches/README.md) reach that copy only, never
// the user's EthereumJS; they stay declared dependencies, which the declarations import types
// from. Left outside: what is loaded by name or path at run time (express, solc, secp256k1's
// native binding, ws's optional add-ons) and the peers (vitest), the user's own. tsc's other .js
// files are removed (their declarations stay): what runs is the bundle. A module that finds files
// next to itself (import.meta.url) is given the URL its tsc output would have had, so config/default.json,
// package.json and the dependencies it requires resolve as before.
//
// The CLI (dist/cli.cjs, what bin/gateway-double.js runs) is bundled apart, with its dependencies
// in it, as one CommonJS file: a process of its own shares no module with a user's, Node's ES
// module loader resolving, reading and linking ~250 files was most of a cold start (issue 19,
// item 6), and a CommonJS file can be compiled with node:vm and V8's code cache, which the bin
// keeps between runs (Node 20 has no compile cache for ES modules). Its first line names it by its
// hash, the code cache's key. Left out: what is loaded by a path at run time or only by a
// subcommand (express, solc, secp256k1's native binding) and ws (its optional native add-ons are
// required by name). The EthereumJS versions it holds are written in
// (src/chain/vm/ethereumjsVersion.ts).
//
// `--if-stale` (`npm run bench`, which measures the build): does nothing when dist/.built is newer
// than every file under src/ and than this script, package.json and the tsconfigs: the rule
// bin/gateway-double.js uses to run dist/, so what the bench starts is the build it would run.
//
// `--prepare` (the `prepare` script, run by `npm ci` and `npm install` in a clone): the same, but
// a failed build only prints a line (bin/ then runs the sources through tsx), and it does nothing
// under `npm pack` / `npm publish`, where `prepack` has just built.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFileSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bundledUtilPlugin } from './bundledUtil.mjs'

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
    const inputs = ['scripts/build.mjs', 'scripts/bundledUtil.mjs', 'package.json', 'tsconfig.json', 'tsconfig.build.json'].map((f) => statSync(at(f)).mtimeMs)
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

await bundle()

// What bin/gateway-double.js stats to tell a fresh build: every folder and file under src/, by
// their paths from the root (a file added or removed changes its folder's time).
const sources = []
const list = (dir) => {
  sources.push(relative(root, dir))
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) list(join(dir, entry.name))
    else sources.push(relative(root, join(dir, entry.name)))
  }
}
list(join(root, 'src'))
writeFileSync(at('dist/.built'), `${sources.join('\n')}\n`)

/** The hash src/chain/loading/verifiedCache.ts computes of the code a cached chain depends on, at build time (the bundle has no src/chain to read). */
function codeHash() {
  const hash = createHash('sha256')
  for (const dir of ['src/chain', 'src/encoding'].map((d) => join(root, d))) {
    for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
      if (/\.(ts|js)$/.test(file)) hash.update(file).update(readFileSync(join(dir, file)))
    }
  }
  return hash
}

async function bundle() {
  let esbuild
  try {
    esbuild = await import('esbuild')
  } catch {
    fail('esbuild is not installed')
  }
  const src = join(root, 'src')
  // The ES module targets of package.json's exports (dist/<path>.js, built from src/<path>.ts), and the CLI.
  const entries = {}
  const targets = (v) => (typeof v === 'string' ? [v] : Object.entries(v).flatMap(([k, x]) => (k === 'require' || k === 'types' ? [] : targets(x))))
  const manifest = JSON.parse(readFileSync(at('package.json'), 'utf8'))
  for (const target of targets(manifest.exports)) {
    const m = /^\.\/dist\/(.+)\.js$/.exec(target)
    if (m) entries[m[1]] = `src/${m[1]}.ts`
  }
  const version = (pkg) => JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')).version
  const vmVersion = version('@ethereumjs/vm')
  const selfUrl = {
    name: 'tsc-output-urls',
    setup(build) {
      build.onLoad({ filter: /\/src\/.*\.ts$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8')
        if (!text.includes('import.meta.url')) return undefined
        // Where tsc puts this module, from the dist/ folder of whichever file of the bundle holds it.
        const own = relative(src, args.path).replace(/\.ts$/, '.js')
        const url = `new URL(${JSON.stringify(`./${own}`)}, import.meta.url.slice(0, import.meta.url.lastIndexOf('/dist/') + 6)).href`
        return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' }
      })
    },
  }
  const define = { 'globalThis.GATEWAY_DOUBLE_CODE_HASH': JSON.stringify(codeHash().update(`@ethereumjs/vm@${vmVersion}`).digest('hex')) }
  // patches/README.md, changes 12 and 17, to the copies of @ethereumjs/util's bytes.js inside the
  // bundles only (a user's EthereumJS is theirs): its table of the BigInts 0 to 65535 made when
  // first asked for each, not all 65,536 at load (tens of ms of every start), and bytes to hex as
  // one flat string (./bundledUtil.mjs). The build fails when the text they replace is not there,
  // so a new EthereumJS version is looked at, not silently left unchanged.
  const bundledUtil = bundledUtilPlugin(fail)
  const cliExternal = ['express', 'solc', 'secp256k1', 'ws']
  // And the peers (vitest, for gateway-double/testing/vitest): the user's own copy, never one of ours.
  const libraryExternal = ['express', 'solc', 'secp256k1', 'bufferutil', 'utf-8-validate', ...Object.keys(manifest.peerDependencies ?? {})]
  // The EthereumJS copy each bundle holds (src/chain/vm/ethereumjsVersion.ts).
  const bundledEthereumjs = JSON.stringify({ '@ethereumjs/common': version('@ethereumjs/common'), '@ethereumjs/evm': version('@ethereumjs/evm'), '@ethereumjs/mpt': version('@ethereumjs/mpt') })
  // CommonJS in one file: bin/gateway-double.js compiles it with node:vm and V8's code cache
  // (Node 20 has none for ES modules). import.meta.url becomes the file's own URL.
  const cli = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { cli: 'src/cli.ts' },
    outfile: 'dist/cli.cjs',
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: cliExternal,
    // ES module builds first: hash-wasm's `main` is a UMD file that Node's CommonJS lexer would scan whole.
    mainFields: ['module', 'main'],
    banner: { js: '"use strict";\nconst __gatewayDoubleUrl = require("node:url").pathToFileURL(__filename).href;' },
    define: {
      ...define,
      'import.meta.url': '__gatewayDoubleUrl',
      'globalThis.GATEWAY_DOUBLE_BUNDLED_ETHEREUMJS': bundledEthereumjs,
    },
    plugins: [selfUrl, bundledUtil],
    metafile: true,
    write: false,
    logLevel: 'warning',
  })
  // The bundle's import() of a package left outside it (ws, solc) calls `__gatewayDoubleImport`,
  // which bin/gateway-double.js passes in (its own import(), from an ES module): in code that V8
  // restored from the code cache, Node 20 loses vm.Script's importModuleDynamically, and import()
  // fails with "A dynamic import callback was not specified".
  const [built] = cli.outputFiles
  // esbuild escapes what is not ASCII in strings, regular expressions and names, but not in
  // comments or String.raw templates: escaped there too (in a String.raw template the text
  // changes, so the dashboard's script, served as text, writes its one such character as an
  // escape itself), the file is ASCII, which the bin reads as latin1 and V8 holds as one byte per character
  // (read as UTF-8 into a two-byte string, the bundle took tens of ms more of every start).
  const text = built.text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).replace(/\bimport\(("[^"]+")\)/g, (call, specifier) => (cliExternal.includes(JSON.parse(specifier)) ? `__gatewayDoubleImport(${specifier})` : call))
  if (/\bimport\("/.test(text)) throw new Error('dist/cli.cjs: an import() of a package the bundle does not hold and __gatewayDoubleImport does not cover')
  // The first line names the bundle by its hash: the code cache's key (bin/gateway-double.js).
  writeFileSync(built.path, `// gateway-double cli ${createHash('sha256').update(text).digest('hex').slice(0, 16)}\n${text}`)
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: entries,
    outdir: 'dist',
    chunkNames: 'chunks/[name]_[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // The dependencies inside but libraryExternal (see the top of this file). A CommonJS module
    // inside requires Node's own modules through the banner's `require`.
    external: libraryExternal,
    mainFields: ['module', 'main'],
    banner: { js: "import { createRequire as __gatewayDoubleCreateRequire } from 'node:module';\nconst require = __gatewayDoubleCreateRequire(import.meta.url);" },
    allowOverwrite: true,
    define: { ...define, 'globalThis.GATEWAY_DOUBLE_BUNDLED_ETHEREUMJS': bundledEthereumjs },
    plugins: [selfUrl, bundledUtil],
    metafile: true,
    logLevel: 'warning',
  })
  const kept = new Set([...Object.keys(result.metafile.outputs), ...Object.keys(cli.metafile.outputs)].map((f) => join(root, f)))
  const prune = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) prune(path)
      else if (path.endsWith('.js') && !kept.has(path)) rmSync(path)
    }
  }
  prune(join(root, 'dist'))
}
