/**
 * `npm run bench -- --profile`: where gateway-double's server spends a row's measured rounds.
 *
 * The bench asks its server (./gatewayServer.ts, over IPC) to start V8's CPU profiler before each
 * measured round of gateway-double and to stop it after (not during the warm-up, Anvil's, the
 * reference's or --before's runs), and to write the profile as DevTools' .cpuprofile JSON (open it
 * in Chrome DevTools' Performance panel or in VS Code). This module reads those files back and
 * sums a row's rounds: self time per function, the shares of the garbage collector, (program)
 * (V8 and native work outside any JavaScript function) and (idle), and each function's self time
 * per request. The profiled process runs the build (dist/), which has no source maps: a position
 * is dist's file:line, and the module it belongs to is read from esbuild's `// src/...` comment
 * that opens each bundled module.
 */
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The fields of DevTools' .cpuprofile (V8's Profiler.Profile) this summary reads. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children?: number[] }[]
  startTime: number
  endTime: number
  samples: number[]
  timeDeltas: number[]
}

export interface ProfileLine {
  /** The function's name, `(anonymous)` when it has none. */
  name: string
  /** `module (dist/file.js:line)`, `(native)` for V8's builtins and Node's C++. */
  where: string
  selfUs: number
  /** Of the row's sampled time, 0-1. */
  share: number
  /** Self time per request (operation) of the row, in microseconds. */
  usPerOperation: number
}

export interface ProfileSummary {
  profiles: number
  /** Sampled time, every profile of the row summed (ms). */
  sampledMs: number
  samples: number
  operations: number
  /** Shares of the sampled time (0-1): the garbage collector, (program), (idle). */
  gc: number
  program: number
  idle: number
  /** Every JavaScript or native function with self time, most first (shares add up with gc + program + idle to 1). */
  functions: ProfileLine[]
}

/** A Map, not an object: a function named `toString` or `constructor` is not one of these. */
const SPECIAL = new Map<string, 'gc' | 'program' | 'idle'>([['(garbage collector)', 'gc'], ['(program)', 'program'], ['(idle)', 'idle']])

/** Throws unless `value` is a .cpuprofile with at least one sample whose nodes it names. */
export function checkProfile(value: unknown, what: string): asserts value is CpuProfile {
  const p = value as Partial<CpuProfile> | null
  if (p === null || typeof p !== 'object' || !Array.isArray(p.nodes) || !Array.isArray(p.samples) || !Array.isArray(p.timeDeltas)) {
    throw new Error(`${what}: not a CPU profile (nodes, samples and timeDeltas)`)
  }
  if (typeof p.startTime !== 'number' || typeof p.endTime !== 'number' || p.endTime < p.startTime) throw new Error(`${what}: no start and end time`)
  if (p.samples.length === 0) throw new Error(`${what}: no sample`)
  if (p.samples.length !== p.timeDeltas.length) throw new Error(`${what}: ${p.samples.length} samples but ${p.timeDeltas.length} time deltas`)
  const ids = new Set(p.nodes.map((n) => n?.id))
  const missing = p.samples.find((id) => !ids.has(id))
  if (missing !== undefined) throw new Error(`${what}: sample of node ${missing}, which is not in its nodes`)
}

/** A .cpuprofile file, checked. */
export function readProfile(file: string): CpuProfile {
  const value: unknown = JSON.parse(readFileSync(file, 'utf8'))
  checkProfile(value, file)
  return value
}

/** Where a script position is, for the reader: esbuild's module comment above it, and dist's file:line. */
function locator(root: string): (url: string, line: number) => string {
  const files = new Map<string, string[] | undefined>()
  return (url, line) => {
    if (url === '') return '(native)'
    if (!url.startsWith('file://')) return `${url}:${line + 1}`
    const path = fileURLToPath(url)
    if (!files.has(path)) {
      let lines: string[] | undefined
      try {
        lines = readFileSync(path, 'utf8').split('\n')
      } catch {
        lines = undefined
      }
      files.set(path, lines)
    }
    const lines = files.get(path)
    const shown = path.startsWith(root) ? relative(root, path) : path
    let module: string | undefined
    for (let i = Math.min(line, (lines?.length ?? 0) - 1); i >= 0; i--) {
      const m = /^\/\/ (\S+\.[cm]?[jt]sx?)$/.exec(lines![i]!)
      if (m) {
        module = m[1]
        break
      }
    }
    return module === undefined ? `${shown}:${line + 1}` : `${module} (${shown}:${line + 1})`
  }
}

