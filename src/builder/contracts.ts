/**
 * The `contracts` section: each entry becomes creation code, runtime code and an ABI, compiled
 * from Solidity or taken as given.
 */
import { constructorOf, functionsOf, parseAbi } from './abiArgs.ts'
import type { AbiFunction } from './abiArgs.ts'
import { compileContracts } from './compile.ts'
import type { CompileRequest } from './compile.ts'
import type { SourceLocation } from './errors.ts'
import { hexAt, objectAt, optionalString, recordAt } from './fields.ts'

export interface ContractCode {
  name: string
  /** Creation bytecode, if the contract can be deployed by a transaction. */
  bytecode?: string
  /** Runtime bytecode, if the contract can be placed in genesis. */
  runtimeBytecode?: string
  /** The constructor, if the ABI declares one. (Not named `constructor`: every object has that.) */
  ctor?: AbiFunction
  /** Known functions; undefined when the ABI is unknown (calls are then not checked). */
  functions?: AbiFunction[]
  /** True when the ABI declares a fallback: any calldata is accepted. */
  hasFallback: boolean
}

const FIELDS = ['source', 'contractName', 'bytecode', 'runtimeBytecode', 'abi'] as const

export async function resolveContracts(section: unknown, baseDir: string, loc: SourceLocation, evmVersion = 'osaka'): Promise<Map<string, ContractCode>> {
  const entries = Object.entries(section === undefined ? {} : recordAt(section, loc))
  const result = new Map<string, ContractCode>()
  const requests: (CompileRequest & { name: string })[] = []
  for (const [name, value] of entries) {
    const at = loc.at(name)
    const entry = objectAt(value, FIELDS, at)
    const source = optionalString(entry, 'source', at)
    if (source !== undefined) {
      if (entry.bytecode !== undefined || entry.runtimeBytecode !== undefined || entry.abi !== undefined) {
        throw at.error('give either "source" or "bytecode"/"runtimeBytecode"/"abi", not both')
      }
      requests.push({ name, source, contractName: optionalString(entry, 'contractName', at) ?? name, loc: at })
      continue
    }
    if (entry.contractName !== undefined) throw at.error('"contractName" only applies with "source"')
    const bytecode = entry.bytecode === undefined ? undefined : hexAt(entry.bytecode, at.at('bytecode'))
    const runtimeBytecode = entry.runtimeBytecode === undefined ? undefined : hexAt(entry.runtimeBytecode, at.at('runtimeBytecode'))
    if (bytecode === undefined && runtimeBytecode === undefined) throw at.error('needs "source", "bytecode" or "runtimeBytecode"')
    const abi = entry.abi === undefined ? undefined : parseAbi(entry.abi, at.at('abi'))
    result.set(name, fromAbi(name, abi, bytecode, runtimeBytecode))
  }
  const compiled = await compileContracts(requests, baseDir, evmVersion)
  requests.forEach((r, i) => {
    const c = compiled[i]!
    result.set(r.name, fromAbi(r.name, c.abi, c.bytecode, c.runtimeBytecode))
  })
  // Keep the source's order, whatever was compiled.
  return new Map(entries.map(([name]) => [name, result.get(name)!]))
}

function fromAbi(name: string, abi: unknown[] | undefined, bytecode: string | undefined, runtimeBytecode: string | undefined): ContractCode {
  const ctor = abi === undefined ? undefined : constructorOf(abi)
  return {
    name,
    ...(bytecode === undefined ? {} : { bytecode }),
    ...(runtimeBytecode === undefined ? {} : { runtimeBytecode }),
    ...(ctor === undefined ? {} : { ctor }),
    ...(abi === undefined ? {} : { functions: functionsOf(abi) }),
    hasFallback: abi === undefined || (abi as { type: string }[]).some((item) => item.type === 'fallback'),
  }
}
