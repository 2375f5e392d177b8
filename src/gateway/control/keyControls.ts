/**
 * The key controls: list and read keys, add keys in the config-file shape (validated as the config
 * file is, errors naming `keys[i].field`), set today's remaining credits, enable or disable a
 * network for a key.
 */
import { ConfigError, parseKeys } from '../config.ts'
import type { KeySettings } from '../config.ts'
import { ControlError, ControlInputError, ControlLimitError } from '../controlError.ts'
import { formatBytes, formatCount, jsonBytes } from '../controlLimits.ts'
import { keyInfo, keyNamed, networkNamed, replaceKey, show } from './shared.ts'
import type { ControlDeps, GatewayControl } from './types.ts'

export type KeyControls = Pick<GatewayControl, 'keys' | 'key' | 'addKeys' | 'setCredits' | 'setNetworkEnabled'>

export function createKeyControls(deps: Pick<ControlDeps, 'networks' | 'keys' | 'ledger' | 'limits'> & Partial<Pick<ControlDeps, 'accounts'>>): KeyControls {
  const { networks, keys, ledger, limits } = deps
  /** The JSON size of each key added through the controls, by key (the config's are not counted). */
  const addedBytes = new Map<string, number>()
  const accounts = deps.accounts ?? new Map()
  const info = (k: KeySettings) => keyInfo(k, ledger)
  return {
    keys: () => [...keys.values()].map(info),

    key: (key) => info(keyNamed(keys, key)),

    addKeys(input) {
      let parsed: KeySettings[]
      try {
        parsed = parseKeys(input, networks.keys(), 'keys', accounts)
      } catch (err) {
        if (err instanceof ConfigError) throw new ControlError(400, err.message)
        throw err
      }
      parsed.forEach((k, i) => {
        if (keys.has(k.key)) throw new ControlInputError(`keys[${i}].key`, `duplicate key ${JSON.stringify(k.key)} (it exists already)`)
      })
      const sizes = parsed.map((_k, i) => jsonBytes((input as unknown[])[i]))
      // Keys a snapshot's restore took away no longer count (nor stay in the map).
      let kept = 0
      for (const [name, bytes] of addedBytes) {
        if (keys.has(name)) kept += bytes
        else addedBytes.delete(name)
      }
      const adding = sizes.reduce((a, b) => a + b, 0)
      if (keys.size + parsed.length > limits.keys || kept + adding > limits.keyBytes) {
        throw new ControlLimitError(
          `too many keys: ${formatCount(keys.size)} exist, ${formatBytes(kept)} added through the controls, and these ${formatCount(parsed.length)} (${formatBytes(adding)}) would pass the bounds (${formatCount(limits.keys)} keys and ${formatBytes(limits.keyBytes)}); keys are taken away by restoring a snapshot taken before them`,
        )
      }
      parsed.forEach((k, i) => {
        keys.set(k.key, k)
        addedBytes.set(k.key, sizes[i]!)
      })
      return parsed.map(info)
    },

    setCredits(key, remaining) {
      const k = keyNamed(keys, key)
      if (typeof remaining !== 'number' || !Number.isSafeInteger(remaining) || remaining < 0) {
        throw new ControlInputError('remaining', `must be an integer of at least 0, got ${show(remaining)}`)
      }
      ledger.setBalance(k, remaining)
      return info(k)
    },

    setNetworkEnabled(key, name, enabled) {
      const k = keyNamed(keys, key)
      const n = networkNamed(networks, name)
      if (typeof enabled !== 'boolean') throw new ControlInputError('enabled', `must be true or false, got ${show(enabled)}`)
      const next = new Set(k.networks)
      if (enabled) next.add(n.name)
      else next.delete(n.name)
      return info(replaceKey(keys, k, next))
    },
  }
}
