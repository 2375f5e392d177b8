/**
 * Solidity compilation with solc-js, with every setting that changes bytecode pinned, so a
 * fixture's bytes depend only on its sources.
 */
import { readFileSync } from 'node:fs'
import { relative, resolve, sep } from 'node:path'
import type { SourceLocation } from './errors.ts'

/** ABI and bytecode of one compiled contract, as solc reports them. */
export interface CompiledContract {
  abi: unknown[]
  /** Creation bytecode, hex with 0x. */
  bytecode: string
  /** Runtime bytecode, hex with 0x. */
  runtimeBytecode: string
}

/**
 * Settings fixed here rather than left to solc's defaults:
 * - `evmVersion`: solc 0.8.37 defaults to the newest fork; pinning keeps bytecode stable across solc upgrades
 *   (the scenario's `hardfork`, osaka unless it names another);
 * - `metadata.bytecodeHash: none`: the default IPFS hash covers source text and paths, so a
 *   checkout with other line endings would give other bytecode and other state roots.
 */
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'osaka',
  metadata: { bytecodeHash: 'none' },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string; sourceLocation?: { file: string } }[]
  contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>
}

/** Compiling the same input twice gives the same output, and takes a second: keep it. */
const cache = new Map<string, SolcOutput>()

/** A contract to compile: its source file (relative to `baseDir`) and contract name, and where the request came from. */
export interface CompileRequest {
  source: string
  contractName: string
  loc: SourceLocation
}

/**
 * Compiles every requested contract in one solc run. Source unit names are the paths relative to
 * `baseDir` with `/` separators, as imports between the files refer to them.
 */
export async function compileContracts(requests: CompileRequest[], baseDir: string, evmVersion = 'osaka'): Promise<CompiledContract[]> {
  if (requests.length === 0) return []
  const sources: Record<string, { content: string }> = {}
  for (const { source, loc } of requests) {
    const unit = unitName(source, baseDir, loc)
    sources[unit] ??= { content: readSource(resolve(baseDir, source), loc) }
  }
  const input = JSON.stringify({ language: 'Solidity', sources, settings: { ...SETTINGS, evmVersion } })
  let output = cache.get(input)
  if (output === undefined) {
    const { default: solc } = await import('solc')
    const findImports = (path: string) => {
      try {
        return { contents: readFileSync(resolve(baseDir, path), 'utf8') }
      } catch {
        return { error: `file not found: ${path} (imports resolve relative to ${baseDir})` }
      }
    }
    output = JSON.parse(solc.compile(input, { import: findImports })) as SolcOutput
    cache.set(input, output)
  }
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  return requests.map(({ source, contractName, loc }) => {
    const unit = unitName(source, baseDir, loc)
    const own = errors.filter((e) => e.sourceLocation === undefined || e.sourceLocation.file === unit)
    if (own.length > 0) throw loc.error(`solc failed:\n${own.map((e) => e.formattedMessage).join('\n')}`)
    const compiled = output.contracts?.[unit]?.[contractName]
    if (compiled === undefined) {
      const found = Object.keys(output.contracts?.[unit] ?? {})
      throw loc.error(`no contract "${contractName}" in ${source} (found: ${found.join(', ') || 'none'})`)
    }
    if (compiled.evm.bytecode.object === '') throw loc.error(`"${contractName}" is abstract or an interface: it has no bytecode`)
    return {
      abi: compiled.abi,
      bytecode: `0x${compiled.evm.bytecode.object}`,
      runtimeBytecode: `0x${compiled.evm.deployedBytecode.object}`,
    }
  })
}

function unitName(source: string, baseDir: string, loc: SourceLocation): string {
  const rel = relative(baseDir, resolve(baseDir, source))
  if (rel.startsWith('..')) throw loc.error(`source "${source}" must be inside the scenario's folder`)
  return rel.split(sep).join('/')
}

function readSource(path: string, loc: SourceLocation): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    throw loc.error(`cannot read Solidity source ${path}`)
  }
}
