/**
 * The gateway's configuration: which networks it serves (fixture folders) and which keys exist.
 * File shape (`--config`):
 *
 * ```json
 * { "serviceHost": "localhost",
 *   "networks": { "ethereum": { "fixture": "../fixtures/ethereum", "port": 9001,
 *                               "excludeMethods": ["debug_*", "txpool_content"] } },
 *   "accounts": { "team": { "plan": "developer" } },
 *   "keys": [{ "key": "...", "networks": ["ethereum"], "dailyCredits": 3000000,
 *              "creditsPerSecond": 500, "secret": "...",
 *              "jwt": { "required": true, "publicKeys": [{ "name": "ci", "pem": "-----BEGIN PUBLIC KEY-----..." }] },
 *              "allowlists": { "origins": [], "userAgents": [], "contractAddresses": [], "methods": [],
 *                              "secretBypass": false } },
 *            { "key": "...", "networks": ["ethereum"], "account": "team",
 *              "limits": { "dailyCredits": 100000, "creditsPerSecond": 100 } }],
 *   "profiles": [{ "profile": "alchemy", "port": 8546 }],
 *   "controlAccess": { "allowedOrigins": ["http://localhost:5173"], "allowedHosts": ["devbox.lan"],
 *                      "token": "..." },
 *   "maxConnections": 1000 }
 * ```
 *
 * Relative fixture folders are resolved from the config file's folder. Validation fails with a
 * `ConfigError` naming the field (`keys[0].dailyCredits: ...`); unknown fields are errors too.
 */
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ConfigError, describe, expectRecord, expectString, expectStringList, fail, onlyFields } from './configFields.ts'
import { parseAccounts } from './accounts.ts'
import type { AccountConfigInput } from './accounts.ts'
import { parseKeys } from './keyConfig.ts'
import type { KeyConfigInput } from './keyConfig.ts'
import { compileMethodExclusions } from './methodAvailability.ts'
import { parseProfileServes } from './profiles/profile.ts'
import type { ProfileInput, ProfileServe } from './profiles/profile.ts'
import { parseForkSettings, parseForkSpec } from './forkConfig.ts'
import { parseControlAccess } from './controlAccess.ts'
import type { ControlAccess } from './controlAccess.ts'
import type { ForkNetworkSettings } from './forkConfig.ts'

// The config's parts, named where callers meet them (./configFields.ts, ./keyConfig.ts).
export { ConfigError, parseKeys }
export type { KeyConfigInput, KeySettings } from './keyConfig.ts'

export interface NetworkSettings {
  /** Absolute path of the fixture folder (absent for a fork). */
  readonly fixture?: string
  /** A forked network's upstream (./forkConfig.ts), instead of a fixture. */
  readonly fork?: ForkNetworkSettings
  /** Also serve the network on this port of its own, whatever the Host (0: a free one). */
  readonly port?: number
  /** Methods and families (`debug_*`) the network leaves out (./methodAvailability.ts), validated. */
  readonly excludeMethods?: readonly string[]
}

/** A validated config. Keys stay in their input shape (plain JSON); `createGateway` compiles them. */
export interface GatewayConfig {
  readonly serviceHost: string
  readonly networks: Readonly<Record<string, NetworkSettings>>
  readonly keys: readonly KeyConfigInput[]
  /** Accounts by name (./accounts.ts), when the file has any. */
  readonly accounts?: Readonly<Record<string, AccountConfigInput>>
  /** `evmTimeout` in ms, when the file sets it. */
  readonly evmTimeoutMs?: number
  /** Other providers served beside the gateway, each on its port (./profiles/), when the file has any. */
  readonly profiles?: readonly ProfileServe[]
  /** Who may call the control routes and the test endpoint (./controlAccess.ts), when the file says. */
  readonly controlAccess?: ControlAccess
  /** Connections open at once per listening port (HTTP and WebSocket), when the file sets it. */
  readonly maxConnections?: number
}

export interface GatewayConfigInput {
  serviceHost?: string
  /** geth's `--rpc.evmtimeout` as a duration: `"5s"`, `"1500ms"`, `"1m"`, `"0"` (no limit). */
  evmTimeout?: string
  profiles?: { profile: ProfileInput; port?: number }[]
  controlAccess?: { allowedOrigins?: string[]; allowedHosts?: string[]; token?: string }
  maxConnections?: number
  networks: Record<string, { fixture?: string; fork?: unknown; port?: number; excludeMethods?: string[] }>
  accounts?: Record<string, AccountConfigInput>
  keys: KeyConfigInput[]
}

