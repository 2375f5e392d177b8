/**
 * Allowlist rules (matching in ../allowlists.ts). The origin and user-agent lists judge the HTTP
 * request; the method and contract-address lists judge each call, and one refused call refuses the
 * whole request (403, nothing charged). A request without the header a list needs is refused.
 * With `secretBypass`, a request that carried the key's correct secret skips them all.
 */
import { contractAddressesAllowed, originMatches } from '../allowlists.ts'
import { RejectedBySettingsError } from '../errors.ts'
import { header } from '../request.ts'
import type { CallRule, RequestRule, RequestState } from '../request.ts'

function bypassed(state: RequestState): boolean {
  return state.secretVerified && state.key?.allowlists.secretBypass === true
}

export function createOriginAllowlistRule(): RequestRule {
  return function originAllowlist(state) {
    const patterns = state.key?.allowlists.origins
    if (!patterns || bypassed(state)) return
    const origin = header(state.request, 'origin')
    if (origin === undefined || !patterns.some((p) => originMatches(p, origin))) {
      throw new RejectedBySettingsError('origin not in allowlist')
    }
  }
}

export function createUserAgentAllowlistRule(): RequestRule {
  return function userAgentAllowlist(state) {
    const agents = state.key?.allowlists.userAgents
    if (!agents || bypassed(state)) return
    const ua = header(state.request, 'user-agent')
    if (ua === undefined || !agents.some((a) => ua.includes(a))) {
      throw new RejectedBySettingsError('user agent not in allowlist')
    }
  }
}

export function createMethodAllowlistRule(): CallRule {
  return function methodAllowlist(state, call) {
    const methods = state.key?.allowlists.methods
    if (!methods || bypassed(state)) return
    if (!methods.has(call.method)) throw new RejectedBySettingsError(`method ${call.method} not in allowlist`)
  }
}

export function createContractAddressAllowlistRule(): CallRule {
  return function contractAddressAllowlist(state, call) {
    const addresses = state.key?.allowlists.contractAddresses
    if (!addresses || bypassed(state)) return
    if (!contractAddressesAllowed(addresses, call.method, call.params)) {
      throw new RejectedBySettingsError(`contract address of ${call.method} not in allowlist`)
    }
  }
}
