/**
 * Keys as a config file (or `createApp`) writes them, validated and compiled: networks, the daily
 * balance and throughput (the key's own, or its account's: ./accounts.ts) and the key's own caps,
 * the secret, the JWT settings (./jwtConfig.ts), the allowlists.
 */
import { ADDRESS_RE } from '../encoding/hex.ts'
import { MAX_ALLOWLIST_ENTRIES, NO_ALLOWLISTS, compileOriginPattern } from './allowlists.ts'
import type { Allowlists, OriginPattern } from './allowlists.ts'
import { describe, expectPositiveInteger, expectRecord, expectString, expectStringList, fail, onlyFields } from './configFields.ts'
import { parseKeyLimits } from './accounts.ts'
import type { AccountSettings, KeyLimits } from './accounts.ts'
import type { CreditAccount } from './credits.ts'
import { DEFAULT_DAILY_CREDITS } from './credits.ts'
import { parseJwtSettings } from './jwtConfig.ts'
import type { JwtConfigInput, JwtSettings } from './jwtConfig.ts'

/** A key is one path segment. */
const KEY_RE = /^[A-Za-z0-9._~-]+$/

/** A key as configured, validated and compiled. */
export interface KeySettings extends CreditAccount {
  readonly key: string
  readonly networks: ReadonlySet<string>
  readonly dailyCredits: number
  readonly creditsPerSecond?: number
  readonly secret?: string
  readonly allowlists: Allowlists
  /** The account whose plan the key draws on; undefined: the key is its own account. */
  readonly account?: string
  /** The key's own caps below its plan's. */
  readonly limits?: KeyLimits
  readonly jwt?: JwtSettings
}

/** The shape of a key in a config file (or passed to `createApp`). */
export interface KeyConfigInput {
  key: string
  networks: string[]
  dailyCredits?: number
  creditsPerSecond?: number
  secret?: string
  /** An account of `accounts` (its plan's balance and throughput); then no `dailyCredits`/`creditsPerSecond` here. */
  account?: string
  /** The key's own caps below the plan's: 429 -33300 per second, -33400 per day. */
  limits?: { dailyCredits?: number; creditsPerSecond?: number }
  jwt?: JwtConfigInput
  allowlists?: {
    origins?: string[]
    userAgents?: string[]
    contractAddresses?: string[]
    methods?: string[]
    secretBypass?: boolean
  }
}

function parseAllowlists(v: unknown, where: string): Allowlists {
  if (v === undefined) return NO_ALLOWLISTS
  const obj = expectRecord(v, where)
  onlyFields(obj, ['origins', 'userAgents', 'contractAddresses', 'methods', 'secretBypass'], where)
  const lists: {
    origins?: OriginPattern[]
    userAgents?: string[]
    contractAddresses?: Set<string>
    methods?: Set<string>
    secretBypass: boolean
  } = { secretBypass: false }
  const max = MAX_ALLOWLIST_ENTRIES
  // An empty list is no list: "no allowlist means everything is allowed".
  if (obj.origins !== undefined) {
    const origins = expectStringList(obj.origins, `${where}.origins`, max).map((s, i) => {
      const pattern = compileOriginPattern(s)
      if (!pattern) fail(`${where}.origins[${i}]`, `not an origin pattern ([scheme://][*.]host[:port]): ${JSON.stringify(s)}`)
      return pattern
    })
    if (origins.length > 0) lists.origins = origins
  }
  if (obj.userAgents !== undefined) {
    const agents = expectStringList(obj.userAgents, `${where}.userAgents`, max)
    if (agents.length > 0) lists.userAgents = agents
  }
  if (obj.contractAddresses !== undefined) {
    const addresses = expectStringList(obj.contractAddresses, `${where}.contractAddresses`, max).map((a, i) => {
      if (!ADDRESS_RE.test(a)) fail(`${where}.contractAddresses[${i}]`, `not a 20-byte hex address: ${JSON.stringify(a)}`)
      return a.toLowerCase()
    })
    if (addresses.length > 0) lists.contractAddresses = new Set(addresses)
  }
  if (obj.methods !== undefined) {
    const methods = expectStringList(obj.methods, `${where}.methods`, max)
    if (methods.length > 0) lists.methods = new Set(methods)
  }
  if (obj.secretBypass !== undefined) {
    if (typeof obj.secretBypass !== 'boolean') fail(`${where}.secretBypass`, `must be true or false, got ${describe(obj.secretBypass)}`)
    lists.secretBypass = obj.secretBypass
  }
  return lists
}

