/**
 * The tracers a trace request can name, with their configurations checked as geth decodes them:
 * the struct logger (no `tracer`), `callTracer`, `prestateTracer`, and geth's `noopTracer`. Any
 * other name is refused: geth would run it as JavaScript, which the double does not.
 */
import { CallTracer } from './callTracer.ts'
import type { TracerFactory } from './hooks.ts'
import { PrestateTracer } from './prestateTracer.ts'
import { TraceError } from './replay.ts'
import { StructLogger } from './structLogger.ts'
import type { StructLoggerConfig } from './structLogger.ts'

export interface TraceRequest {
  /** The tracer's name; undefined or empty: the struct logger. */
  tracer?: string
  /** `tracerConfig` as sent (JSON). */
  tracerConfig?: unknown
  logger: StructLoggerConfig
}

export const TRACERS = ['callTracer', 'prestateTracer', 'noopTracer'] as const

/** Makes the request's tracer factory, or throws `TraceError` with geth's words for a bad config. */
export function tracerFactory(request: TraceRequest): TracerFactory {
  const name = request.tracer
  if (name === undefined || name === '') return (budget) => new StructLogger(request.logger, budget)
  switch (name) {
    case 'callTracer': {
      const c = booleans(request.tracerConfig, 'callTracerConfig', ['onlyTopCall', 'withLog'])
      return (budget) => new CallTracer({ onlyTopCall: c.onlyTopCall ?? false, withLog: c.withLog ?? false }, budget)
    }
    case 'prestateTracer': {
      const c = booleans(request.tracerConfig, 'PrestateTracerConfig', ['diffMode', 'disableCode', 'disableStorage', 'includeEmpty'])
      if (c.diffMode && c.includeEmpty) throw new TraceError('cannot use diffMode with includeEmpty')
      const config = { diffMode: c.diffMode ?? false, disableCode: c.disableCode ?? false, disableStorage: c.disableStorage ?? false, includeEmpty: c.includeEmpty ?? false }
      return (budget) => new PrestateTracer(config, budget)
    }
    case 'noopTracer':
      return () => ({ result: () => '{}' })
    default:
      throw new TraceError(
        `tracer ${JSON.stringify(name)} is not supported by this double: the struct logger (no "tracer"), ${TRACERS.map((t) => `"${t}"`).join(', ')}; JavaScript tracers are not run`,
      )
  }
}

/** A tracer config of boolean fields, as Go's `json.Unmarshal` into its struct takes it (unknown fields ignored). */
function booleans<K extends string>(config: unknown, goType: string, keys: readonly K[]): Partial<Record<K, boolean>> {
  if (config === undefined || config === null) return {}
  if (typeof config !== 'object' || Array.isArray(config)) {
    throw new TraceError(`json: cannot unmarshal ${Array.isArray(config) ? 'array' : typeof config} into Go value of type native.${goType}`)
  }
  const out: Partial<Record<K, boolean>> = {}
  for (const key of keys) {
    const value = (config as Record<string, unknown>)[key]
    if (value === undefined || value === null) continue
    if (typeof value !== 'boolean') {
      throw new TraceError(`json: cannot unmarshal ${typeof value === 'object' ? (Array.isArray(value) ? 'array' : 'object') : typeof value} into Go struct field ${goType}.${key} of type bool`)
    }
    out[key] = value
  }
  return out
}
