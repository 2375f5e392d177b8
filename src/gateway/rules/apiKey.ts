/** Key rule: the key of `/v3/<key>` must be configured (401 `invalid project id` otherwise, or a profile's own refusal). */
import type { KeySettings } from '../config.ts'
import { InvalidProjectIdError } from '../errors.ts'
import type { GatewayError } from '../errors.ts'
import type { RequestRule } from '../request.ts'

export interface ApiKeyRuleOptions {
  /** A list (checked for duplicates once), or a live map by key that the gateway's controls change. */
  readonly keys: readonly KeySettings[] | ReadonlyMap<string, KeySettings>
  /** The refusal of a key not configured (default: the service's 401 `invalid project id`). */
  readonly refuse?: () => GatewayError
}

export function createApiKeyRule(options: ApiKeyRuleOptions): RequestRule {
  let byKey: ReadonlyMap<string, KeySettings>
  if (Array.isArray(options.keys)) {
    const map = new Map<string, KeySettings>()
    for (const k of options.keys as readonly KeySettings[]) {
      if (map.has(k.key)) throw new TypeError(`duplicate key ${k.key}`)
      map.set(k.key, k)
    }
    byKey = map
  } else {
    byKey = options.keys as ReadonlyMap<string, KeySettings>
  }
  const refuse = options.refuse ?? (() => new InvalidProjectIdError())
  return function apiKey(state) {
    const key = state.apiKey === undefined ? undefined : byKey.get(state.apiKey)
    if (!key) throw refuse()
    state.key = key
  }
}
