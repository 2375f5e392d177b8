/**
 * The network controls: list and read networks, fork one into a new network (per-worker
 * isolation; enabled for the keys that have the source, or the ones named), switch a chain's
 * mining mode (which stops interval mining), mine a block. Chain operations are feature-tested: a chain without one answers 501.
 */
import type { KeySettings } from '../config.ts'
import { ConfigError, parseNetworkName } from '../config.ts'
import { ControlError, ControlInputError } from '../controlError.ts'
import type { Network } from '../request.ts'
import { networkHost } from '../rules/host.ts'
import { feature, isRecord, keyNamed, networkInfo, networkNamed, replaceKey, show } from './shared.ts'
import { MINING_MODES } from './types.ts'
import type { ControlDeps, ForkInput, GatewayControl, NetworkInfo } from './types.ts'

export type NetworkControls = Pick<GatewayControl, 'networks' | 'network' | 'fork' | 'setMiningMode' | 'mine'>

type NetworkDeps = Pick<ControlDeps, 'serviceHost' | 'networks' | 'keys' | 'intervals'>

export function createNetworkControls(deps: NetworkDeps): NetworkControls {
  const { networks, intervals } = deps
  return {
    networks: () => [...networks.values()].map((n) => networkInfo(n, intervals)),

    network: (name) => networkInfo(networkNamed(networks, name, 'name'), intervals),

    fork: (input) => fork(deps, input),

    setMiningMode(name, mode) {
      const n = networkNamed(networks, name)
      if (!MINING_MODES.includes(mode)) throw new ControlInputError('mode', `must be "auto" or "manual", got ${show(mode)}`)
      feature(n, 'setMiningMode')(mode)
      intervals.stop(n.name)
      return networkInfo(n, intervals)
    },

    async mine(name) {
      const n = networkNamed(networks, name)
      const record = await feature(n, 'mine')()
      return {
        network: n.name,
        number: Number(record.number),
        hash: record.hash,
        timestamp: Number(record.timestamp),
        transactions: record.transactions.map((tx) => tx.hash),
      }
    },
  }
}

/** Adds network `input.name` as a fork of `input.from`, enabled for `input.keys` (default: every key that has `from`). */
async function fork(deps: NetworkDeps, input: ForkInput): Promise<NetworkInfo> {
  const { networks, keys } = deps
  if (!isRecord(input)) throw new ControlInputError('fork', `must be an object, got ${show(input)}`)
  for (const field of Object.keys(input)) {
    if (!['name', 'from', 'keys'].includes(field)) throw new ControlInputError(field, 'unknown field (allowed: name, from, keys)')
  }
  const source = networkNamed(networks, input.from, 'from')
  if (typeof input.name !== 'string') throw new ControlInputError('name', `must be a network name, got ${show(input.name)}`)
  try {
    parseNetworkName(input.name, 'name')
  } catch (err) {
    if (err instanceof ConfigError) throw new ControlError(400, err.message)
    throw err
  }
  if (networks.has(input.name)) throw new ControlInputError('name', `network ${JSON.stringify(input.name)} exists already`)
  let enableFor: KeySettings[]
  if (input.keys === undefined) enableFor = [...keys.values()].filter((k) => k.networks.has(source.name))
  else if (!Array.isArray(input.keys)) throw new ControlInputError('keys', `must be a list of keys, got ${show(input.keys)}`)
  else enableFor = input.keys.map((k, i) => keyNamed(keys, k, `keys[${i}]`))
  const chain = await feature(source, 'fork')(input.name)
  if (networks.has(input.name)) throw new ControlInputError('name', `network ${JSON.stringify(input.name)} exists already`)
  // A fork is a copy of its source, the methods it leaves out included.
  const added: Network = {
    name: input.name,
    host: networkHost(input.name, deps.serviceHost),
    chain,
    ...(source.excludedMethods ? { excludedMethods: source.excludedMethods } : {}),
  }
  networks.set(added.name, added)
  for (const k of enableFor) {
    const current = keys.get(k.key) ?? k
    replaceKey(keys, current, new Set([...current.networks, added.name]))
  }
  return networkInfo(added, deps.intervals)
}
