/**
 * The bench's result: one table (gateway-double, Anvil, the ratio, the target, met or
 * missed) for the terminal, and the same as JSON.
 */

export interface ServerStats {
  reqPerSec: number
  p50Ms: number
  p99Ms: number
  answered: number
  ok: number
  rpcErrors: number
  failures: number
  statuses: Record<number, number>
  /** req/s of each round. */
  rounds: number[]
  firstErrorBody?: string | undefined
}

export interface Target {
  /** `min`: the ratio gateway-double/Anvil must reach it; `maxMs`: gateway-double's time must stay under it. */
  kind: 'min-ratio' | 'max-ms'
  value: number
  text: string
}

export interface ThroughputRow {
  kind: 'throughput'
  id: string
  label: string
  gatewayDouble: ServerStats
  anvil: ServerStats
  /** gateway-double req/s ÷ Anvil req/s. */
  ratio: number
  target: Target
  met: boolean
}

export interface ColdStartRow {
  kind: 'cold-start'
  id: string
  label: string
  /** Median, ms; undefined when not measured (e.g. the chain is absent). */
  gatewayDoubleMs: number | undefined
  anvilMs: number | undefined
  gatewayDoubleSamplesMs: number[]
  anvilSamplesMs: number[]
  /** gateway-double ms ÷ Anvil ms (a time: lower is better). */
  ratio: number | undefined
  target: Target | undefined
  met: boolean | undefined
  note?: string
}

export interface MemoryRow {
  kind: 'memory'
  id: string
  label: string
  gatewayDoubleKiB: number
  anvilKiB: number
  gatewayDoublePeakKiB: number
  anvilPeakKiB: number
  ratio: number
}

/** A server measured alone, for scale: a bare node:http server with a fixed reply. */
export interface ReferenceRow {
  kind: 'reference'
  id: string
  label: string
  stats: ServerStats
}

/** A latency measured on both servers (newHeads notifications): p50/p99 over every sample. */
export interface LatencyRow {
  kind: 'latency'
  id: string
  label: string
  gatewayDouble: { samples: number; p50Ms: number; p99Ms: number; lastP50Ms: number; fromBlock?: { p50Ms: number; p99Ms: number } }
  anvil: { samples: number; p50Ms: number; p99Ms: number; lastP50Ms: number }
  /** gateway-double p50 ÷ Anvil p50 (a time: lower is better). */
  ratio: number
}

export type Row = ThroughputRow | ColdStartRow | MemoryRow | ReferenceRow | LatencyRow

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-')
const ms = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? '-' : n < 10 ? `${n.toFixed(2)} ms` : n < 100 ? `${n.toFixed(1)} ms` : `${Math.round(n).toLocaleString('en-US')} ms`)
const ratio = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? '-' : n >= 100 ? `${Math.round(n)}x` : n >= 10 ? `${n.toFixed(1)}x` : `${n.toFixed(2)}x`)
const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`
const verdict = (met: boolean | undefined) => (met === undefined ? '' : met ? 'met' : 'MISSED')

/** The table, as fixed-width text. */
export function formatTable(rows: readonly Row[]): string {
  const header = ['', 'gateway-double', 'p50', 'p99', 'Anvil', 'p50', 'p99', 'gd/Anvil', 'target', '']
  const lines: string[][] = []
  for (const r of rows) {
    if (r.kind === 'throughput') {
      const flag = (s: ServerStats) => (s.failures > 0 || s.rpcErrors > 0 || s.ok < s.answered ? ' !' : '')
      lines.push([
        r.label,
        `${int(r.gatewayDouble.reqPerSec)} req/s${flag(r.gatewayDouble)}`,
        ms(r.gatewayDouble.p50Ms),
        ms(r.gatewayDouble.p99Ms),
        `${int(r.anvil.reqPerSec)} req/s${flag(r.anvil)}`,
        ms(r.anvil.p50Ms),
        ms(r.anvil.p99Ms),
        ratio(r.ratio),
        r.target.text,
        verdict(r.met),
      ])
    } else if (r.kind === 'cold-start') {
      lines.push([r.label, ms(r.gatewayDoubleMs), '', '', r.anvilMs === undefined ? (r.note ?? '-') : ms(r.anvilMs), '', '', ratio(r.ratio), r.target?.text ?? '', verdict(r.met)])
    } else if (r.kind === 'latency') {
      lines.push([r.label, `${int(r.gatewayDouble.samples)} notif.`, ms(r.gatewayDouble.p50Ms), ms(r.gatewayDouble.p99Ms), `${int(r.anvil.samples)} notif.`, ms(r.anvil.p50Ms), ms(r.anvil.p99Ms), ratio(r.ratio), '', ''])
    } else if (r.kind === 'reference') {
      lines.push([r.label, `${int(r.stats.reqPerSec)} req/s`, ms(r.stats.p50Ms), ms(r.stats.p99Ms), '', '', '', '', '', ''])
    } else {
      lines.push([r.label, mib(r.gatewayDoubleKiB), '', '', mib(r.anvilKiB), '', '', ratio(r.ratio), '', ''])
    }
  }
  const all = [header, ...lines]
  const widths = header.map((_, i) => Math.max(...all.map((l) => l[i]!.length)))
  const right = new Set([1, 2, 3, 4, 5, 6, 7])
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd()
  const rule = widths.map((w) => '-'.repeat(w)).join('  ')
  return [fmt(header), rule, ...lines.map(fmt)].join('\n')
}
