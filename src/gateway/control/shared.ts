/**
 * What the control facets share: reading what a test sent (a network, a key, a chain feature) with
 * errors that name the field, and the `*Info` shapes they answer with.
 */
import type { IntervalMining } from '../intervalMining.ts'
import type { Chain } from '../../chain/chain.ts'
import { jsonText } from '../../encoding/jsonText.ts'
import type { KeySettings } from '../config.ts'
import { ChainFeatureMissingError, ControlInputError, ControlNotFoundError } from '../controlError.ts'
import type { CreditLedger } from '../credits.ts'
import type { Network } from '../request.ts'
import type { ControllableChain, KeyInfo, NetworkInfo } from './types.ts'

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** A value a test sent, quoted in an error message (cut at 200 characters; any depth). */
export function show(v: unknown): string {
  return v === undefined ? 'nothing' : jsonText(v, 200)
}

export function iso(ms: number): string {
  return new Date(ms).toISOString()
}

function controllable(chain: Chain): ControllableChain {
  return chain as unknown as ControllableChain
}

/** The network `name` names, or a 400 (not a name) or 404 (no such network) naming `field`. */
export function networkNamed(networks: ReadonlyMap<string, Network>, name: unknown, field = 'network'): Network {
  if (typeof name !== 'string' || name === '') throw new ControlInputError(field, `must be a network name, got ${show(name)}`)
  const n = networks.get(name)
  if (!n) throw new ControlNotFoundError('network', name)
  return n
}

/** The key's settings, or a 400 (not a key) or 404 (no such key) naming `field`. */
export function keyNamed(keys: ReadonlyMap<string, KeySettings>, key: unknown, field = 'key'): KeySettings {
  if (typeof key !== 'string' || key === '') throw new ControlInputError(field, `must be a key, got ${show(key)}`)
  const k = keys.get(key)
  if (!k) throw new ControlNotFoundError('key', key)
  return k
}

/** The chain's method, or a 501 naming it. */
export function feature<K extends keyof ControllableChain>(n: Network, name: K): NonNullable<ControllableChain[K]> {
  const chain = controllable(n.chain)
  const member = chain[name]
  if (typeof member !== 'function') throw new ChainFeatureMissingError(n.name, name)
  return (member as (...args: unknown[]) => unknown).bind(chain) as NonNullable<ControllableChain[K]>
}

export function keyInfo(k: KeySettings, ledger: CreditLedger): KeyInfo {
  return {
    key: k.key,
    networks: [...k.networks],
    dailyCredits: k.dailyCredits,
    creditsPerSecond: k.creditsPerSecond ?? null,
    remaining: ledger.balance(k),
    hasSecret: k.secret !== undefined,
    account: k.account ?? null,
    limits: k.limits === undefined ? null : { dailyCredits: k.limits.dailyCredits ?? null, creditsPerSecond: k.limits.creditsPerSecond ?? null },
    spentToday: ledger.keySpent(k),
    jwt: k.jwt === undefined ? null : { required: k.jwt.required, keyIds: [...k.jwt.keys.keys()] },
  }
}

/** A network as the controls show it; `intervals` says its interval mining (../intervalMining.ts). */
export function networkInfo(n: Network, intervals?: Pick<IntervalMining, 'get'>): NetworkInfo {
  const chain = controllable(n.chain)
  const mode = chain.miningMode
  const pending = chain.pending
  return {
    name: n.name,
    host: n.host,
    chainId: Number(n.chain.chainId),
    headNumber: Number(n.chain.head.number),
    miningMode: mode === 'auto' || mode === 'manual' ? mode : null,
    pending: Array.isArray(pending) ? pending.length : null,
    contracts: n.chain.contracts ?? {},
    intervalSeconds: intervals?.get(n.name) ?? null,
  }
}

/** Replaces a key's settings by a copy with `networkNames` enabled. */
export function replaceKey(keys: Map<string, KeySettings>, k: KeySettings, networkNames: ReadonlySet<string>): KeySettings {
  const next: KeySettings = { ...k, networks: networkNames }
  keys.set(k.key, next)
  return next
}
