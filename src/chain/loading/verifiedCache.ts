/**
 * "Verify once, then start from what was verified": after a fixture chain has been replayed and
 * every block checked, what the replay produced (the state database, which holds every block's
 * state, and the rendered transactions and receipts) is saved, keyed by a hash of everything the
 * result depends on: the fixture's genesis.json and chain.rlp, this project's chain and encoding
 * code, and the EthereumJS VM version. A later load of the same inputs with the same code reads it
 * back instead of re-executing the chain; any change to either is a different key, so a cache can
 * never answer for other inputs or older code. Files are written atomically (temp file + rename),
 * so concurrent loads (test workers) are safe.
 *
 * The folder is bounded in bytes (VERIFIED_CACHE_BYTES): every code change and every upgrade makes
 * new keys, and the files of the old ones are never read again. A read marks its file used (its
 * time), and a write removes the least recently used chain files past the bound, never the one it
 * wrote; a load that finds its file gone replays, as a first load does.
 */
import { createHash } from 'node:crypto'
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bytesToHex } from '@ethereumjs/util'
import type { ReceiptJson, TransactionJson } from '../blocks/render.ts'
import type { SavedKeyBook } from '../vm/keyBook.ts'
import type { StateEdit } from '../vm/stateEdits.ts'

const FORMAT = 5

/**
 * The verified chains kept in one cache folder, in bytes. For one version of the code the default
 * fixtures take about 0.3 MB, the bench's fixture about 1 MB and the execution-apis chain about
 * 23 MB (its state). The other files there (the CLI's code cache, forks/) are not counted.
 */
export const VERIFIED_CACHE_BYTES = 256 * 1024 * 1024

/** A temporary file older than this was left by a writer that died before its rename. */
const STALE_TEMP_MS = 60 * 60 * 1000

/** Names the cache folder, overriding the default (a path, relative to the current directory). */
export const CACHE_DIR_ENV = 'GATEWAY_DOUBLE_CACHE_DIR'

/**
 * Where caches live unless told otherwise: `node_modules/.cache/gateway-double` of the project the
 * process runs in (the nearest folder at or above the current directory with a package.json), as
 * other tools keep theirs; never inside the installed package, whose folder may be read-only. A
 * project without a writable node_modules (or no project) uses the system's temporary folder.
 */
export function defaultCacheDir(cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): string {
  const override = env[CACHE_DIR_ENV]
  if (override !== undefined && override !== '') return resolve(cwd, override)
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) {
      const modules = join(dir, 'node_modules')
      if (writableDir(modules)) return join(modules, '.cache', 'gateway-double')
      break
    }
    if (dirname(dir) === dir) break
  }
  // One folder per user: another user's cache is neither writable nor to be trusted.
  return join(tmpdir(), `gateway-double-cache-${process.getuid?.() ?? 'user'}`)
}

function writableDir(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK)
    return true
  } catch {
    return false
  }
}

export interface CachedRecord {
  /** The block's hash, as the verified block gave it. */
  hash: string
  transactions: TransactionJson[]
  receipts: ReceiptJson[]
}

export interface CachedChain {
  /** The genesis block's state root (hex). */
  genesisStateRoot: string
  /** The genesis block's hash (hex): a start that reads it hashes no header. */
  genesisHash: string
  /** Per block after genesis, in order. */
  records: CachedRecord[]
  /** The state database: hex key to bytes (or, as EthereumJS stores some, a string). */
  entries: [string, Uint8Array | string][]
  /** The addresses and slots written (see chain/vm/keyBook.ts). */
  book: SavedKeyBook
  /** By record index (0: genesis): the state edits made on that block (an `edits.json`'s), and their root. */
  edited: [number, { root: string; edits: StateEdit[] }][]
}

interface CacheFile {
  format: number
  genesisStateRoot: string
  genesisHash: string
  records: CachedRecord[]
  entries: [string, string | { s: string }][]
  book: SavedKeyBook
  edited: [number, { root: string; edits: StateEdit[] }][]
}

let codeHash: string | undefined

/**
 * A hash of the code a cached result depends on: every module of src/chain (its rooms included) and
 * src/encoding. The build (scripts/build.mjs) computes it the same way and writes it into the bundle,
 * which has no src/chain to read: a start reads no module to know it.
 */
