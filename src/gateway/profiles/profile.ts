/**
 * A provider profile: one hosted provider's rules as data (a JSON file of config/profiles/, or a
 * user's own), validated as the config file is: each failure a `ConfigError` naming the field
 * (`profile alchemy: getLogs.maxBlockRange: must be a positive integer, got 0`).
 *
 * A profile holds the URL shapes (host and path templates with `{network}`, `{serviceHost}` and
 * `{key}`), prices in its unit and the methods it leaves out, throughput (a window of one or more
 * seconds, per account or per key) and quota (per day or month) rules, each refusal's status and
 * exact body (`{id}`, `{from}`, `{to}`, `{limit}`, `{limitGrouped}`, `{traceId}` filled in) and WebSocket error
 * object, eth_getLogs' block range and result limits, batch limits per transport and the calls' time limit.
 * `{ "extends": "alchemy", ... }` starts from a shipped profile and replaces the fields it names.
 * docs/providers.md says where each shipped value comes from.
 */
import { readFileSync } from 'node:fs'
import { PROVIDER_METHODS } from '../../rpc/providerRegistry.ts'
import { ConfigError, describe, expectPositiveInteger, expectRecord, expectString, expectStringList, fail, isRecord, onlyFields } from '../configFields.ts'

/** The profiles shipped in config/profiles/. */
export const PROFILE_NAMES = ['infura', 'alchemy', 'quicknode', 'drpc-free', 'ankr', 'public'] as const
export type ProfileName = (typeof PROFILE_NAMES)[number]
/** The profile of the hosted service this double models: today's rules. */
export const DEFAULT_PROFILE: ProfileName = 'infura'

/** A refusal as the provider writes it: its status, content type and body template, and what a socket gets. */
export interface RefusalSpec {
  readonly status: number
  readonly contentType: string
  /** The body, with `{id}` (the JSON id), `{from}`, `{to}`, `{limit}`, `{limitGrouped}`, `{traceId}` filled in. */
  readonly body: string
  /** The JSON-RPC error object a WebSocket message gets instead (templates filled in as the body's). */
  readonly ws: { readonly code: number; readonly message: string }
}

export interface ProfileSpec {
  readonly name: string
  /** What its prices count: `credits`, `compute units`... */
  readonly unit: string
  readonly url: { readonly host: string; readonly http: string; readonly ws: string }
  readonly prices: {
    readonly default: number
    readonly unknownMethod: number
    readonly badRequest: number
    readonly batchEnvelope: number
    readonly methods: Readonly<Record<string, number>>
    /** Prices of method families by prefix (`debug_`), after `methods`. */
    readonly families: Readonly<Record<string, number>>
  }
  /** Methods and families (`trace_*`) the provider does not serve. */
  readonly excludeMethods: readonly string[]
  /** Methods it serves beyond a node's, from src/rpc/providerRegistry.ts (Alchemy's enhanced APIs). */
  readonly extraMethods: readonly string[]
  /** Units per second, averaged over `windowSeconds` (1: a fixed one-second window); null: the key's plan's. */
  readonly throughput: { readonly perSecond: number; readonly windowSeconds: number; readonly per: 'account' | 'key' } | null
  /** Units per period; null: the key's plan's daily balance. */
  readonly quota: { readonly units: number; readonly period: 'day' | 'month' } | null
  /** Refusals by name; the infura profile's are the service's own classes (../errors.ts), so it names none. */
  readonly refusals: Readonly<Partial<Record<RefusalName, RefusalSpec>>>
  /**
   * eth_getLogs' widest block range (`{limit}`, `{limitGrouped}` with thousands separators) and
   * its refusal (`getLogsRange`, naming `{from}`-`{to}`: the widest range from the query's first
   * block); `measure`: `blocks` counts the range's blocks (`to - from + 1`), `distance` its
   * distance (`to - from`); `methods`: those judged (default eth_getLogs). null: none.
   */
  readonly getLogs: { readonly maxBlockRange: number; readonly measure: 'blocks' | 'distance'; readonly methods: readonly string[] } | null
  /**
   * eth_getLogs' (and eth_getFilterLogs') most logs in one answer and the call's error past it,
   * its message naming `{limit}`, `{limitGrouped}` and `{from}`-`{to}`: the widest range from
   * the query's first block within the limit. null: the service's (10,000 logs, -32005 `query
   * returned more than 10000 results...`).
   */
  readonly getLogsResults: { readonly maxLogs: number; readonly error: { readonly code: number; readonly message: string } } | null
  readonly batch: { readonly http: number; readonly ws: number }
  /** The time limit of a call's executions, in ms; null: the gateway's `evmTimeoutMs`. */
  readonly timeoutMs: number | null
}

export const REFUSAL_NAMES = ['invalidKey', 'throughput', 'quota', 'getLogsRange', 'batchTooLarge'] as const
export type RefusalName = (typeof REFUSAL_NAMES)[number]