/**
 * A row's profiles summed: each sample is given the time to the next (the last, to the profile's
 * end), as DevTools does; functions are told apart by name and position.
 */
export function summariseProfiles(profiles: readonly CpuProfile[], operations: number, root: string): ProfileSummary {
  if (profiles.length === 0) throw new Error('no profile to summarise')
  const where = locator(root)
  const self = new Map<string, { name: string; url: string; line: number; us: number }>()
  const special = { gc: 0, program: 0, idle: 0 }
  let total = 0
  let samples = 0
  for (const [i, p] of profiles.entries()) {
    checkProfile(p, `profile ${i + 1}`)
    const byId = new Map(p.nodes.map((n) => [n.id, n]))
    let t = p.startTime
    const times = p.timeDeltas.map((d) => (t += d))
    for (let s = 0; s < p.samples.length; s++) {
      const us = Math.max(0, (s + 1 < times.length ? times[s + 1]! : p.endTime) - times[s]!)
      const { functionName, url, lineNumber, columnNumber } = byId.get(p.samples[s]!)!.callFrame
      total += us
      samples++
      const kind = SPECIAL.get(functionName)
      if (kind !== undefined) {
        special[kind] += us
        continue
      }
      const key = `${functionName}\u0000${url}\u0000${lineNumber}\u0000${columnNumber}`
      const entry = self.get(key) ?? { name: functionName === '' ? '(anonymous)' : functionName, url, line: lineNumber, us: 0 }
      entry.us += us
      self.set(key, entry)
    }
  }
  if (total <= 0) throw new Error('the profiles hold no sampled time')
  const functions = [...self.values()]
    .sort((a, b) => b.us - a.us)
    .map((f) => ({ name: f.name, where: where(f.url, f.line), selfUs: f.us, share: f.us / total, usPerOperation: operations > 0 ? f.us / operations : Number.NaN }))
  return {
    profiles: profiles.length,
    sampledMs: total / 1000,
    samples,
    operations,
    gc: special.gc / total,
    program: special.program / total,
    idle: special.idle / total,
    functions,
  }
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`

/** The printed summary of one row: a heading, the `top` functions by self time, the rest summed. */
export function formatProfileSummary(rowId: string, s: ProfileSummary, files: readonly string[], unit = 'req', top = 12): string {
  const busy = 1 - s.idle
  const perOp = (us: number) => (s.operations > 0 ? (us / s.operations).toFixed(2) : 'n/a')
  const totalUs = s.sampledMs * 1000
  const lines = [
    `${rowId}: ${s.profiles} profiled round${s.profiles === 1 ? '' : 's'}, ${Math.round(s.sampledMs).toLocaleString('en-US')} ms sampled (${s.samples.toLocaleString('en-US')} samples), ` +
      `${s.operations.toLocaleString('en-US')} ${unit}s answered: busy ${pct(busy)} = ${perOp(busy * totalUs)} us/${unit}, ` +
      `GC ${pct(s.gc)} (${perOp(s.gc * totalUs)} us/${unit}), (program) ${pct(s.program)} (${perOp(s.program * totalUs)} us/${unit}), (idle) ${pct(s.idle)}`,
    `   self   us/${unit.padEnd(4)} function                                  where`,
  ]
  for (const f of s.functions.slice(0, top)) {
    lines.push(`  ${pct(f.share).padStart(6)} ${(Number.isNaN(f.usPerOperation) ? 'n/a' : f.usPerOperation.toFixed(2)).padStart(8)}  ${f.name.slice(0, 40).padEnd(40)}  ${f.where}`)
  }
  const rest = s.functions.slice(top)
  if (rest.length > 0) {
    const us = rest.reduce((n, f) => n + f.selfUs, 0)
    lines.push(`  ${pct(us / totalUs).padStart(6)} ${perOp(us).padStart(8)}  (${rest.length} other functions)`)
  }
  lines.push(`  files: ${files.join(', ')}`)
  return lines.join('\n')
}
