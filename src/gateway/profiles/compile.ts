/**
 * A profile compiled once, when its gateway is made, into what the request path uses: the route
 * rule and the key's refusal, the pricing, the ledger's rules, the eth_getLogs range check, the
 * batch limits and their refusal, each key's account as the profile meters it. Nothing per
 * request reads the profile's data again. The default profile (infura) compiles to the service's
 * own rules: its route rule, refusals and ledger rules are those of ../rules/ and ../errors.ts.
 */
import { toQuantity } from '../../encoding/hex.ts'
import type { LogResultLimit } from '../../rpc/logQuery.ts'
import { SERVICE_LEDGER_RULES } from '../credits.ts'
import type { CreditAccount, LedgerRules } from '../credits.ts'
import { InvalidProjectIdError } from '../errors.ts'
import type { GatewayError } from '../errors.ts'
import type { KeySettings } from '../keyConfig.ts'
import { errorResponse } from '../../rpc/dispatch.ts'
import { RpcError } from '../../rpc/errors.ts'
import type { JsonRpcId, JsonRpcRequest, JsonRpcResponse } from '../../rpc/types.ts'
import type { CallRule, Network, RequestRule } from '../request.ts'
import { createRouteRule } from '../rules/route.ts'
import { createRangeCheck } from './getLogsRange.ts'
import type { RangeCheck } from './getLogsRange.ts'
import { compilePricing } from './pricing.ts'
import type { Pricing } from './pricing.ts'
import { DEFAULT_PROFILE } from './profile.ts'
import type { ProfileSpec } from './profile.ts'
import { ProfileRefusal, refusalOf } from './refusal.ts'
import { createProfileRouteRule, isKeyless } from './route.ts'

export interface CompiledProfile {
  readonly spec: ProfileSpec
  /** The service's own rules: no account mapping, no range check. */
  readonly isDefault: boolean
  readonly pricing: Pricing
  readonly ledgerRules: LedgerRules
  /** The host a network is served at under this profile. */
  networkHost(network: string, serviceHost: string): string
  routeRule(): RequestRule
  /** The key rule's refusal of a key it does not know. */
  readonly refuseKey: () => GatewayError
  /** eth_getLogs' range refusal as a call rule: the whole request's answer (a status other than 200: QuickNode's 413). */
  readonly rangeRule: CallRule | undefined
  /**
   * eth_getLogs' range refusal when it is a call's JSON-RPC error (a status 200 refusal:
   * Alchemy's): a single call's is the whole answer (`singleRangeRule`, its exact body), a batch
   * member's its error in the batch (`callRefusal`).
   */
  readonly singleRangeRule: CallRule | undefined
  readonly callRefusal: ((network: Network, request: JsonRpcRequest) => JsonRpcResponse | undefined) | undefined
  readonly batchLimits: { readonly http: number; readonly ws: number }
  /** A batch over the limit (`{limit}`), as the provider refuses it; undefined: geth's `batch too large`. */
  readonly refuseBatch: ((limit: number) => ProfileRefusal) | undefined
  /** Whether no key is needed (public endpoints): every request is the keyless key. */
  readonly keyless: boolean
  /** eth_getLogs' result limit and error (`RpcContext.logResults`); undefined: the service's. */
  readonly logResults: LogResultLimit | undefined
  /** A key as this profile's ledger meters it; undefined: the key itself, by its plan (the service's profile, or one without rules of its own). */
  readonly accountOf: ((key: KeySettings) => CreditAccount) | undefined
}

/** A profile's eth_getLogs result limit: its error's message with `{limit}`, `{limitGrouped}`, `{from}` and `{to}` filled in. */
function logResultsOf(spec: ProfileSpec['getLogsResults']): LogResultLimit | undefined {
  if (spec === null) return undefined
  const { maxLogs, error } = spec
  const fill = (from: bigint, to: bigint) =>
    error.message.replace(/\{(from|to|limit|limitGrouped)\}/g, (_, name: string) =>
      name === 'from' ? toQuantity(from) : name === 'to' ? toQuantity(to) : name === 'limit' ? String(maxLogs) : maxLogs.toLocaleString('en-US'),
    )
  return { max: maxLogs, refuse: (from, to) => new RpcError(error.code, fill(from, to)) }
}

/** A range check answering the call with its JSON-RPC error. */
function callRefusalOf(check: RangeCheck): (network: Network, request: JsonRpcRequest) => JsonRpcResponse | undefined {
  return (network, request) => {
    const refusal = check(network, request, request.id)
    return refusal === undefined ? undefined : errorResponse(request.id, new RpcError(refusal.code, refusal.message))
  }
}

/** A range check as a rule refusing the whole request. */
function rangeRuleOf(check: RangeCheck): CallRule {
  return (state, call) => {
    const refusal = check(state.network!, call, (call as { id?: JsonRpcId }).id)
    if (refusal !== undefined) throw refusal
  }
}

export function compileProfile(spec: ProfileSpec): CompiledProfile {
  const isDefault = spec.name === DEFAULT_PROFILE
  const refuseKey = refusalOf(spec.refusals.invalidKey) ?? (() => new InvalidProjectIdError())
  const ledgerRules: LedgerRules = isDefault
    ? SERVICE_LEDGER_RULES
    : {
        windowSeconds: spec.throughput?.windowSeconds ?? 1,
        period: spec.quota?.period ?? 'day',
        refuseQuota: refusalOf(spec.refusals.quota) ?? SERVICE_LEDGER_RULES.refuseQuota,
        refuseThroughput: refusalOf(spec.refusals.throughput) ?? SERVICE_LEDGER_RULES.refuseThroughput,
      }
  const range = spec.getLogs
  const rangeRefusal = spec.refusals.getLogsRange
  const rangeCheck = range === null || rangeRefusal === undefined ? undefined : createRangeCheck(range, rangeRefusal, new Set(range.methods))
  const accounts = new WeakMap<KeySettings, CreditAccount>()
  const { throughput, quota } = spec
  const hostSuffix = spec.url.host.slice('{network}'.length)
  return {
    spec,
    isDefault,
    pricing: compilePricing(spec.prices),
    ledgerRules,
    networkHost: (network, serviceHost) => `${network}${hostSuffix.replaceAll('{serviceHost}', serviceHost)}`,
    routeRule: () => (isDefault ? createRouteRule() : createProfileRouteRule(spec, refuseKey)),
    refuseKey,
    rangeRule: rangeCheck !== undefined && rangeRefusal!.status !== 200 ? rangeRuleOf(rangeCheck) : undefined,
    singleRangeRule: rangeCheck !== undefined && rangeRefusal!.status === 200 ? rangeRuleOf(rangeCheck) : undefined,
    callRefusal: rangeCheck !== undefined && rangeRefusal!.status === 200 ? callRefusalOf(rangeCheck) : undefined,
    batchLimits: spec.batch,
    refuseBatch: spec.refusals.batchTooLarge === undefined ? undefined : (limit) => new ProfileRefusal(spec.refusals.batchTooLarge!, { limit: String(limit) }),
    keyless: isKeyless(spec),
    logResults: logResultsOf(spec.getLogsResults),
    accountOf: isDefault || (throughput === null && quota === null) ? undefined : (key) => {
      let account = accounts.get(key)
      if (account === undefined) {
        const perKey = throughput?.per === 'key'
        account = {
          key: key.key,
          dailyCredits: quota === null ? key.dailyCredits : quota.units,
          creditsPerSecond: throughput === null ? key.creditsPerSecond : throughput.perSecond,
          account: perKey ? undefined : key.account,
        }
        accounts.set(key, account)
      }
      return account
    },
  }
}
