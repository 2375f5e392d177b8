/**
 * The bench's result: one table (gateway-double, Anvil, the ratio, the issue's target, met or
 * missed) for the terminal, and the same as JSON. Targets are judged here, from each row's figure
 * (`figureOf`) and its target: the line for its id in bench/targets.ts, or its own.
 */
import { TARGETS } from './targets.ts'
import type { Target } from './targets.ts'

export type { Target } from './targets.ts'

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

export interface ThroughputRow {
  kind: 'throughput'
  id: string
  label: string
  gatewayDouble: ServerStats
  anvil: ServerStats
  /** gateway-double req/s ÷ Anvil req/s. */
  ratio: number
  /** What is counted per second, when not requests (the transaction loop's `tx/s`, `deploys/s`...): printed with two significant decimals. */
  unit?: string
  /** The same load on the `--before` build, alternated with the two. */
  before?: ServerStats
  /** Its own target, when not in bench/targets.ts (the table judges; `met` is ignored). */
  target?: Target
  met?: boolean
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
  /** The `--before` build's, after the same load. */
  beforeKiB?: number
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

/**
 * Any other figure, with its unit and which way is better: a rate (tx/s, Mgas/s), a time (ms), a
 * size (MiB, KiB per block). Anvil's when it has one, the `--before` build's when measured.
 */
export interface FigureRow {
  kind: 'figure'
  id: string
  label: string
  unit: string
  better: 'higher' | 'lower'
  gatewayDouble: number | undefined
  anvil?: number | undefined
  before?: number | undefined
  /** Every sample, for the JSON. */
  samples?: { gatewayDouble: number[]; anvil?: number[]; before?: number[] }
  target?: Target
}

export type Row = ThroughputRow | ColdStartRow | MemoryRow | ReferenceRow | LatencyRow | FigureRow

/** The figure a row is judged on, Anvil's and the `--before` build's, and which way is better. */
export interface Figure {
  value: number | undefined
  anvil: number | undefined
  before: number | undefined
  better: 'higher' | 'lower'
}

export function figureOf(r: Row): Figure {
  switch (r.kind) {
    case 'throughput':
      return { value: r.gatewayDouble.reqPerSec, anvil: r.anvil.reqPerSec, before: r.before?.reqPerSec, better: 'higher' }
    case 'reference':
      return { value: r.stats.reqPerSec, anvil: undefined, before: undefined, better: 'higher' }
    case 'cold-start':
      return { value: r.gatewayDoubleMs, anvil: r.anvilMs, before: undefined, better: 'lower' }
    case 'latency':
      return { value: r.gatewayDouble.p50Ms, anvil: r.anvil.p50Ms, before: undefined, better: 'lower' }
    case 'memory':
      return { value: r.gatewayDoubleKiB / 1024, anvil: r.anvilKiB / 1024, before: r.beforeKiB === undefined ? undefined : r.beforeKiB / 1024, better: 'lower' }
    case 'figure':
      return { value: r.gatewayDouble, anvil: r.anvil, before: r.before, better: r.better }
  }
}

export interface Verdict {
  target: Target | undefined
  /** undefined: no target, or a figure it needs was not measured. */
  met: boolean | undefined
  /** For a ratio target: the ratio reached. */
  achieved?: number
}

const finite = (n: number | undefined): n is number => n !== undefined && Number.isFinite(n)

/** A row's target (its line in bench/targets.ts, or its own) judged on the figures of `rows` (the run's). */
export function judge(r: Row, rows: readonly Row[]): Verdict {
  const target = TARGETS[r.id] ?? ('target' in r ? r.target : undefined)
  if (target === undefined) return { target, met: undefined }
  const { value, anvil } = figureOf(r)
  if (target.kind === 'min-ratio' || target.kind === 'max-ratio') {
    const baseRow = target.of === undefined ? undefined : rows.find((x) => x.id === target.of)
    const base = target.of === undefined ? anvil : baseRow && figureOf(baseRow).value
    if (!finite(value) || !finite(base) || base === 0) return { target, met: undefined }
    const achieved = value / base
    return { target, achieved, met: target.kind === 'min-ratio' ? achieved >= target.value : achieved <= target.value }
  }
  if (!finite(value)) return { target, met: undefined }
  return { target, met: target.kind === 'min' ? value >= target.value : value <= target.value }
}

/** The rows with their verdicts, for the JSON. */
export function withVerdicts(rows: readonly Row[]): (Row & { target?: Target; met?: boolean; achieved?: number })[] {
  return rows.map((r) => {
    const v = judge(r, rows)
    return v.target === undefined ? r : { ...r, target: v.target, ...(v.met === undefined ? {} : { met: v.met }), ...(v.achieved === undefined ? {} : { achieved: v.achieved }) }
  })
}

/** One line: how many targets were met and missed, and which were missed. */
export function targetsLine(rows: readonly Row[]): string {
  const judged = rows.map((r) => ({ id: r.id, ...judge(r, rows) })).filter((v) => v.met !== undefined)
  const missed = judged.filter((v) => v.met === false).map((v) => v.id)
  return `targets: ${judged.length - missed.length} met, ${missed.length} missed${missed.length > 0 ? ` (${missed.join(', ')})` : ''}`
}

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-')
const ms = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? '-' : n < 10 ? `${n.toFixed(2)} ms` : n < 100 ? `${n.toFixed(1)} ms` : `${Math.round(n).toLocaleString('en-US')} ms`)
const ratio = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? '-' : n >= 100 ? `${Math.round(n)}x` : n >= 10 ? `${n.toFixed(1)}x` : `${n.toFixed(2)}x`)
const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`
const verdict = (met: boolean | undefined) => (met === undefined ? '' : met ? 'met' : 'MISSED')

const figure = (n: number | undefined, unit: string) => (!finite(n) ? '-' : `${Math.abs(n) >= 100 ? int(n) : n.toFixed(Math.abs(n) >= 10 ? 1 : 2)} ${unit}`)

/** The cells of a row up to the ratio to Anvil: label, gateway-double, p50, p99, Anvil, p50, p99, gd/Anvil. */
function cells(r: Row): string[] {
  switch (r.kind) {
    case 'throughput': {
      const flag = (s: ServerStats) => (s.failures > 0 || s.rpcErrors > 0 || s.ok < s.answered ? ' !' : '')
      const g = r.gatewayDouble
      const a = r.anvil
      const rate = (s: ServerStats) => (r.unit === undefined ? `${int(s.reqPerSec)} req/s` : figure(s.reqPerSec, r.unit)) + flag(s)
      return [r.label, rate(g), ms(g.p50Ms), ms(g.p99Ms), rate(a), ms(a.p50Ms), ms(a.p99Ms), ratio(r.ratio)]
    }
    case 'cold-start':
      return [r.label, ms(r.gatewayDoubleMs), '', '', r.anvilMs === undefined ? (r.note ?? '-') : ms(r.anvilMs), '', '', ratio(r.ratio)]
    case 'latency':
      return [r.label, `${int(r.gatewayDouble.samples)} notif.`, ms(r.gatewayDouble.p50Ms), ms(r.gatewayDouble.p99Ms), `${int(r.anvil.samples)} notif.`, ms(r.anvil.p50Ms), ms(r.anvil.p99Ms), ratio(r.ratio)]
    case 'reference':
      return [r.label, `${int(r.stats.reqPerSec)} req/s`, ms(r.stats.p50Ms), ms(r.stats.p99Ms), '', '', '', '']
    case 'memory':
      return [r.label, mib(r.gatewayDoubleKiB), '', '', mib(r.anvilKiB), '', '', ratio(r.ratio)]
    case 'figure': {
      const anvil = r.anvil === undefined ? '' : figure(r.anvil, r.unit)
      const gdOverAnvil = finite(r.gatewayDouble) && finite(r.anvil) && r.anvil !== 0 ? ratio(r.gatewayDouble / r.anvil) : ''
      return [r.label, figure(r.gatewayDouble, r.unit), '', '', anvil, '', '', gdOverAnvil]
    }
  }
}

/**
 * The table, as fixed-width text: each row's figures, the ratio to Anvil, the ratio to the
 * `--before` build when one was measured, the target and met/missed.
 */
export function formatTable(rows: readonly Row[]): string {
  const withBefore = rows.some((r) => figureOf(r).before !== undefined)
  const header = ['', 'gateway-double', 'p50', 'p99', 'Anvil', 'p50', 'p99', 'gd/Anvil', ...(withBefore ? ['new/before'] : []), 'target', '']
  const lines = rows.map((r) => {
    const { value, before } = figureOf(r)
    const v = judge(r, rows)
    const beforeCell = finite(value) && finite(before) && before !== 0 ? ratio(value / before) : ''
    // A target on another base than Anvil shows the ratio it reached.
    const targetCell = v.target === undefined ? '' : v.target.of !== undefined && v.achieved !== undefined ? `${v.target.text} (${ratio(v.achieved)})` : v.target.text
    return [...cells(r), ...(withBefore ? [beforeCell] : []), targetCell, verdict(v.met)]
  })
  const all = [header, ...lines]
  const widths = header.map((_, i) => Math.max(...all.map((l) => l[i]!.length)))
  const right = new Set([1, 2, 3, 4, 5, 6, 7, ...(withBefore ? [8] : [])])
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd()
  const rule = widths.map((w) => '-'.repeat(w)).join('  ')
  return [fmt(header), rule, ...lines.map(fmt)].join('\n')
}
