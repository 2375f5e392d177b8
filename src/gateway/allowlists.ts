/**
 * Key allowlists with the real service's matching rules (reference §8): no list means everything
 * is allowed; list types are ANDed, entries of one type ORed; at most 30 entries per type;
 * user agents match by substring; origins may use a `*.` subdomain wildcard and may omit the
 * scheme; contract addresses apply to the methods in `CONTRACT_ADDRESS_METHODS`.
 * Patterns are compiled once, when the key is configured.
 */
import { ADDRESS_RE } from '../encoding/hex.ts'

export const MAX_ALLOWLIST_ENTRIES = 30

/** Methods the contract-address allowlist applies to, and where each carries its address. */
export const CONTRACT_ADDRESS_METHODS: Readonly<Record<string, (params: readonly unknown[]) => unknown[]>> = {
  eth_call: (p) => [field(p[0], 'to')],
  eth_estimateGas: (p) => [field(p[0], 'to')],
  eth_getLogs: (p) => {
    const address = field(p[0], 'address')
    return Array.isArray(address) ? address : [address]
  },
  eth_getBalance: (p) => [p[0]],
  eth_getCode: (p) => [p[0]],
  eth_getStorageAt: (p) => [p[0]],
  eth_getTransactionCount: (p) => [p[0]],
}

function field(obj: unknown, name: string): unknown {
  return typeof obj === 'object' && obj !== null ? (obj as Record<string, unknown>)[name] : undefined
}

/** One compiled origin pattern: `[scheme://][*.]host[:port]`. */
export interface OriginPattern {
  readonly source: string
  readonly scheme?: string
  readonly wildcard: boolean
  readonly host: string
  readonly port?: string
}

const ORIGIN_PATTERN_RE = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(\d{1,5}))?\/?$/

/** Compiles an origin pattern, or returns undefined when it is not one. */
export function compileOriginPattern(source: string): OriginPattern | undefined {
  const m = ORIGIN_PATTERN_RE.exec(source.trim().toLowerCase())
  if (!m) return undefined
  const [, scheme, star, host, port] = m
  return {
    source,
    wildcard: star !== undefined,
    host: host!,
    ...(scheme !== undefined ? { scheme } : {}),
    ...(port !== undefined ? { port } : {}),
  }
}

/**
 * Whether an `Origin` header value matches a pattern. `*.example.com` matches any subdomain of
 * example.com but not example.com itself; a pattern without scheme matches any scheme; a pattern
 * without port matches any port.
 */
export function originMatches(pattern: OriginPattern, origin: string): boolean {
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  if (pattern.scheme !== undefined && url.protocol !== `${pattern.scheme}:`) return false
  if (pattern.port !== undefined && url.port !== pattern.port) return false
  const host = url.hostname.toLowerCase()
  return pattern.wildcard ? host.endsWith(`.${pattern.host}`) : host === pattern.host
}

export interface Allowlists {
  readonly origins?: readonly OriginPattern[]
  readonly userAgents?: readonly string[]
  /** Lowercase addresses. */
  readonly contractAddresses?: ReadonlySet<string>
  readonly methods?: ReadonlySet<string>
  /** A request carrying the key's correct secret skips the allowlists (Developer tier and up). */
  readonly secretBypass: boolean
}

export const NO_ALLOWLISTS: Allowlists = Object.freeze({ secretBypass: false })

/** Whether every address a call names is allowed; a call naming none (e.g. a deployment) is not. */
export function contractAddressesAllowed(allowed: ReadonlySet<string>, method: string, params: readonly unknown[]): boolean {
  const extract = CONTRACT_ADDRESS_METHODS[method]
  if (!extract) return true
  const addresses = extract(params)
  if (addresses.length === 0) return false
  return addresses.every((a) => typeof a === 'string' && ADDRESS_RE.test(a) && allowed.has(a.toLowerCase()))
}
