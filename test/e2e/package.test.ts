/**
 * gateway-double as a dApp team meets it: `npm pack` (as `npm publish` would run it, from a copy
 * of this repository, so the build it runs never touches this worktree's dist/), the tarball
 * installed into a fresh project from npm's cache alone (`npm ci --offline`, see
 * test/support/consumerProject.ts), the installed package made read-only, and then, from that
 * project, which also installs ethers 6 and viem in the same install (ethers' older @noble/hashes
 * once hoisted over an undeclared import of the package's): every import of the build declared
 * and resolved to its declared version, an ES module script, viem's webSocket() transport, a
 * CommonJS script, `tsc --strict` with the tsconfig `tsc --init` writes and again without
 * skipLibCheck, a newcomer's path (the banner's plain URL with viem, ethers and cast and no
 * helper, the accounts and ABIs of gateway-double/fixtures), the installed command (serving,
 * and `gateway-double export` of a running server's network, served again, a contract's
 * console.log printed), the manual's vitest recipe (a worker snapshotting and reverting its
 * network) and jest recipe as written, and every TypeScript example of the shipped pages.
 * One pack and one install serve every check.
 */
import { execFile, spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { builtinModules } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPublicClient, createWalletClient, http } from 'viem'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { compileContracts } from '../../src/builder/compile.ts'
import { ethereumAccounts } from '../../src/fixtures/index.ts'
import { DASHBOARD_SCRIPT } from '../../src/http/dashboard/script.ts'
import { castBinary } from '../support/cast.ts'
import { writeConsumerProject } from '../support/consumerProject.ts'
import { SNIPPET_PAGES, snippetFile, snippetsOf } from '../support/docSnippets.ts'
import { openSocket } from '../support/socket.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const HERE = fileURLToPath(new URL('./package/', import.meta.url))
/** The manual's page with the test-runner recipes. */
const RECIPES = readFileSync(join(ROOT, 'docs', 'test-runners.md'), 'utf8')
/** What the project installs beside gateway-double, at this repository's versions. */
const OTHERS = ['viem', 'ethers', 'web3', 'typescript', '@types/node', 'vitest', 'jest']

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * The environment of a user's shell: none of this run's npm script or vitest variables (a nested
 * vitest would take VITEST_POOL_ID for its own, npm the outer script's package settings).
 */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(VITEST|npm_package_|npm_lifecycle_|npm_command$|npm_config_local_prefix$|INIT_CWD$|NODE_ENV$|TEST$)/.test(name)) continue
    env[name] = value
  }
  return { ...env, NO_COLOR: '1', ...extra }
}

function run(command: string, args: readonly string[], cwd: string, env = userEnv(), timeout = 240_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, timeout, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr: err !== null && typeof err.code !== 'number' ? `${stderr}\n${err.message}` : stderr })
    })
  })
}

const show = (r: Run) => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`

/** Every file under `dir`, relative to it, with its size and modification time. */
function listing(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return listing(path, base)
    const s = statSync(path)
    return [`${relative(base, path)} ${s.size} ${s.mtimeMs}`]
  })
}

/**
 * The files a section of docs/test-runners.md shows: each ```js / ```ts block, split where a line
 * `// <path>` (a file name, then optionally a comment) starts the block or follows a blank line.
 */
