#!/usr/bin/env node
// The package's command. Installed from the registry (or a tarball), the package has no src/ and
// the compiled CLI in dist/ runs: no TypeScript loader. In a clone, dist/ runs when it holds a
// build newer than every source file (`npm run build`, which `npm ci` and `npm install` run
// through `prepare`); otherwise (no build, a failed one, or a source edited since) tsx, a
// devDependency, registers its ESM loader in this process and the sources run as they are.
// `--version` alone is answered here, from package.json, before anything else is read or loaded.
//
// The compiled CLI is one CommonJS file (dist/cli.cjs, scripts/build.mjs), compiled here with
// node:vm and V8's code cache: Node 20 keeps no compiled code between runs (module.enableCompileCache
// is Node 22), and compiling the ~2.5 MB bundle was most of a start (issue 19, item 6). The first
// start that serves saves the code V8 compiled by then (the bundle's top level, the start path
// and the first answer's) in the cache folder the verified chains use (defaultCacheDir in
// src/chain/loading/verifiedCache.ts: node_modules/.cache/gateway-double of the project, else the
// temporary folder), named by the bundle's hash and Node's version and architecture; later starts
// hand it to V8, which checks it and compiles from the source when it does not fit (the cache is
// then saved again). A cache that cannot be read or written only costs the compile.
//
// This file is CommonJS (bin/package.json says so; the package's own files are ES modules): Node
// 20 runs a CommonJS main synchronously, where an ES module main starts its ES module loader,
// which reads the file through promises and resolves each import (~15 million of a cold start's
// ~750 million instructions under callgrind). import() of tsx and of the bundle's outside packages
// still works from here, and starts that loader only when used.
'use strict'
const { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, stat, writeFileSync } = require('node:fs')
const { createRequire } = require('node:module')
const { tmpdir } = require('node:os')
const { dirname, join, resolve } = require('node:path')
const vm = require('node:vm')

const root = join(__dirname, '..', '/')

/**
 * Whether dist/ holds a build newer than every source file (always, with no src/: an installed
 * package). dist/.built lists the folders and files under src/ at the build (a file added or
 * removed since changes its folder's time); their stats are all asked for at once and run on
 * libuv's threads while the bundle is read and compiled (with callbacks: issuing 440 stats of
 * node:fs/promises took 20-30 ms of the main thread, callbacks 2-5 ms).
 */
function freshBuild() {
  if (!existsSync(join(root, 'src'))) return Promise.resolve(true)
  let listed
  try {
    listed = readFileSync(join(root, 'dist/.built'), 'utf8').split('\n').filter(Boolean)
  } catch {
    return Promise.resolve(false)
  }
  if (listed.length === 0) return Promise.resolve(false)
  return new Promise((resolve) => {
    // dist/.built is written after a successful build, so it is newer than every file the build read.
    let built
    let newest = 0
    let left = listed.length + 1
    let failed = false
    const settle = (err, time, isBuilt) => {
      if (err) failed = true
      else if (isBuilt) built = time
      else if (time > newest) newest = time
      if (--left === 0) resolve(!failed && newest <= built)
    }
    stat(`${root}dist/.built`, (err, s) => settle(err, s?.mtimeMs, true))
    for (const path of listed) stat(`${root}${path}`, (err, s) => settle(err, s?.mtimeMs, false))
  })
}

/** src/chain/loading/verifiedCache.ts's defaultCacheDir (the bundle is not loaded yet). */
function cacheDir() {
  const override = process.env.GATEWAY_DOUBLE_CACHE_DIR
  if (override) return resolve(override)
  for (let dir = process.cwd(); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) {
      try {
        accessSync(join(dir, 'node_modules'), constants.W_OK)
        return join(dir, 'node_modules', '.cache', 'gateway-double')
      } catch {
        break
      }
    }
    if (dirname(dir) === dir) break
  }
  return join(tmpdir(), `gateway-double-cache-${process.getuid?.() ?? 'user'}`)
}

/**
 * Reads and compiles dist/cli.cjs; `run()` runs it (module.exports: src/cli.ts's), `save()` then
 * writes the code cache when it was missing or refused. Undefined when there is no bundle.
 */
function compileBundle() {
  const file = join(root, 'dist/cli.cjs')
  let source
  try {
    // ASCII (scripts/build.mjs escapes the rest): read as latin1, Node skips UTF-8 decoding.
    source = readFileSync(file, 'latin1')
  } catch {
    return undefined
  }
  const hash = /^\/\/ gateway-double cli (\w+)\n/.exec(source)?.[1]
  const cacheFile = hash && join(cacheDir(), `cli-${hash}-${process.version}-${process.arch}.v8cache`)
  let cachedData
  try {
    if (cacheFile) cachedData = readFileSync(cacheFile)
  } catch {
    // No cache yet.
  }
  // CommonJS's own wrapper, on the source's first line: line numbers in stacks stay the file's.
  // The bundle's import() of the packages it leaves out (ws, solc) is this module's import(),
  // passed in as `__gatewayDoubleImport` (scripts/build.mjs): code V8 restores from a cache loses
  // vm.Script's importModuleDynamically on Node 20, and its own import() would fail.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, __gatewayDoubleImport) {${source}\n})`, {
    filename: file,
    cachedData,
  })
  const run = () => {
    const module = { exports: {} }
    script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file), (specifier) => import(specifier))
    return module.exports
  }
  let due = cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected === true)
  const save = () => {
    if (!due) return
    due = false
    try {
      const dir = dirname(cacheFile)
      mkdirSync(dir, { recursive: true })
      // Another build's or Node's caches are of no further use.
      for (const name of readdirSync(dir)) if (/^cli-.*\.v8cache$/.test(name)) rmSync(join(dir, name), { force: true })
      const temp = `${cacheFile}.${process.pid}.tmp`
      writeFileSync(temp, require('./youngGeneration.js').withFlagsAsAtStart(() => script.createCachedData()))
      renameSync(temp, cacheFile)
    } catch {
      // A cache folder that cannot be written: the next start compiles again.
    }
  }
  return { run, save }
}

/** The compiled bundle when dist/ holds a fresh build: in a clone, the sources' times are read while it compiles. */
async function compiledIfFresh() {
  const fresh = freshBuild()
  let compiled
  let failure
  try {
    compiled = compileBundle()
  } catch (err) {
    failure = err
  }
  if (!(await fresh)) return undefined
  if (failure) throw failure
  return compiled
}

async function start(args) {
  const bundle = await compiledIfFresh()
  if (bundle) {
    const { run, save } = bundle
    const cli = run()
    // Saved a second after the server listens (its first answers compiled by then), or when it
    // stops before that; subcommands, --help and usage errors save nothing.
    let served = false
    const listening = () => {
      served = true
      setTimeout(save, 1000).unref()
    }
    process.exitCode = await cli.main(args, undefined, undefined, listening)
    if (served) save()
    return
  }
  let register
  try {
    ;({ register } = await import('tsx/esm/api'))
  } catch {
    process.stderr.write("gateway-double: src/ has no fresh build in dist/ and tsx is not installed: run 'npm run build'\n")
    process.exit(1)
  }
  register()
  process.exitCode = await (await import('../src/cli.ts')).main(args)
}

const args = process.argv.slice(2)
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  process.stdout.write(`${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version}\n`)
} else {
  // The command's own process: a bounded young generation (./youngGeneration.js: why).
  require('./youngGeneration.js').capYoungGeneration()
  // A failure is an unhandled rejection: printed, exit code 1.
  start(args)
}