function ownCodeHash(): string {
  if (codeHash) return codeHash
  const built = (globalThis as { GATEWAY_DOUBLE_CODE_HASH?: string }).GATEWAY_DOUBLE_CODE_HASH
  if (built !== undefined) return (codeHash = built)
  const hash = createHash('sha256')
  const chainDir = join(dirname(fileURLToPath(import.meta.url)), '..')
  for (const dir of [chainDir, join(chainDir, '../encoding')]) {
    for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
      if (/\.(ts|js)$/.test(file)) hash.update(file).update(readFileSync(join(dir, file)))
    }
  }
  hash.update(`@ethereumjs/vm@${packageVersion('@ethereumjs/vm')}`)
  codeHash = hash.digest('hex')
  return codeHash
}

/** A dependency's version, from its package.json (which its `exports` do not expose to imports). */
function packageVersion(pkg: string): string {
  const entry = createRequire(import.meta.url).resolve(pkg)
  const root = entry.slice(0, entry.lastIndexOf(`/node_modules/${pkg}/`) + `/node_modules/${pkg}/`.length)
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version
}

export function cacheKey(inputs: readonly Uint8Array[]): string {
  const hash = createHash('sha256').update(`format ${FORMAT}\n`).update(ownCodeHash())
  for (const input of inputs) hash.update(String(input.length)).update(input)
  return hash.digest('hex').slice(0, 32)
}

export function readCache(dir: string, key: string): CachedChain | undefined {
  let file: CacheFile
  const path = join(dir, `${key}.json`)
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as CacheFile
  } catch {
    return undefined
  }
  try {
    // Used now: the last to go when a write trims the folder.
    const now = new Date()
    utimesSync(path, now, now)
  } catch {
    // A read-only folder is never trimmed either.
  }
  if (file.format !== FORMAT) return undefined
  const entries: CachedChain['entries'] = []
  for (const [k, v] of file.entries) {
    const value = typeof v === 'string' ? bytesOfHex(v) : v.s
    if (value === undefined) return undefined
    entries.push([k, value])
  }
  return { genesisStateRoot: file.genesisStateRoot, genesisHash: file.genesisHash, records: file.records, entries, book: file.book ?? [], edited: file.edited ?? [] }
}

/**
 * `0x…` as a plain Uint8Array (as EthereumJS's hexToBytes gives), decoded by Node's native hex
 * decoder: hexToBytes, a character at a time in JavaScript not yet compiled, was about half of a
 * cached load (issue 19, item 6). Anything but whole bytes of hex digits: undefined.
 */
function bytesOfHex(hex: string): Uint8Array | undefined {
  const bytes = Buffer.from(hex.slice(2), 'hex')
  return hex.startsWith('0x') && bytes.length * 2 === hex.length - 2 ? new Uint8Array(bytes) : undefined
}

/**
 * Saves a verified chain, then trims the folder to `budget` bytes of chain files; a cache that
 * cannot be written (read-only disk) only costs speed.
 */
export function writeCache(dir: string, key: string, chain: CachedChain, budget: number = VERIFIED_CACHE_BYTES): void {
  const file: CacheFile = {
    format: FORMAT,
    genesisStateRoot: chain.genesisStateRoot,
    genesisHash: chain.genesisHash,
    records: chain.records,
    entries: chain.entries.map(([k, v]) => [k, typeof v === 'string' ? { s: v } : bytesToHex(v)]),
    book: chain.book,
    edited: chain.edited,
  }
  try {
    mkdirSync(dir, { recursive: true })
    const temp = join(dir, `${key}.${process.pid}.${Date.now()}.tmp`)
    writeFileSync(temp, JSON.stringify(file))
    renameSync(temp, join(dir, `${key}.json`))
    trimCache(dir, `${key}.json`, budget)
  } catch {
    // Best effort: the chain is loaded either way.
  }
}

/** Removes the least recently used chain files past `budget` bytes (never `kept`), and stale temporary files. */
function trimCache(dir: string, kept: string, budget: number): void {
  const files: { name: string; bytes: number; used: number }[] = []
  const now = Date.now()
  for (const name of readdirSync(dir)) {
    const isChain = /^[0-9a-f]{32}\.json$/.test(name)
    if (!isChain && !/^[0-9a-f]{32}\.\d+\.\d+\.tmp$/.test(name)) continue
    try {
      const stat = statSync(join(dir, name))
      if (isChain) files.push({ name, bytes: stat.size, used: stat.mtimeMs })
      else if (now - stat.mtimeMs > STALE_TEMP_MS) rmSync(join(dir, name), { force: true })
    } catch {
      // Removed by another process meanwhile.
    }
  }
  files.sort((a, b) => (a.name === kept ? -1 : b.name === kept ? 1 : b.used - a.used))
  let total = 0
  for (const file of files) {
    total += file.bytes
    if (total > budget && file.name !== kept) rmSync(join(dir, file.name), { force: true })
  }
}
