/**
 * What the usage counters (./counters.ts) say for a window and a filter: totals, failures by HTTP
 * status and JSON-RPC code, rows per key, network and method, top methods, the request and credit
 * series over time (the dashboard's chart), and the contracts eth_call reached in the last 30
 * minutes. Pure: the counters and the gateway's time in, plain JSON out.
 */
import { HOUR_MS, MINUTE_MS } from './counters.ts'
import type { Cell, UsageCounters } from './counters.ts'

/** The dashboard's time ranges; `today` is since 00:00 UTC. */
export const USAGE_WINDOWS = ['15m', '1h', '24h', '7d', '30d', 'today'] as const
export type UsageWindow = (typeof USAGE_WINDOWS)[number]

const DAY_MS = 86_400_000
/** Buckets of each window: minutes for the short ones, hours for the rest. */
const WINDOW_BUCKETS: Record<Exclude<UsageWindow, 'today'>, { fine: boolean; count: number }> = {
  '15m': { fine: true, count: 15 },
  '1h': { fine: true, count: 60 },
  '24h': { fine: false, count: 24 },
  '7d': { fine: false, count: 168 },
  '30d': { fine: false, count: 720 },
}
/** How far back `contracts` looks (the dashboard's "last 30 minutes"). */
export const CONTRACTS_WINDOW_MS = 30 * MINUTE_MS
/** Rows and contracts listed at most (the most requested first). */
export const MAX_ROWS = 200

export interface UsageQuery {
  readonly window?: UsageWindow
  readonly key?: string
  readonly network?: string
  readonly method?: string
}

export interface UsageCounts {
  readonly requests: number
  readonly successes: number
  readonly failures: number
  readonly credits: number
}

export interface UsageRow extends UsageCounts {
  readonly key: string
  readonly network: string
  readonly method: string
}

export interface UsageReport {
  readonly window: UsageWindow
  /** The window's first bucket's start and the gateway's time now (ISO 8601). */
  readonly from: string
  readonly to: string
  /** `minute` or `hour`: the size of `series`' buckets. */
  readonly bucket: 'minute' | 'hour'
  readonly filter: { readonly key: string | null; readonly network: string | null; readonly method: string | null }
  readonly totals: UsageCounts
  /** Failed requests by the HTTP status they were answered with (`dropped`: none). */
  readonly failuresByStatus: Readonly<Record<string, number>>
  /** Failed calls by the JSON-RPC error code they were answered with. */
  readonly failuresByCode: Readonly<Record<string, number>>
  /** Per key, network and method, the most requested first. */
  readonly rows: readonly UsageRow[]
  /** Per method across keys and networks, the most requested first. */
  readonly topMethods: readonly (UsageCounts & { readonly method: string })[]
  readonly networks: readonly (UsageCounts & { readonly network: string })[]
  /** Per bucket, oldest first. */
  readonly series: readonly { readonly time: string; readonly requests: number; readonly credits: number }[]
  /** eth_call's targets in the last 30 minutes (whatever the window), the most called first. */
  readonly contracts: readonly { readonly key: string; readonly network: string; readonly address: string; readonly calls: number }[]
}

function add(into: { requests: number; successes: number; failures: number; credits: number }, cell: Cell): void {
  into.requests += cell.requests
  into.successes += cell.successes
  into.failures += cell.failures
  into.credits += cell.credits
}

const zero = () => ({ requests: 0, successes: 0, failures: 0, credits: 0 })

function grouped<T extends string>(name: T, map: Map<string, ReturnType<typeof zero>>): ({ [K in T]: string } & UsageCounts)[] {
  return [...map]
    .map(([k, counts]) => ({ [name]: k, ...counts }) as { [K in T]: string } & UsageCounts)
    .sort((a, b) => b.requests - a.requests || b.credits - a.credits)
    .slice(0, MAX_ROWS)
}

function group(map: Map<string, ReturnType<typeof zero>>, k: string, cell: Cell): void {
  let counts = map.get(k)
  if (!counts) map.set(k, (counts = zero()))
  add(counts, cell)
}

export function usageReport(counters: UsageCounters, query: UsageQuery, now: number): UsageReport {
  const window = query.window ?? '24h'
  const { fine, count } = window === 'today' ? { fine: false, count: Math.floor((now % DAY_MS) / HOUR_MS) + 1 } : WINDOW_BUCKETS[window]
  const size = fine ? MINUTE_MS : HOUR_MS
  const from = (Math.floor(now / size) - count + 1) * size
  const series = counters.series
  const wanted = (id: number) => {
    const s = series[id]!
    return (query.key === undefined || s.key === query.key) && (query.network === undefined || s.network === query.network) && (query.method === undefined || s.method === query.method)
  }
  const totals = zero()
  const byStatus: Record<string, number> = {}
  const byCode: Record<string, number> = {}
  const rows = new Map<number, ReturnType<typeof zero>>()
  const methods = new Map<string, ReturnType<typeof zero>>()
  const networks = new Map<string, ReturnType<typeof zero>>()
  const points: { time: string; requests: number; credits: number }[] = []
  for (const bucket of counters.buckets(from, now, fine)) {
    const point = { time: new Date(bucket.start).toISOString(), requests: 0, credits: 0 }
    for (const [id, cell] of bucket.cells) {
      if (!wanted(id)) continue
      point.requests += cell.requests
      point.credits += cell.credits
      add(totals, cell)
      let row = rows.get(id)
      if (!row) rows.set(id, (row = zero()))
      add(row, cell)
      group(methods, series[id]!.method, cell)
      group(networks, series[id]!.network, cell)
      for (const [status, n] of cell.byStatus ?? []) byStatus[status] = (byStatus[status] ?? 0) + n
      for (const [code, n] of cell.byCode ?? []) byCode[code] = (byCode[code] ?? 0) + n
    }
    points.push(point)
  }
  const contracts = [...counters.contracts(now - CONTRACTS_WINDOW_MS + MINUTE_MS, now)]
    .map(([k, calls]) => {
      const [key, network, address] = k.split(' ') as [string, string, string]
      return { key, network, address, calls }
    })
    .filter((c) => (query.key === undefined || c.key === query.key) && (query.network === undefined || c.network === query.network))
    .sort((a, b) => b.calls - a.calls)
    .slice(0, MAX_ROWS)
  return {
    window,
    from: new Date(from).toISOString(),
    to: new Date(now).toISOString(),
    bucket: fine ? 'minute' : 'hour',
    filter: { key: query.key ?? null, network: query.network ?? null, method: query.method ?? null },
    totals,
    failuresByStatus: byStatus,
    failuresByCode: byCode,
    rows: [...rows]
      .map(([id, counts]) => ({ key: series[id]!.key, network: series[id]!.network, method: series[id]!.method, ...counts }))
      .sort((a, b) => b.requests - a.requests || b.credits - a.credits)
      .slice(0, MAX_ROWS),
    topMethods: grouped('method', methods),
    networks: grouped('network', networks),
    series: points,
    contracts,
  }
}
