/**
 * Positional parameter validation, in the manner of ethereumjs's per-position validators and
 * Hardhat's `validateParams`: each method declares one `Param` per position, and its handler
 * receives the parsed, typed values. Errors use geth's wording (`invalid argument N: ...`,
 * `missing value for required argument N`, `too many arguments, want at most N`), code -32602.
 */
import { InvalidParamsError } from './errors.ts'

export interface Param<T> {
  /** Parses the raw JSON value, or throws an `ArgumentError` saying what is wrong with it. */
  parse(value: unknown): T
  /** When set, the position may be omitted or `null`, and then takes this value. */
  readonly fallback?: { value: T }
}

/** Thrown by a `Param`'s parser; `parseParams` adds the position. */
export class ArgumentError extends Error {
  override readonly name = 'ArgumentError'
}

/** A param that may be absent; `value` is what the handler receives then. */
export function optional<T, D>(param: Param<T>, value: D): Param<T | D> {
  return { parse: (v) => param.parse(v), fallback: { value } }
}

export type ParsedParams<P extends readonly Param<unknown>[]> = {
  [K in keyof P]: P[K] extends Param<infer T> ? T : never
}

export function parseParams<const P extends readonly Param<unknown>[]>(
  raw: readonly unknown[],
  specs: P,
): ParsedParams<P> {
  if (raw.length > specs.length) {
    throw new InvalidParamsError(`too many arguments, want at most ${specs.length}`)
  }
  return specs.map((spec, i) => {
    const value = raw[i]
    if (value === undefined || value === null) {
      if (spec.fallback) return spec.fallback.value
      throw new InvalidParamsError(`missing value for required argument ${i}`)
    }
    try {
      return spec.parse(value)
    } catch (err) {
      if (err instanceof ArgumentError) {
        throw new InvalidParamsError(`invalid argument ${i}: ${err.message}`)
      }
      throw err
    }
  }) as ParsedParams<P>
}
