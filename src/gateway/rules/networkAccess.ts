/** Network rule: the Host's network must be enabled for the key (401 otherwise). */
import { NetworkNotEnabledError } from '../errors.ts'
import type { RequestRule } from '../request.ts'

export function createNetworkAccessRule(): RequestRule {
  return function networkAccess(state) {
    if (!state.key || !state.network || !state.key.networks.has(state.network.name)) {
      throw new NetworkNotEnabledError()
    }
  }
}