export const DEFAULT_SERVICE_HOST = 'localhost'
/** The default config: the three default fixture networks and the dev key. */
export const DEFAULT_CONFIG_PATH = fileURLToPath(new URL('../../config/default.json', import.meta.url))

/** Network names become host labels (`<name>-mainnet.<serviceHost>`). */
export const NETWORK_NAME_RE = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/
const HOSTNAME_RE = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/

export function parseServiceHost(v: unknown, where = 'serviceHost'): string {
  if (v === undefined) return DEFAULT_SERVICE_HOST
  const host = expectString(v, where).toLowerCase()
  if (!HOSTNAME_RE.test(host)) fail(where, `must be a host name without port, got ${JSON.stringify(v)}`)
  return host
}

/** The most connections a listening port holds at once: 1 to 1,000,000. */
export function parseMaxConnections(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1 || v > 1_000_000) fail(where, `must be an integer from 1 to 1000000, got ${describe(v)}`)
  return v
}

/** A TCP port, 0 for a free one. */
export function parsePort(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 65535) fail(where, `must be a port number 0-65535, got ${describe(v)}`)
  return v
}

export function parseNetworkName(name: string, where: string): string {
  if (!NETWORK_NAME_RE.test(name)) {
    fail(where, `network names are lowercase letters, digits and inner hyphens (they become <name>-mainnet hosts), got ${JSON.stringify(name)}`)
  }
  return name
}

/** Validates a network's `excludeMethods` (./methodAvailability.ts). */
export function parseExcludeMethods(v: unknown, where: string): ReturnType<typeof compileMethodExclusions> {
  const list = expectStringList(v, where)
  try {
    return compileMethodExclusions(list, where)
  } catch (err) {
    throw new ConfigError((err as Error).message)
  }
}

/** Validates a parsed config file; relative fixture folders are resolved from `baseDir`. */
export function parseConfig(input: unknown, baseDir: string): GatewayConfig {
  const obj = expectRecord(input, 'config')
  onlyFields(obj, ['serviceHost', 'networks', 'accounts', 'keys', 'evmTimeout', 'profiles', 'controlAccess', 'maxConnections'], 'config')
  const serviceHost = parseServiceHost(obj.serviceHost)
  const evmTimeoutMs = obj.evmTimeout === undefined ? undefined : parseDuration(obj.evmTimeout, 'evmTimeout')
  const rawNetworks = expectRecord(obj.networks, 'networks')
  const networks: Record<string, NetworkSettings> = {}
  for (const [name, value] of Object.entries(rawNetworks)) {
    const where = `networks.${name}`
    parseNetworkName(name, where)
    const net = expectRecord(value, where)
    onlyFields(net, ['fixture', 'fork', 'port', 'excludeMethods'], where)
    if (net.fork !== undefined && net.fixture !== undefined) fail(where, 'a network is a fixture or a fork, not both')
    networks[name] = {
      ...(net.fork !== undefined
        ? { fork: parseForkSettings(net.fork, `${where}.fork`, baseDir) }
        : { fixture: resolve(baseDir, expectString(net.fixture, `${where}.fixture`)) }),
      ...(net.port === undefined ? {} : { port: parsePort(net.port, `${where}.port`) }),
      ...(net.excludeMethods === undefined ? {} : { excludeMethods: parseExcludeMethods(net.excludeMethods, `${where}.excludeMethods`).entries }),
    }
  }
  const ports = new Map<number, string>()
  for (const [name, { port }] of Object.entries(networks)) {
    if (port === undefined || port === 0) continue
    const other = ports.get(port)
    if (other !== undefined) fail(`networks.${name}.port`, `port ${port} is already network ${JSON.stringify(other)}'s`)
    ports.set(port, name)
  }
  parseKeys(obj.keys, Object.keys(networks), 'keys', parseAccounts(obj.accounts))
  const keys = structuredClone(obj.keys as KeyConfigInput[])
  const accounts = obj.accounts === undefined ? {} : { accounts: structuredClone(obj.accounts as Record<string, AccountConfigInput>) }
  const profiles = obj.profiles === undefined ? {} : { profiles: parseProfileServes(obj.profiles, 'profiles') }
  const controlAccess = obj.controlAccess === undefined ? {} : { controlAccess: parseControlAccess(obj.controlAccess, 'controlAccess') }
  const maxConnections = obj.maxConnections === undefined ? {} : { maxConnections: parseMaxConnections(obj.maxConnections, 'maxConnections') }
  return { serviceHost, networks, keys, ...accounts, ...(evmTimeoutMs === undefined ? {} : { evmTimeoutMs }), ...profiles, ...controlAccess, ...maxConnections }
}

