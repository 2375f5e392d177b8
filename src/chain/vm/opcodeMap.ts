/**
 * EthereumJS's opcode table, which the wrappers that watch an execution (gas dependence, the
 * execution guard) replace entries of. It is internal to the EVM (element access); the
 * interpreter looks each opcode's handlers up in it as it runs, so a replaced entry takes effect
 * for every later execution of that VM.
 */
import type { VM } from '@ethereumjs/vm'

export type OpHandler = (...args: unknown[]) => unknown

export interface OpcodeEntry {
  readonly opcodeInfo: { readonly isAsync: boolean }
  readonly opHandler: OpHandler
  readonly gasHandler?: OpHandler
}

const INVALID = 0xfe

export function opcodeMap(vm: VM): OpcodeEntry[] {
  return (vm.evm as unknown as { _opcodeMap: OpcodeEntry[] })._opcodeMap
}

/** Replaces the entries of `ops` that the VM's fork has (not those mapped to INVALID) with what `wrap` makes of each. */
export function wrapOpcodes(vm: VM, ops: readonly number[], wrap: (entry: OpcodeEntry) => OpcodeEntry): void {
  const map = opcodeMap(vm)
  const invalid = map[INVALID]
  for (const op of ops) {
    const entry = map[op]
    if (entry === undefined || entry === invalid) continue
    map[op] = wrap(entry)
  }
}
