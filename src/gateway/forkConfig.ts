/**
 * A forked network's settings (`networks.<name>.fork` in the config, `--fork` and `--offline` on
 * the command line): `{ "url": "...", "block": 19000000 | "0x...", "headers": {...},
 * "offline": false, "hardfork": "prague", "cacheDir": "..." }`. The URL is checked here and never
 * repeated in full in a message (its path or query may hold a key).
 */
import { resolve } from 'node:path'
import { redactUrl } from '../chain/loading/fork/upstream.ts'
import { HARDFORKS } from '../chain/loading/genesis.ts'
import type { Hardfork } from '../chain/loading/genesis.ts'
import { describe, expectRecord, expectString, fail, onlyFields } from './configFields.ts'

export interface ForkNetworkSettings {
  readonly url: string
  /** The fork block; absent: the upstream's head at start (pinned, and printed). */
  readonly block?: bigint
  readonly headers?: Readonly<Record<string, string>>
  /** Serve from the fork's cache alone. */
  readonly offline?: boolean
  /** The rules, instead of the upstream's. */
  readonly hardfork?: Hardfork
  /** Where the verified-chain cache (and the fork's, under `forks/`) lives. */
  readonly cacheDir?: string
}

/** A block number: a JSON number, a decimal string or a 0x quantity. */
export function parseForkBlock(v: unknown, where: string): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v)
  if (typeof v === 'string' && /^(0x[0-9a-fA-F]{1,16}|[0-9]{1,20})$/.test(v)) return BigInt(v)
  fail(where, `must be a block number (a number or a 0x quantity), got ${describe(v)}`)
}

export function parseForkUrl(v: unknown, where: string): string {
  const url = expectString(v, where)
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    fail(where, `not a URL: ${redactUrl(url)}`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') fail(where, `expected an http(s) URL, got ${redactUrl(url)}`)
  return url
}

export function parseForkSettings(v: unknown, where: string, baseDir: string): ForkNetworkSettings {
  const fork = expectRecord(v, where)
  onlyFields(fork, ['url', 'block', 'headers', 'offline', 'hardfork', 'cacheDir'], where)
  const headers = fork.headers === undefined ? undefined : expectRecord(fork.headers, `${where}.headers`)
  for (const [name, value] of Object.entries(headers ?? {})) expectString(value, `${where}.headers.${name}`)
  if (fork.offline !== undefined && typeof fork.offline !== 'boolean') fail(`${where}.offline`, `must be true or false, got ${describe(fork.offline)}`)
  if (fork.hardfork !== undefined && !HARDFORKS.includes(fork.hardfork as Hardfork)) {
    fail(`${where}.hardfork`, `must be one of ${HARDFORKS.join(', ')}, got ${describe(fork.hardfork)}`)
  }
  return {
    url: parseForkUrl(fork.url, `${where}.url`),
    ...(fork.block === undefined ? {} : { block: parseForkBlock(fork.block, `${where}.block`) }),
    ...(headers === undefined ? {} : { headers: headers as Record<string, string> }),
    ...(fork.offline === true ? { offline: true } : {}),
    ...(fork.hardfork === undefined ? {} : { hardfork: fork.hardfork as Hardfork }),
    ...(fork.cacheDir === undefined ? {} : { cacheDir: resolve(baseDir, expectString(fork.cacheDir, `${where}.cacheDir`)) }),
  }
}

/**
 * `--fork <network>=<url>[@<block>]`: the block is split at the last `@` followed only by digits
 * or a 0x quantity, so a URL with `user:pass@host` keeps its `@`.
 */
export function parseForkSpec(spec: string): { name: string; url: string; block?: bigint } {
  const eq = spec.indexOf('=')
  if (eq <= 0 || eq === spec.length - 1) fail('--fork', `expected <network>=<url>[@<block>], got ${JSON.stringify(spec.slice(0, Math.max(eq, 0)))}=...`)
  const name = spec.slice(0, eq)
  const rest = spec.slice(eq + 1)
  const at = /@(0x[0-9a-fA-F]+|[0-9]+)$/.exec(rest)
  const url = at ? rest.slice(0, at.index) : rest
  return { name, url: parseForkUrl(url, `--fork ${name}`), ...(at ? { block: parseForkBlock(at[1], `--fork ${name}`) } : {}) }
}