const FIELDS = ['name', 'unit', 'url', 'prices', 'excludeMethods', 'extraMethods', 'throughput', 'quota', 'refusals', 'getLogs', 'getLogsResults', 'batch', 'timeoutMs'] as const

function nonNegative(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) fail(where, `must be an integer of at least 0, got ${describe(v)}`)
  return v
}

function prices(v: unknown, where: string): ProfileSpec['prices'] {
  const p = expectRecord(v, where)
  onlyFields(p, ['default', 'unknownMethod', 'badRequest', 'batchEnvelope', 'methods', 'families'], where)
  const table = (t: unknown, w: string) => Object.fromEntries(Object.entries(expectRecord(t ?? {}, w)).map(([m, c]) => [m, nonNegative(c, `${w}.${m}`)]))
  return {
    default: nonNegative(p.default, `${where}.default`),
    unknownMethod: nonNegative(p.unknownMethod, `${where}.unknownMethod`),
    badRequest: nonNegative(p.badRequest, `${where}.badRequest`),
    batchEnvelope: nonNegative(p.batchEnvelope, `${where}.batchEnvelope`),
    methods: table(p.methods, `${where}.methods`),
    families: table(p.families, `${where}.families`),
  }
}

function refusal(v: unknown, where: string): RefusalSpec {
  const r = expectRecord(v, where)
  onlyFields(r, ['status', 'contentType', 'body', 'ws'], where)
  const status = expectPositiveInteger(r.status, `${where}.status`)
  if (status < 200 || status > 599) fail(`${where}.status`, `must be an HTTP status, got ${status}`)
  const ws = expectRecord(r.ws, `${where}.ws`)
  onlyFields(ws, ['code', 'message'], `${where}.ws`)
  if (typeof ws.code !== 'number' || !Number.isSafeInteger(ws.code)) fail(`${where}.ws.code`, `must be an integer, got ${describe(ws.code)}`)
  if (typeof r.body !== 'string') fail(`${where}.body`, `must be a string, got ${describe(r.body)}`)
  return { status, contentType: expectString(r.contentType, `${where}.contentType`), body: r.body, ws: { code: ws.code, message: expectString(ws.message, `${where}.ws.message`) } }
}

function nullable<T>(v: unknown, parse: (v: unknown) => T): T | null {
  return v === null ? null : parse(v)
}

/** Checks a profile's fields (all of them: an `extends` is resolved before). */
export function parseProfile(input: unknown, where = 'profile'): ProfileSpec {
  const p = expectRecord(input, where)
  onlyFields(p, FIELDS, where)
  const url = expectRecord(p.url, `${where}.url`)
  onlyFields(url, ['host', 'http', 'ws'], `${where}.url`)
  const template = (t: unknown, w: string) => {
    const s = expectString(t, w)
    if (!s.startsWith('/')) fail(w, `must start with "/", got ${JSON.stringify(s)}`)
    return s
  }
  const host = expectString(url.host, `${where}.url.host`)
  if (!host.startsWith('{network}')) fail(`${where}.url.host`, `must start with {network}, got ${JSON.stringify(host)}`)
  const refusals = expectRecord(p.refusals, `${where}.refusals`)
  onlyFields(refusals, REFUSAL_NAMES, `${where}.refusals`)
  const batch = expectRecord(p.batch, `${where}.batch`)
  onlyFields(batch, ['http', 'ws'], `${where}.batch`)
  const spec: ProfileSpec = {
    name: expectString(p.name, `${where}.name`),
    unit: expectString(p.unit, `${where}.unit`),
    url: { host, http: template(url.http, `${where}.url.http`), ws: template(url.ws, `${where}.url.ws`) },
    prices: prices(p.prices, `${where}.prices`),
    excludeMethods: expectStringList(p.excludeMethods ?? [], `${where}.excludeMethods`),
    extraMethods: expectStringList(p.extraMethods ?? [], `${where}.extraMethods`).map((m, i) => {
      if (!Object.hasOwn(PROVIDER_METHODS, m)) fail(`${where}.extraMethods[${i}]`, `no such method: the double computes ${Object.keys(PROVIDER_METHODS).join(', ')}`)
      return m
    }),
    throughput: nullable(p.throughput, (t) => {
      const r = expectRecord(t, `${where}.throughput`)
      onlyFields(r, ['perSecond', 'windowSeconds', 'per'], `${where}.throughput`)
      if (r.per !== 'account' && r.per !== 'key') fail(`${where}.throughput.per`, `must be "account" or "key", got ${describe(r.per)}`)
      return { perSecond: expectPositiveInteger(r.perSecond, `${where}.throughput.perSecond`), windowSeconds: expectPositiveInteger(r.windowSeconds, `${where}.throughput.windowSeconds`), per: r.per }
    }),
    quota: nullable(p.quota, (q) => {
      const r = expectRecord(q, `${where}.quota`)
      onlyFields(r, ['units', 'period'], `${where}.quota`)
      if (r.period !== 'day' && r.period !== 'month') fail(`${where}.quota.period`, `must be "day" or "month", got ${describe(r.period)}`)
      return { units: expectPositiveInteger(r.units, `${where}.quota.units`), period: r.period }
    }),
    refusals: Object.fromEntries(Object.entries(refusals).map(([name, r]) => [name, refusal(r, `${where}.refusals.${name}`)])),
    getLogs: nullable(p.getLogs, (g) => {
      const r = expectRecord(g, `${where}.getLogs`)
      onlyFields(r, ['maxBlockRange', 'measure', 'methods'], `${where}.getLogs`)
      if (r.measure !== 'blocks' && r.measure !== 'distance') fail(`${where}.getLogs.measure`, `must be "blocks" or "distance", got ${describe(r.measure)}`)
      return { maxBlockRange: expectPositiveInteger(r.maxBlockRange, `${where}.getLogs.maxBlockRange`), measure: r.measure, methods: expectStringList(r.methods ?? ['eth_getLogs'], `${where}.getLogs.methods`) }
    }),
    getLogsResults: nullable(p.getLogsResults ?? null, (g) => {
      const w = `${where}.getLogsResults`
      const r = expectRecord(g, w)
      onlyFields(r, ['maxLogs', 'error'], w)
      const error = expectRecord(r.error, `${w}.error`)
      onlyFields(error, ['code', 'message'], `${w}.error`)
      if (typeof error.code !== 'number' || !Number.isSafeInteger(error.code)) fail(`${w}.error.code`, `must be an integer, got ${describe(error.code)}`)
      return { maxLogs: expectPositiveInteger(r.maxLogs, `${w}.maxLogs`), error: { code: error.code, message: expectString(error.message, `${w}.error.message`) } }
    }),
    batch: { http: expectPositiveInteger(batch.http, `${where}.batch.http`), ws: expectPositiveInteger(batch.ws, `${where}.batch.ws`) },
    timeoutMs: nullable(p.timeoutMs, (t) => nonNegative(t, `${where}.timeoutMs`)),
  }
  const needs: [boolean, RefusalName][] = [
    [spec.getLogs !== null, 'getLogsRange'],
    [spec.name !== DEFAULT_PROFILE && spec.throughput !== null, 'throughput'],
    [spec.name !== DEFAULT_PROFILE && spec.quota !== null, 'quota'],
  ]
  for (const [needed, name] of needs) if (needed && spec.refusals[name] === undefined) fail(`${where}.refusals.${name}`, 'is required by the rule it refuses for')
  return spec
}