function parseKey(v: unknown, networks: ReadonlySet<string>, accounts: ReadonlyMap<string, AccountSettings>, where: string): KeySettings {
  const obj = expectRecord(v, where)
  onlyFields(obj, ['key', 'networks', 'dailyCredits', 'creditsPerSecond', 'secret', 'account', 'limits', 'jwt', 'allowlists'], where)
  const key = expectString(obj.key, `${where}.key`)
  if (!KEY_RE.test(key)) fail(`${where}.key`, `must be URL-safe (letters, digits, . _ ~ -), got ${JSON.stringify(key)}`)
  const names = expectStringList(obj.networks, `${where}.networks`)
  names.forEach((name, i) => {
    if (!networks.has(name)) {
      fail(`${where}.networks[${i}]`, `unknown network ${JSON.stringify(name)} (configured: ${[...networks].join(', ') || 'none'})`)
    }
  })
  const settings: { -readonly [K in keyof KeySettings]: KeySettings[K] } = {
    key,
    networks: new Set(names),
    dailyCredits:
      obj.dailyCredits === undefined ? DEFAULT_DAILY_CREDITS : expectPositiveInteger(obj.dailyCredits, `${where}.dailyCredits`),
    allowlists: parseAllowlists(obj.allowlists, `${where}.allowlists`),
  }
  if (obj.creditsPerSecond !== undefined) {
    settings.creditsPerSecond = expectPositiveInteger(obj.creditsPerSecond, `${where}.creditsPerSecond`)
  }
  if (obj.account !== undefined) {
    const name = expectString(obj.account, `${where}.account`)
    const account = accounts.get(name)
    if (!account) fail(`${where}.account`, `unknown account ${JSON.stringify(name)} (configured: ${[...accounts.keys()].join(', ') || 'none'})`)
    for (const field of ['dailyCredits', 'creditsPerSecond']) {
      if (obj[field] !== undefined) fail(`${where}.${field}`, `the key's plan is its account's (${name}); cap the key with limits.${field}`)
    }
    settings.account = name
    settings.dailyCredits = account.dailyCredits
    if (account.creditsPerSecond !== undefined) settings.creditsPerSecond = account.creditsPerSecond
  }
  const limits = parseKeyLimits(obj.limits, `${where}.limits`)
  if (limits) settings.limits = limits
  const jwt = parseJwtSettings(obj.jwt, `${where}.jwt`)
  if (jwt) settings.jwt = jwt
  if (obj.secret !== undefined) settings.secret = expectString(obj.secret, `${where}.secret`)
  return settings
}

/** Validates a key list against the names of the networks served and the accounts configured. */
export function parseKeys(input: unknown, networks: Iterable<string>, where = 'keys', accounts: ReadonlyMap<string, AccountSettings> = new Map()): KeySettings[] {
  const names = new Set(networks)
  if (!Array.isArray(input)) fail(where, `must be an array of keys, got ${describe(input)}`)
  const keys = input.map((k, i) => parseKey(k, names, accounts, `${where}[${i}]`))
  const seen = new Set<string>()
  keys.forEach((k, i) => {
    if (seen.has(k.key)) fail(`${where}[${i}].key`, `duplicate key ${JSON.stringify(k.key)}`)
    seen.add(k.key)
  })
  return keys
}