function recipeFiles(heading: string): Map<string, string> {
  const start = RECIPES.indexOf(`\n${heading}\n`)
  expect(start, heading).toBeGreaterThan(0)
  const end = RECIPES.slice(start + heading.length + 2).search(/\n##+ /)
  const files = new Map<string, string>()
  for (const [, body] of RECIPES.slice(start, end < 0 ? undefined : start + heading.length + 2 + end).matchAll(/```(?:js|ts)\n([\s\S]*?)```/g)) {
    let current: string | undefined
    let previous = ''
    for (const line of body!.split('\n')) {
      const named = /^\/\/ ([\w./-]+\.(?:js|ts|cjs|mjs))(?:[ :,(].*)?$/.exec(line)
      if (named && previous.trim() === '') {
        current = named[1]!
        files.set(current, '')
      } else if (current !== undefined) files.set(current, `${files.get(current)}${line}\n`)
      previous = line
    }
  }
  return files
}

function writeFiles(dir: string, files: ReadonlyMap<string, string>, names: readonly string[]): void {
  for (const name of names) {
    const text = files.get(name)
    expect(text, `docs/test-runners.md shows ${name}`).toBeDefined()
    mkdirSync(dirname(join(dir, name)), { recursive: true })
    writeFileSync(join(dir, name), text!)
  }
}

const ETH_BLOCK_NUMBER = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }

/** A JSON POST to 127.0.0.1:`port` (with `host` as the Host header when given); the parsed answer. */
function postJson(port: string, path: string, body: unknown, host?: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', ...(host ? { host } : {}) }
    const req = request({ host: '127.0.0.1', port, method: 'POST', path, headers }, (res) => {
      let text = ''
      res.on('data', (d: Buffer) => (text += d.toString()))
      res.on('end', () => resolve(JSON.parse(text)))
    })
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

interface Command {
  port: string
  out(): string
  /** SIGTERM, then the exit code and what it wrote to stderr. */
  stop(): Promise<{ code: number | null; stderr: string }>
}

/** The installed `gateway-double` command with `args`, once its banner says it listens. */
async function startCommand(args: readonly string[]): Promise<Command> {
  const child = spawn(join(dapp, 'node_modules', '.bin', 'gateway-double'), args, { cwd: dapp, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stderr.on('data', (d: Buffer) => (err += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const stop = async () => {
    child.kill('SIGTERM')
    return { code: await exited, stderr: err }
  }
  try {
    const port = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString()
        const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)
        if (m && out.includes('Press Ctrl+C to stop.')) resolve(m[1]!)
      })
      child.on('exit', (code) => reject(new Error(`exited (${code}) before listening:\n${out}\n${err}`)))
    })
    return { port, out: () => out, stop }
  } catch (e) {
    await stop()
    throw e
  }
}

let work: string
let dapp: string
let installed: string
let packed: { filename: string; size: number; unpackedSize: number; entryCount: number; files: { path: string }[] }
let installedFiles: string[]

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'gd-package-'))
  // A copy of the repository as a clean checkout has it (no build, no caches), its dependencies
  // linked: `npm pack` runs `prepack` (the build) there.
  const repo = join(work, 'repo')
  const skip = new Set(['node_modules', '.git', 'dist', '.cache', 'scratch'])
  cpSync(ROOT, repo, { recursive: true, filter: (src) => !skip.has(src.slice(ROOT.length).split('/')[0]!) })
  symlinkSync(join(ROOT, 'node_modules'), join(repo, 'node_modules'))
  const pack = await run('npm', ['pack', '--json', '--pack-destination', work], repo)
  expect(pack.code, show(pack)).toBe(0)
  // The JSON report follows the scripts' own output.
  packed = (JSON.parse(pack.stdout.slice(pack.stdout.indexOf('[\n'))) as (typeof packed)[])[0]!

  dapp = join(work, 'dapp')
  mkdirSync(dapp)
  cpSync(join(work, packed.filename), join(dapp, packed.filename))
  writeConsumerProject(dapp, packed.filename, ROOT, OTHERS)
  const install = await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], dapp)
  expect(install.code, show(install)).toBe(0)
  installed = join(dapp, 'node_modules', 'gateway-double')
  // Nothing a consumer does may write into the package: make it read-only, and list it.
  const readOnly = await run('chmod', ['-R', 'a-w', installed], dapp)
  expect(readOnly.code, show(readOnly)).toBe(0)
  installedFiles = listing(installed)
}, 900_000)

afterAll(async () => {
  if (work === undefined) return
  if (installed !== undefined) await run('chmod', ['-R', 'u+w', installed], work)
  rmSync(work, { recursive: true, force: true })
})

