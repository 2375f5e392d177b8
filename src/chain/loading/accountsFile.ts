/**
 * A fixture folder's optional `accounts.json`, as the fixture builder writes it (`gateway-double
 * build`, a source served directly, a capture): the names of the chain's accounts and contracts.
 * The loader keeps the contracts' addresses by name, so that whoever serves the chain can say
 * where they are (the start banner, the control API's network info) without the user opening
 * the file. A folder without the file (geth's, hive's) has no names.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FixtureError } from './fixtureFiles.ts'

const ADDRESS = /^0x[0-9a-fA-F]{40}$/

/** The contracts of `dir/accounts.json` by name (empty without the file); a malformed file is a FixtureError. */
export function readContractNames(dir: string, name: string): Readonly<Record<string, string>> {
  const path = join(dir, 'accounts.json')
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return {}
  }
  const fail = (field: string, what: string): never => {
    throw new FixtureError(`fixture ${name}: ${path}: ${field}: ${what}`)
  }
  let file: unknown
  try {
    file = JSON.parse(text)
  } catch (err) {
    return fail('(file)', `not valid JSON (${(err as Error).message})`)
  }
  if (typeof file !== 'object' || file === null || Array.isArray(file)) return fail('(file)', 'must be an object')
  const contracts = (file as { contracts?: unknown }).contracts
  if (contracts === undefined) return {}
  if (!Array.isArray(contracts)) return fail('contracts', 'must be an array')
  const names: Record<string, string> = {}
  contracts.forEach((entry: unknown, i) => {
    const { name: contract, address } = (typeof entry === 'object' && entry !== null ? entry : {}) as { name?: unknown; address?: unknown }
    if (typeof contract !== 'string' || contract === '') fail(`contracts[${i}].name`, 'must be a non-empty string')
    if (typeof address !== 'string' || !ADDRESS.test(address)) fail(`contracts[${i}].address`, 'must be a 20-byte hex address')
    names[contract as string] = (address as string).toLowerCase()
  })
  return names
}