const loaded = new Map<string, ProfileSpec>()

/** A shipped profile by name, read from config/profiles/ and checked once. */
export function builtinProfile(name: string): ProfileSpec {
  let spec = loaded.get(name)
  if (spec !== undefined) return spec
  if (!(PROFILE_NAMES as readonly string[]).includes(name)) throw new ConfigError(`profile: unknown profile ${JSON.stringify(name)} (shipped: ${PROFILE_NAMES.join(', ')})`)
  const json = JSON.parse(readFileSync(new URL(`../../../config/profiles/${name}.json`, import.meta.url), 'utf8')) as unknown
  spec = parseProfile(json, `profile ${name}`)
  loaded.set(name, spec)
  return spec
}

/** A profile option: a shipped profile's name, a whole profile, or `{ extends: <name>, ...fields replaced }`. */
export type ProfileInput = string | ({ extends?: string } & Record<string, unknown>)

export function resolveProfile(input: ProfileInput | undefined, where = 'profile'): ProfileSpec {
  if (input === undefined) return builtinProfile(DEFAULT_PROFILE)
  if (typeof input === 'string') return builtinProfile(input)
  if (!isRecord(input)) fail(where, `must be a profile's name or object, got ${describe(input)}`)
  const { extends: base, ...fields } = input
  if (base === undefined) return parseProfile(fields, where)
  return parseProfile({ ...builtinProfile(expectString(base, `${where}.extends`)), ...fields }, where)
}

/** A profile to serve beside the gateway (config `profiles`, `startServer`'s): the profile and its port (0 or none: a free one). */
export interface ProfileServe {
  readonly profile: ProfileInput
  readonly port?: number
}

/** Checks a config's `profiles`: each entry's profile resolved (errors name the field), its port a TCP port. */
export function parseProfileServes(v: unknown, where: string): ProfileServe[] {
  if (!Array.isArray(v)) fail(where, `must be an array of { profile, port }, got ${describe(v)}`)
  return v.map((entry, i) => {
    const e = expectRecord(entry, `${where}[${i}]`)
    onlyFields(e, ['profile', 'port'], `${where}[${i}]`)
    resolveProfile(e.profile as ProfileInput, `${where}[${i}].profile`)
    if (e.port !== undefined && (typeof e.port !== 'number' || !Number.isSafeInteger(e.port) || e.port < 0 || e.port > 65535)) fail(`${where}[${i}].port`, `must be a TCP port (0 for a free one), got ${describe(e.port)}`)
    return { profile: structuredClone(e.profile) as ProfileInput, ...(e.port === undefined ? {} : { port: e.port as number }) }
  })
}
