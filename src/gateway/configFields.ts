/**
 * The checks a config file's fields go through: each failure a `ConfigError` naming the field
 * (`keys[0].dailyCredits: must be a positive integer, got 0`).
 */

export class ConfigError extends Error {
  override readonly name = 'ConfigError'
}

export function fail(where: string, message: string): never {
  throw new ConfigError(`${where}: ${message}`)
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

export function expectRecord(v: unknown, where: string): Record<string, unknown> {
  if (!isRecord(v)) fail(where, `must be an object, got ${describe(v)}`)
  return v
}

export function onlyFields(obj: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const name of Object.keys(obj)) {
    if (!allowed.includes(name)) fail(`${where}.${name}`, `unknown field (allowed: ${allowed.join(', ')})`)
  }
}

export function describe(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'string') return JSON.stringify(v)
  return typeof v === 'object' ? 'an object' : String(v)
}

export function expectString(v: unknown, where: string): string {
  if (typeof v !== 'string' || v.length === 0) fail(where, `must be a non-empty string, got ${describe(v)}`)
  return v
}

export function expectStringList(v: unknown, where: string, max = Infinity): string[] {
  if (!Array.isArray(v)) fail(where, `must be an array of strings, got ${describe(v)}`)
  if (v.length > max) fail(where, `at most ${max} entries, got ${v.length}`)
  return v.map((item, i) => expectString(item, `${where}[${i}]`))
}

export function expectPositiveInteger(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) {
    fail(where, `must be a positive integer, got ${describe(v)}`)
  }
  return v
}

