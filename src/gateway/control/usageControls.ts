/**
 * The usage controls: what the traffic cost over a dashboard window, filtered by key, network and
 * method (../usage/report.ts), with today's credits against each key's and account's daily quota
 * from the ledger; the running totals `measureCredits` diffs; the recent quota alerts.
 */
import { ControlInputError } from '../controlError.ts'
import { USAGE_WINDOWS, usageReport } from '../usage/report.ts'
import type { UsageQuery, UsageWindow } from '../usage/report.ts'
import { show } from './shared.ts'
import type { ControlDeps, GatewayControl, QuotaInfo, UsageTotals } from './types.ts'

export type UsageControls = Pick<GatewayControl, 'usage' | 'usageTotals' | 'alerts' | 'onAlert'>

function filterField(query: Record<string, unknown>, name: 'key' | 'network' | 'method'): string | undefined {
  const v = query[name]
  if (v === undefined) return undefined
  if (typeof v !== 'string' || v === '') throw new ControlInputError(name, `must be a non-empty string, got ${show(v)}`)
  return v
}

/** A usage query as a test or the HTTP route sent it, checked (400s name the field). */
export function usageQuery(input: unknown): UsageQuery {
  const query = (input ?? {}) as Record<string, unknown>
  if (typeof query !== 'object' || Array.isArray(query)) throw new ControlInputError('query', `must be an object, got ${show(input)}`)
  for (const name of Object.keys(query)) {
    if (!['window', 'key', 'network', 'method'].includes(name)) throw new ControlInputError(name, 'unknown field (allowed: window, key, network, method)')
  }
  const window = query.window
  if (window !== undefined && !USAGE_WINDOWS.includes(window as UsageWindow)) {
    throw new ControlInputError('window', `must be one of ${USAGE_WINDOWS.join(', ')}, got ${show(window)}`)
  }
  const out: { window?: UsageWindow; key?: string; network?: string; method?: string } = {}
  if (window !== undefined) out.window = window as UsageWindow
  for (const name of ['key', 'network', 'method'] as const) {
    const v = filterField(query, name)
    if (v !== undefined) out[name] = v
  }
  return out
}

export function createUsageControls(deps: Pick<ControlDeps, 'keys' | 'ledger' | 'clock' | 'usage' | 'events'>): UsageControls {
  const { keys, ledger, clock, usage, events } = deps
  return {
    usage(input) {
      const query = usageQuery(input)
      const quotas: QuotaInfo[] = [...keys.values()]
        .filter((k) => query.key === undefined || k.key === query.key)
        .map((k) => {
          const spent = ledger.spent(k)
          return {
            key: k.key,
            account: k.account ?? null,
            networks: [...k.networks],
            spentToday: ledger.keySpent(k),
            accountSpentToday: spent,
            dailyCredits: k.dailyCredits,
            keyDailyCredits: k.limits?.dailyCredits ?? null,
            remaining: ledger.balance(k),
            percent: Math.round((spent / k.dailyCredits) * 1000) / 10,
          }
        })
      return { ...usageReport(usage, query, clock.now()), quotas, resetsAt: new Date((Math.floor(clock.now() / 86_400_000) + 1) * 86_400_000).toISOString() }
    },

    usageTotals() {
      const totals: UsageTotals = { requests: 0, credits: 0, byMethod: {}, byKey: {}, byNetwork: {} }
      const series = usage.series
      for (const [id, cell] of usage.totals()) {
        const s = series[id]!
        totals.requests += cell.requests
        totals.credits += cell.credits
        for (const [into, name] of [[totals.byMethod, s.method], [totals.byKey, s.key], [totals.byNetwork, s.network]] as const) {
          const row = (into[name] ??= { requests: 0, credits: 0 })
          row.requests += cell.requests
          row.credits += cell.credits
        }
      }
      return totals
    },

    alerts: () => events.recent(),
    onAlert: (listener) => events.subscribe(listener),
  }
}
