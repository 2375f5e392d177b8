/**
 * Shape checks for source objects. A fixture source is user input: every entry is checked for
 * unknown keys (a typo like `expectedRevert` must not be silently ignored) and field types.
 */
import { DATA_RE } from '../encoding/hex.ts'
import type { SourceLocation } from './errors.ts'

/** The object at `loc`, after checking it has no keys besides `allowed` (and `comment`). */
export function objectAt(value: unknown, allowed: readonly string[], loc: SourceLocation): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw loc.error(`expected an object, got ${JSON.stringify(value)}`)
  }
  for (const key of Object.keys(value)) {
    if (key !== 'comment' && !allowed.includes(key)) {
      throw loc.at(key).error(`unknown field "${key}" (allowed: ${allowed.join(', ')}, comment)`)
    }
  }
  return value as Record<string, unknown>
}

export function optionalString(obj: Record<string, unknown>, key: string, loc: SourceLocation): string | undefined {
  const value = obj[key]
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw loc.at(key).error(`expected a string, got ${JSON.stringify(value)}`)
  return value
}

export function requiredString(obj: Record<string, unknown>, key: string, loc: SourceLocation): string {
  const value = optionalString(obj, key, loc)
  if (value === undefined) throw loc.error(`"${key}" is required`)
  return value
}

export function optionalInteger(obj: Record<string, unknown>, key: string, loc: SourceLocation): number | undefined {
  const value = obj[key]
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw loc.at(key).error(`expected a non-negative integer, got ${JSON.stringify(value)}`)
  }
  return value
}

export function requiredInteger(obj: Record<string, unknown>, key: string, loc: SourceLocation): number {
  const value = optionalInteger(obj, key, loc)
  if (value === undefined) throw loc.error(`"${key}" is required`)
  return value
}

export function arrayAt(value: unknown, loc: SourceLocation): unknown[] {
  if (!Array.isArray(value)) throw loc.error(`expected an array, got ${JSON.stringify(value)}`)
  return value
}

/** `0x` hex of whole bytes, optionally of an exact length. */
export function hexAt(value: unknown, loc: SourceLocation, bytes?: number): string {
  const re = bytes === undefined ? DATA_RE : new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`)
  if (typeof value !== 'string' || !re.test(value)) {
    throw loc.error(`expected 0x hex${bytes === undefined ? '' : ` of ${bytes} bytes`}, got ${JSON.stringify(value)}`)
  }
  return value.toLowerCase()
}

/** An object whose keys are names chosen by the user (accounts, contracts). */
export function recordAt(value: unknown, loc: SourceLocation): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw loc.error(`expected an object of named entries, got ${JSON.stringify(value)}`)
  }
  return value as Record<string, unknown>
}
