/**
 * What a fork read from its upstream, kept on disk: a folder per fork under the verified-chain
 * cache (`<cache>/forks/<chain id>-<block number>-<block hash>/`) holding `fork.json` (the
 * upstream's label, never its URL's key; its chain id; the fork block's header as the upstream
 * answered it; the rules chosen) and `reads.jsonl`, one line per answered request (method, params,
 * result), appended as each answer arrives, so a killed process keeps what it read. Answers that
 * say "nothing" (an unknown transaction, an empty account) are kept like any other; failures never.
 *
 * A frozen fixture (./freeze.ts) is the same two files in a folder of its own.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** `fork.json`: the fork's identity and its block's header. */
export interface ForkManifest {
  readonly format: 1
  /** The upstream's URL as it may be shown (./upstream.ts `redactUrl`). */
  readonly upstream: string
  readonly chainId: string
  /** The fork block's number (0x quantity) and hash. */
  readonly block: string
  readonly hash: string
  /** The fork block as the upstream answered `eth_getBlockByNumber(block, false)`. */
  readonly header: Record<string, unknown>
  readonly hardfork: string
}

export const MANIFEST_FILE = 'fork.json'
export const READS_FILE = 'reads.jsonl'

/** The key of one request in the journal. */
export function readKey(method: string, params: readonly unknown[]): string {
  return JSON.stringify([method, params])
}

export class ForkJournal {
  readonly dir: string | undefined
  readonly #answers = new Map<string, unknown>()

  /**
   * A journal kept in `dir` (made if need be; what it holds is read back), or in memory only;
   * `readOnly`: what `dir` holds, nothing written there (a frozen fixture).
   */
  constructor(dir: string | undefined, opts: { readOnly?: boolean } = {}) {
    this.dir = opts.readOnly === true ? undefined : dir
    if (dir === undefined) return
    if (opts.readOnly !== true) mkdirSync(dir, { recursive: true })
    const file = join(dir, READS_FILE)
    if (!existsSync(file)) return
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line === '') continue
      try {
        const [method, params, result] = JSON.parse(line) as [string, unknown[], unknown]
        this.#answers.set(readKey(method, params), result)
      } catch {
        // A line cut short by a killed process: the read is made again.
      }
    }
  }

  has(key: string): boolean {
    return this.#answers.has(key)
  }

  get(key: string): unknown {
    return this.#answers.get(key)
  }

  /** Keeps an answer, on disk at once when the journal has a folder. */
  put(method: string, params: readonly unknown[], result: unknown): void {
    const key = readKey(method, params)
    if (this.#answers.has(key)) return
    this.#answers.set(key, result)
    if (this.dir !== undefined) appendFileSync(join(this.dir, READS_FILE), `${JSON.stringify([method, params, result])}\n`)
  }

  /** Every kept answer, in the order read. */
  entries(): [string, unknown][] {
    return [...this.#answers]
  }
}

/** The folder of a fork's cache. */
export function forkCacheDir(cacheDir: string, chainId: bigint, block: bigint, hash: string): string {
  return join(cacheDir, 'forks', `${chainId}-${block}-${hash.toLowerCase()}`)
}

export function writeManifest(dir: string, manifest: ForkManifest): void {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`)
}

export function readManifest(dir: string): ForkManifest | undefined {
  const file = join(dir, MANIFEST_FILE)
  if (!existsSync(file)) return undefined
  try {
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as ForkManifest
    return manifest.format === 1 ? manifest : undefined
  } catch {
    return undefined
  }
}

/**
 * The cache of a fork of `upstream` (a label) at `block` (undefined: the highest cached), for an
 * offline start, which cannot ask the upstream for its chain id or the block's hash.
 */
export function findForkCache(cacheDir: string, upstream: string, block: bigint | undefined): { dir: string; manifest: ForkManifest } | undefined {
  const root = join(cacheDir, 'forks')
  if (!existsSync(root)) return undefined
  let best: { dir: string; manifest: ForkManifest } | undefined
  for (const name of readdirSync(root)) {
    const dir = join(root, name)
    const manifest = readManifest(dir)
    if (manifest === undefined || manifest.upstream !== upstream) continue
    const number = BigInt(manifest.block)
    if (block !== undefined && number !== block) continue
    if (best === undefined || number > BigInt(best.manifest.block)) best = { dir, manifest }
  }
  return best
}