/** The longest time limit a duration may set: a day (longer is no limit in practice; use 0). */
const MAX_DURATION_MS = 86_400_000

/**
 * A duration as geth's flags take one (Go's `time.ParseDuration`, in whole ms): `"5s"`,
 * `"1500ms"`, `"1m30s"`, `"0"`. Up to a day.
 */
export function parseDuration(v: unknown, where: string): number {
  const text = typeof v === 'string' ? v : undefined
  const parts = text === undefined ? null : text === '0' ? [] : text.match(/\d+(?:\.\d+)?(?:ms|s|m|h)/g)
  if (text === undefined || parts === null || parts.join('') !== (text === '0' ? '' : text)) {
    fail(where, `must be a duration like "5s", "1500ms" or "0" (none), got ${describe(v)}`)
  }
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }
  let ms = 0
  for (const part of parts!) {
    const [, n, u] = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(part)!
    ms += Number(n) * unit[u!]!
  }
  if (!Number.isInteger(ms) || ms > MAX_DURATION_MS) fail(where, `must be whole milliseconds, at most a day (use "0" for no limit), got ${describe(v)}`)
  return ms
}

/** Reads and validates a config file; errors name the file and the field. */
export function loadConfigFile(path: string): GatewayConfig {
  const file = resolve(path)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new ConfigError(`${file}: cannot read config file (${(err as NodeJS.ErrnoException).code ?? 'error'})`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw new ConfigError(`${file}: not valid JSON (${(err as Error).message})`)
  }
  try {
    return parseConfig(json, dirname(file))
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`${file}: ${err.message}`)
    throw err
  }
}

/**
 * Adds (or replaces) fixture networks, e.g. from `--fixture name=folder`, enabling each for the
 * first key of the config (the dev key). Folders are resolved from `cwd`.
 */
export function withFixtures(config: GatewayConfig, fixtures: Readonly<Record<string, string>>, cwd = process.cwd()): GatewayConfig {
  const entries = Object.entries(fixtures)
  if (entries.length === 0) return config
  const networks = { ...config.networks }
  for (const [name, folder] of entries) {
    parseNetworkName(name, `--fixture ${name}`)
    const { fork: _fork, ...rest } = networks[name] ?? {}
    networks[name] = { ...rest, fixture: resolve(cwd, folder) }
  }
  const [first, ...rest] = config.keys
  if (!first) return { ...config, networks }
  const enabled = [...new Set([...first.networks, ...entries.map(([name]) => name)])]
  return { ...config, networks, keys: [{ ...first, networks: enabled }, ...rest] }
}

/**
 * Adds (or replaces) forked networks from `--fork <network>=<url>[@<block>]` specs, enabled for
 * the first key as `withFixtures` does; `offline` (`--offline`) makes every fork of the config
 * serve from its cache alone.
 */
export function withForks(config: GatewayConfig, specs: readonly string[], offline = false): GatewayConfig {
  const networks = { ...config.networks }
  const added: string[] = []
  for (const spec of specs) {
    const { name, url, block } = parseForkSpec(spec)
    parseNetworkName(name, `--fork ${name}`)
    if (added.includes(name)) fail('--fork', `network ${JSON.stringify(name)} given twice`)
    added.push(name)
    const { fixture: _fixture, ...rest } = networks[name] ?? {}
    networks[name] = { ...rest, fork: { url, ...(block === undefined ? {} : { block }) } }
  }
  if (offline) {
    for (const [name, net] of Object.entries(networks)) if (net.fork) networks[name] = { ...net, fork: { ...net.fork, offline: true } }
  }
  const [first, ...rest] = config.keys
  if (!first || added.length === 0) return { ...config, networks }
  const enabled = [...new Set([...first.networks, ...added])]
  return { ...config, networks, keys: [{ ...first, networks: enabled }, ...rest] }
}