// Each check runs installs' commands, servers and whole test runs in child processes: minutes on a loaded machine.
describe('the packed package, installed in a fresh project', { timeout: 600_000 }, () => {
  it('holds the build with declarations, the bin, the default config and the provider profiles, fixtures and their sources, README, the manual (with its screenshot) and LICENSE: nothing else', () => {
    const files = packed.files.map((f) => f.path).sort()
    const allowed = /^(package\.json|README\.md|LICENSE|docs\/[\w-]+\.md|docs\/images\/[\w-]+\.png|bin\/(gateway-double\.js|youngGeneration\.js|package\.json)|config\/default\.json|config\/profiles\/[\w-]+\.json|fixtures\/README\.md|fixtures\/(ethereum|polygon|base)\/[\w.]+|fixtures\/sources\/([\w]+\.scenario\.json|contracts\/\w+\.sol|examples\/(contracts\/)?[\w.]+)|dist\/[\w/]+\.(js|d\.ts|cjs|d\.cts))$/
    expect(files.filter((f) => !allowed.test(f))).toEqual([])
    for (const network of ['ethereum', 'polygon', 'base']) {
      expect(files).toEqual(expect.arrayContaining(['genesis.json', 'chain.rlp', 'accounts.json'].map((f) => `fixtures/${network}/${f}`)))
    }
    // bin/package.json makes the bin CommonJS (its header says why), which it is written as.
    expect(files).toEqual(expect.arrayContaining(['README.md', 'LICENSE', 'bin/gateway-double.js', 'bin/package.json', 'config/default.json', 'config/profiles/infura.json', 'config/profiles/alchemy.json', 'docs/test-runners.md']))
    // Every relative link of every shipped page resolves inside the installed package.
    expect(files).toEqual(expect.arrayContaining(['fixtures/sources/examples/checkout.json', 'fixtures/sources/examples/vault.scenario.json']))
    let links = 0
    for (const md of files.filter((f) => f.endsWith('.md'))) {
      const text = readFileSync(join(installed, md), 'utf8').replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '``')
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue
        links++
        expect(files, `${md} links ${target}`).toContain(join(dirname(md), target!))
      }
    }
    expect(links).toBeGreaterThan(20)
    // Every module of the build comes with its declarations; the bundle's shared and lazily loaded
    // chunks (dist/chunks/, scripts/build.mjs) are imported by the entries only, never by name.
    const chunks = files.filter((f) => f.startsWith('dist/chunks/'))
    expect(chunks.length).toBeGreaterThan(0)
    for (const js of files.filter((f) => f.endsWith('.js') && f.startsWith('dist/') && !f.startsWith('dist/chunks/'))) expect(files, js).toContain(js.replace(/\.js$/, '.d.ts'))
    // Every export target is in the tarball.
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { exports: Record<string, unknown>; dependencies: Record<string, string> }
    const leaves = (v: unknown): string[] => (typeof v === 'string' ? [v.slice(2)] : Object.values(v as object).flatMap(leaves))
    const targets = leaves(pkg.exports)
    expect(targets).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/testing/vitest.js', 'dist/client.cjs']))
    for (const target of targets) expect(files, target).toContain(target)
    // No TypeScript loader: tsx is not a dependency, so the project does not have it.
    expect(Object.keys(pkg.dependencies)).not.toContain('tsx')
    expect(existsSync(join(dapp, 'node_modules', 'tsx'))).toBe(false)
  })

  it('declares every package its build imports, each resolved from the installed package to the version declared (ethers 6 beside it)', () => {
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string>; peerDependencies: Record<string, string> }
    const imported = new Map<string, string>()
    // (bin/ imports tsx only in a clone without a build, where tsx is a devDependency.)
    for (const file of packed.files.map((f) => f.path).filter((f) => f.startsWith('dist/'))) {
      // TypeScript's scanner: static and dynamic imports and require() calls, not strings that look like them.
      for (const { fileName: spec } of ts.preProcessFile(readFileSync(join(installed, file), 'utf8'), true, true).importedFiles) {
        if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:')) continue
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!
        if (!builtinModules.includes(name) && name !== pkg.name) imported.set(name, file)
      }
    }
    // The bundles hold EthereumJS and ws (their declarations import its types); vitest is the peer the vitest entry imports.
    expect([...imported.keys()]).toEqual(expect.arrayContaining(['@ethereumjs/vm', 'express', 'ws', 'solc', 'vitest']))
    for (const [name, file] of imported) {
      const declared = pkg.dependencies[name] ?? pkg.peerDependencies[name]
      expect(declared, `${file} imports ${name}`).toBeDefined()
      if (pkg.dependencies[name] === undefined) continue
      // Node's resolution from the package: its own node_modules, then the project's.
      const at = [join(installed, 'node_modules', name), join(dapp, 'node_modules', name)].find((dir) => existsSync(join(dir, 'package.json')))
      expect(at, name).toBeDefined()
      expect((JSON.parse(readFileSync(join(at!, 'package.json'), 'utf8')) as { version: string }).version, name).toBe(declared)
    }
    expect((JSON.parse(readFileSync(join(dapp, 'node_modules', 'ethers', 'package.json'), 'utf8')) as { version: string }).version).toMatch(/^6\./)
  })

  it("a newcomer's path: the banner's plain URL with viem, ethers and cast and no helper; the accounts (printed, with their test keys) and ABIs of gateway-double/fixtures", async () => {
    const server = await startCommand(['--port', '0'])
    try {
      const banner = server.out()
      const url = /^RPC URL \(ethereum, chain id 1; any client, no Host needed\):\n {2}(\S+)$/m.exec(banner)?.[1]
      expect(url, banner).toBe(`http://127.0.0.1:${server.port}/v3/deadbeefdeadbeefdeadbeefdeadbeef`)
      expect(banner).toMatch(/^ {2}alice +0x8f41fd4479ae08632001bc4b1fcbfdc464ed1c49 +0x3c37c158e3c720afc83ef951daae106564730a63d5bbb44751603a836990ffd9$/m)
      expect(banner).toContain('These private keys are public test keys')
      cpSync(join(HERE, 'newcomer.mjs'), join(dapp, 'newcomer.mjs'))
      const r = await run(process.execPath, ['newcomer.mjs', url!], dapp)
      expect(r.code, show(r)).toBe(0)
      expect(JSON.parse(r.stdout)).toEqual({ status: 'success', received: '5', count: '9', viemHead: '7', ethersHead: 7, ethersChainId: '1' })
      const cast = castBinary()
      if (cast !== undefined) {
        const head = await run(cast, ['block-number', '--rpc-url', url!], dapp, userEnv({ FOUNDRY_DISABLE_NIGHTLY_WARNING: '1' }))
        expect(head.code, show(head)).toBe(0)
        expect(head.stdout).toBe('7\n')
      }
    } finally {
      expect(await server.stop()).toEqual({ code: 0, stderr: '' })
    }
  })

  it("the installed command prints a contract's console.log lines, as Anvil does", async () => {
    const server = await startCommand(['--port', '0'])
    try {
      const source = join(work, 'Hello.sol')
      writeFileSync(
        source,
        `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Hello {
    constructor() {
        bytes memory payload = abi.encodeWithSignature("log(string,uint256)", "hello from the constructor, %d", 42);
        address c = 0x000000000000000000636F6e736F6c652e6c6f67;
        assembly { let r := staticcall(gas(), c, add(payload, 32), mload(payload), 0, 0) }
    }
}
`,
      )
      const [compiled] = await compileContracts([{ source: 'Hello.sol', contractName: 'Hello', loc: { file: 'Hello.sol' } as never }], work)
      const url = `http://127.0.0.1:${server.port}/v3/deadbeefdeadbeefdeadbeefdeadbeef`
      const alice = privateKeyToAccount(ethereumAccounts.alice.privateKey as Hex)
      const chain = { id: 1, name: 'ethereum', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } } as const
      const wallet = createWalletClient({ account: alice, chain, transport: http(url) })
      const client = createPublicClient({ chain, transport: http(url) })
      const hash = await wallet.deployContract({ abi: [], bytecode: compiled!.bytecode as Hex, account: alice, chain })
      expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success')
      expect(server.out()).toContain('\nhello from the constructor, 42\n')
    } finally {
      expect(await server.stop()).toEqual({ code: 0, stderr: '' })
    }
  })

  it("an ES module script: startServer, viem through localhostFetch, a revert decoded by viem; the project's own EthereumJS left as it was", async () => {
    cpSync(join(HERE, 'esm.mjs'), join(dapp, 'esm.mjs'))
    const r = await run(process.execPath, ['esm.mjs'], dapp)
    expect(r.code, show(r)).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({
      blockNumber: '6',
      chainId: 1,
      revert: { name: 'ContractFunctionRevertedError', reason: 'Reverter: always reverts' },
      networks: ['ethereum', 'polygon', 'base'],
      projectEthereumjsUnchanged: true,
    })
    // The verified chains went to the project's cache folder, and nothing into the package.
    expect(readdirSync(join(dapp, 'node_modules', '.cache', 'gateway-double')).filter((f) => f.endsWith('.json')).length).toBeGreaterThanOrEqual(3)
    expect(listing(installed)).toEqual(installedFiles)
  })

  it("viem's webSocket() through the installed LocalhostWebSocket: watchBlockNumber sees a block mined by the control API, on newHeads", async () => {
    cpSync(join(HERE, 'websocket.mjs'), join(dapp, 'websocket.mjs'))
    const r = await run(process.execPath, ['websocket.mjs'], dapp)
    expect(r.code, show(r)).toBe(0)
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({
      mined: 7,
      numbers: ['7'],
      errors: [],
      calls: ['upgrade 101', 'eth_subscribe', 'eth_subscription', 'eth_unsubscribe'],
    })
  })

  it('a CommonJS script: require of the package and of gateway-double/client', async () => {
    cpSync(join(HERE, 'cjs.cjs'), join(dapp, 'cjs.cjs'))
    const r = await run(process.execPath, ['cjs.cjs'], dapp)
    expect(r.code, show(r)).toBe(0)
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 1, result: '0x89' }, snapshotNetworks: ['ethereum', 'polygon', 'base'] })
  })

  it('type-checks a file using the public API with tsc --strict and the tsconfig of tsc --init', async () => {
    const dir = join(dapp, 'typed')
    mkdirSync(dir)
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
    cpSync(join(HERE, 'typed.ts'), join(dir, 'index.ts'))
    const tsc = join(dapp, 'node_modules', 'typescript', 'bin', 'tsc')
    const init = await run(process.execPath, [tsc, '--init'], dir)
    expect(init.code, show(init)).toBe(0)
    const tsconfig = readFileSync(join(dir, 'tsconfig.json'), 'utf8')
    expect(tsconfig).toMatch(/^\s*"module": "nodenext"/m)
    expect(tsconfig).toMatch(/^\s*"skipLibCheck": true/m)
    const check = await run(process.execPath, [tsc, '--noEmit', '--strict', '-p', '.'], dir)
    expect(check.code, show(check)).toBe(0)
    expect(check.stdout).toBe('')
    // And the declarations themselves checked: they need only the package's own types and its
    // dependencies' (@types/ws, @types/debug for EthereumJS's).
    const full = await run(process.execPath, [tsc, '--noEmit', '--strict', '--skipLibCheck', 'false', '-p', '.'], dir)
    expect(full.code, show(full)).toBe(0)
    expect(full.stdout).toBe('')
  })

  it('the installed command serves the default networks and answers eth_blockNumber', async () => {
    const server = await startCommand(['--port', '0'])
    try {
      expect(await postJson(server.port, '/v3/deadbeefdeadbeefdeadbeefdeadbeef', ETH_BLOCK_NUMBER, 'ethereum-mainnet.localhost')).toEqual({ jsonrpc: '2.0', id: 1, result: '0x6' })
      expect(server.out()).toMatch(/polygon +137 +4 \(0x4\)/)
    } finally {
      expect(await server.stop()).toEqual({ code: 0, stderr: '' })
    }
  })

  it("the installed command keeps V8's compiled code of its bundle in the project's cache folder, and a cache V8 refuses only costs a compile", async () => {
    const cacheDir = join(dapp, 'node_modules', '.cache', 'gateway-double')
    const codeCaches = () => (existsSync(cacheDir) ? readdirSync(cacheDir).filter((f) => f.endsWith('.v8cache')) : [])
    for (const file of codeCaches()) rmSync(join(cacheDir, file))
    const serve = async () => {
      const server = await startCommand(['--port', '0'])
      try {
        expect(await postJson(server.port, '/v3/deadbeefdeadbeefdeadbeefdeadbeef', ETH_BLOCK_NUMBER, 'ethereum-mainnet.localhost')).toEqual({ jsonrpc: '2.0', id: 1, result: '0x6' })
        // A WebSocket imports \`ws\` at its first upgrade: an import() from the bundle, which code
        // restored from the cache could not make (the upgrade hung up) until the bin passed its own in.
        const socket = await openSocket(`ws://ethereum-mainnet.localhost:${server.port}/ws/v3/deadbeefdeadbeefdeadbeefdeadbeef`)
        try {
          expect(await socket.call(ETH_BLOCK_NUMBER)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x6' })
        } finally {
          await socket.close()
        }
      } finally {
        expect(await server.stop()).toEqual({ code: 0, stderr: '' })
      }
    }
    await serve()
    const [saved] = codeCaches()
    expect(codeCaches()).toEqual([expect.stringMatching(new RegExp(`^cli-[0-9a-f]{16}-${process.version.replaceAll('.', '\\.')}-${process.arch}\\.v8cache$`))])
    expect(statSync(join(cacheDir, saved!)).size).toBeGreaterThan(100_000)
    // Bytes that are not V8's: refused, the bundle compiled from its source, and the cache saved again.
    const garbage = Buffer.alloc(statSync(join(cacheDir, saved!)).size, 7)
    writeFileSync(join(cacheDir, saved!), garbage)
    await serve()
    expect(codeCaches()).toEqual([saved])
    expect(readFileSync(join(cacheDir, saved!)).equals(garbage)).toBe(false)
    // Accepted: served from it, and left as it is.
    const accepted = readFileSync(join(cacheDir, saved!))
    await serve()
    expect(readFileSync(join(cacheDir, saved!)).equals(accepted)).toBe(true)
  })

  it('the installed command with --control serves the dashboard at /_double/, its chart library from the installed package (no CDN)', async () => {
    const server = await startCommand(['--port', '0', '--control'])
    try {
      const get = async (path: string) => {
        const res = await fetch(`http://127.0.0.1:${server.port}${path}`)
        return { status: res.status, type: res.headers.get('content-type'), text: await res.text() }
      }
      const page = await get('/_double/')
      expect(page).toMatchObject({ status: 200, type: expect.stringContaining('text/html') })
      // The bundle is ASCII (scripts/build.mjs escapes the rest), and the page's script is the source's to the byte.
      expect(readFileSync(join(dapp, 'node_modules', 'gateway-double', 'dist', 'cli.cjs')).every((byte) => byte < 0x80)).toBe(true)
      expect(page.text).toContain(`<script>${DASHBOARD_SCRIPT}</script>`)
      // Every script and stylesheet the page names is relative to the control endpoint: nothing from elsewhere.
      const refs = [...page.text.matchAll(/<(?:script|link)[^>]*(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
      expect(refs).toEqual(['data:,', 'dashboard/uPlot.min.css', 'dashboard/uPlot.iife.min.js'])
      const script = await get('/_double/dashboard/uPlot.iife.min.js')
      expect(script).toMatchObject({ status: 200, type: expect.stringContaining('javascript') })
      expect(script.text).toBe(readFileSync(join(dapp, 'node_modules', 'uplot', 'dist', 'uPlot.iife.min.js'), 'utf8'))
      expect((await get('/_double/dashboard/uPlot.min.css')).text).toBe(readFileSync(join(dapp, 'node_modules', 'uplot', 'dist', 'uPlot.min.css'), 'utf8'))
      expect(await postJson(server.port, '/v3/deadbeefdeadbeefdeadbeefdeadbeef', ETH_BLOCK_NUMBER, 'ethereum-mainnet.localhost')).toEqual({ jsonrpc: '2.0', id: 1, result: '0x6' })
      expect(JSON.parse((await get('/_double/usage?window=15m')).text)).toMatchObject({ totals: { requests: 1, credits: 80 }, topMethods: [{ method: 'eth_blockNumber', requests: 1 }] })
    } finally {
      expect(await server.stop()).toEqual({ code: 0, stderr: '' })
    }
  })

  it('the installed command exports a running server’s network (gateway-double export), and a restart on the export serves it', async () => {
    const whale = '0x00000000000000000000000000000000000b1e55'
    const first = await startCommand(['--port', '0', '--control'])
    try {
      const dev = (method: string, params: unknown[]) => postJson(first.port, '/_double/rpc/ethereum', { jsonrpc: '2.0', id: 1, method, params })
      expect(await dev('anvil_setBalance', [whale, '0x2a'])).toMatchObject({ result: null })
      expect(await dev('evm_mine', [])).toMatchObject({ result: '0x0' })
      const exported = await run(join(dapp, 'node_modules', '.bin', 'gateway-double'), ['export', '--url', `http://127.0.0.1:${first.port}`, '--network', 'ethereum', '--out', './exported'], dapp)
      expect(exported.code, show(exported)).toBe(0)
    } finally {
      expect(await first.stop()).toEqual({ code: 0, stderr: '' })
    }
    const second = await startCommand(['--port', '0', '--fixture', 'ethereum=./exported'])
    try {
      const rpc = (method: string, params: unknown[] = []) => postJson(second.port, '/v3/deadbeefdeadbeefdeadbeefdeadbeef', { jsonrpc: '2.0', id: 1, method, params }, 'ethereum-mainnet.localhost')
      expect(await rpc('eth_blockNumber')).toMatchObject({ result: '0x7' })
      expect(await rpc('eth_getBalance', [whale, 'latest'])).toMatchObject({ result: '0x2a' })
    } finally {
      expect(await second.stop()).toEqual({ code: 0, stderr: '' })
    }
  })

  it("runs the shipped pages' TypeScript examples as a user copies them into the project, against the installed command", async () => {
    const command = await startCommand(['--port', '0'])
    try {
      const tsx = join(ROOT, 'node_modules', '.bin', 'tsx')
      const shipped = SNIPPET_PAGES.filter((page) => existsSync(join(installed, page.path)))
      expect(shipped.length).toBeGreaterThan(4)
      for (const page of shipped) {
        for (const snippet of snippetsOf(page)) {
          const file = join(dapp, snippetFile(snippet))
          writeFileSync(file, snippet.code.replaceAll(':8545/', `:${command.port}/`))
          // The repository's tsx only loads the file: its imports resolve from the project, so
          // `gateway-double` is the installed package.
          const r = await run(tsx, [file], dapp)
          expect(r.code, `${snippet.name}\n${show(r)}`).toBe(0)
          expect(r.stdout, snippet.name).toBe(snippet.output)
        }
      }
    } finally {
      await command.stop()
    }
  })

  it('runs the vitest recipe of docs/test-runners.md as written: the default globalSetup with options from the environment, then its own test/globalSetup.ts', async () => {
    const files = recipeFiles('### vitest: one server per run')
    expect([...files.keys()].sort()).toEqual(['test/globalSetup.ts', 'test/head.spec.ts', 'test/rpcUrl.ts', 'test/snapshot.spec.ts', 'vitest.config.ts'])
    const vitest = join(dapp, 'node_modules', 'vitest', 'vitest.mjs')
    const fromEnv = join(dapp, 'vitest-suite')
    writeFiles(fromEnv, files, ['vitest.config.ts', 'test/rpcUrl.ts', 'test/head.spec.ts', 'test/snapshot.spec.ts'])
    cpSync(join(HERE, 'chain.spec.ts'), join(fromEnv, 'test', 'chain.spec.ts'))
    const r = await run(process.execPath, [vitest, 'run'], fromEnv, userEnv({ GATEWAY_DOUBLE_ISOLATE: 'ethereum', GATEWAY_DOUBLE_NETWORK_PORTS: '0' }))
    expect(r.code, show(r)).toBe(0)
    expect(r.stdout).toMatch(/Tests +6 passed \(6\)/)
    // The page's own globalSetup file, "listed in test.globalSetup instead", and no environment.
    const inline = join(dapp, 'vitest-inline')
    writeFiles(inline, files, ['vitest.config.ts', 'test/rpcUrl.ts', 'test/head.spec.ts', 'test/snapshot.spec.ts', 'test/globalSetup.ts'])
    const config = files.get('vitest.config.ts')!
    expect(config).toContain("globalSetup: ['gateway-double/testing/vitest']")
    writeFileSync(join(inline, 'vitest.config.ts'), config.replace("globalSetup: ['gateway-double/testing/vitest']", "globalSetup: ['./test/globalSetup.ts']"))
    cpSync(join(HERE, 'chain.spec.ts'), join(inline, 'test', 'chain.spec.ts'))
    const own = await run(process.execPath, [vitest, 'run'], inline)
    expect(own.code, show(own)).toBe(0)
    expect(own.stdout).toMatch(/Tests +6 passed \(6\)/)
  })

  it('runs the jest recipe of docs/test-runners.md as written', async () => {
    const dir = join(dapp, 'jest-suite')
    const files = recipeFiles('### jest: one server per run')
    expect([...files.keys()].sort()).toEqual(['jest.config.js', 'test/chain.test.js', 'test/gd-setup.js', 'test/gd-teardown.js', 'test/gd-worker.js'])
    writeFiles(dir, files, [...files.keys()])
    const jest = join(dapp, 'node_modules', 'jest', 'bin', 'jest.js')
    const r = await run(process.execPath, [jest, '--ci'], dir)
    expect(r.code, show(r)).toBe(0)
    expect(r.stderr).toMatch(/Tests: +1 passed, 1 total/)
  })
})
