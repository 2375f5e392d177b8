/** Key rule: the key of `/v3/<key>` must be configured (401 `invalid project id` otherwise). */
import type { KeySettings } from '../config.ts'
import { InvalidProjectIdError } from '../errors.ts'
import type { RequestRule } from '../request.ts'

export interface ApiKeyRuleOptions {
  readonly keys: readonly KeySettings[]
}

export function createApiKeyRule(options: ApiKeyRuleOptions): RequestRule {
  const byKey = new Map<string, KeySettings>()
  for (const k of options.keys) {
    if (byKey.has(k.key)) throw new TypeError(`duplicate key ${k.key}`)
    byKey.set(k.key, k)
  }
  return function apiKey(state) {
    const key = state.apiKey === undefined ? undefined : byKey.get(state.apiKey)
    if (!key) throw new InvalidProjectIdError()
    state.key = key
  }
}
