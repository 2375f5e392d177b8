/**
 * Reads execution-apis `.io` fixtures and applies hive's comparison rules (the README beside them):
 * exact match with free key order; `error.message` dropped when both sides carry one; with a
 * `// speconly:` header only the result's schema is checked, but an error is compared in full.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

export const EXECUTION_APIS = resolve(import.meta.dirname, '../../../shared/conformance/execution-apis')
export const HIVE_TESTS = join(EXECUTION_APIS, 'tests')
export const hasSharedFixtures = existsSync(join(HIVE_TESTS, 'chain.rlp'))

export interface HiveExchange {
  request: string
  response: string
}

export interface HiveCase {
  method: string
  name: string
  speconly: boolean
  exchanges: HiveExchange[]
}

export function readHiveCases(method: string): HiveCase[] {
  const dir = join(HIVE_TESTS, method)
  return readdirSync(dir)
    .filter((f) => f.endsWith('.io'))
    .sort()
    .map((file) => {
      const lines = readFileSync(join(dir, file), 'utf8').split('\n')
      const exchanges: HiveExchange[] = []
      let speconly = false
      for (const line of lines) {
        if (line.startsWith('// speconly')) speconly = true
        else if (line.startsWith('>> ')) exchanges.push({ request: line.slice(3), response: '' })
        else if (line.startsWith('<< ')) exchanges[exchanges.length - 1]!.response = line.slice(3)
      }
      return { method, name: file.replace(/\.io$/, ''), speconly, exchanges }
    })
}

type Json = Record<string, unknown>

/** What hive compares: the expected and actual responses, each reduced by its rules. */
export function hiveComparable(expected: Json, actual: Json, speconly: boolean): { expected: Json; actual: Json } {
  const e = structuredClone(expected)
  const a = structuredClone(actual)
  const ee = e.error as Json | undefined
  const ae = a.error as Json | undefined
  if (ee && ae && 'message' in ee && 'message' in ae) {
    delete ee.message
    delete ae.message
  }
  if (speconly && !ee && !ae) {
    // Only the result's presence and schema count: compare the shape, not the value.
    e.result = schemaOf(e.result)
    a.result = schemaOf(a.result)
  }
  return { expected: e, actual: a }
}

function schemaOf(value: unknown): unknown {
  if (typeof value === 'string') return /^0x(?:0|[1-9a-f][0-9a-f]*)$/.test(value) ? 'QUANTITY' : /^0x([0-9a-f]{2})*$/.test(value) ? 'DATA' : 'string'
  if (Array.isArray(value)) return value.map(schemaOf)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, schemaOf(v)]))
  return value === null ? null : typeof value
}
