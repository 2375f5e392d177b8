/**
 * A code's jump-destination analysis, kept on the EVM that made it (see ./interpreterPatch.ts).
 *
 * EthereumJS analyses a code at the first jump of every frame that runs it: the valid jump
 * destinations, the value of every PUSH (as a bigint) and the opcode table's entry for every
 * opcode, a loop over the whole code with an allocation per PUSH. A token's 2-4 KB of code is
 * analysed again for every call of every transaction. The analysis depends only on the code and
 * the EVM's opcode table, and nothing writes to it while it runs (the interpreter only reads the
 * three), so one analysis serves every frame of that code on that EVM. Kept by content (a code
 * read again from the state is a new array), dropped with the EVM, when its opcode table is
 * replaced (EthereumJS makes a new one when the hardfork changes) or any entry of it is (the
 * execution guard, the gas trace and the tracers wrap entries, the tracers for one execution:
 * the table is compared with the one the analyses were made with, 256 entries, at every frame),
 * and started over past `ANALYSES_BYTE_LIMIT`. A code array seen before is looked up by itself
 * first: the state hands out the array its database holds, the same one call after call (a
 * token's code, 600 frames of 600 distinct eth_calls), where making the content's key copies the
 * code into a string and hashes it at every frame. Nothing writes into a code array (the
 * interpreter, the state and the database only read it), so the array keeps its content.
 */

export interface OpEntry {
  readonly opcodeInfo: { readonly code: number; readonly isAsync: boolean; readonly dynamicGas: boolean; readonly isInvalid: boolean; readonly feeBigInt: bigint }
  readonly opHandler: (...args: unknown[]) => unknown
  readonly gasHandler?: (...args: unknown[]) => unknown
}

export interface Analysis {
  readonly jumps: Uint8Array
  readonly pushes: Record<number, bigint>
  readonly opcodesCached: (OpEntry | undefined)[]
}

/**
 * The bytes the kept analyses may weigh together, per EVM: about 16 bytes per code byte (the
 * entries' array, the jump table, the pushes), so about 4 MiB of code.
 */
export const ANALYSES_BYTE_LIMIT = 64 * 1024 * 1024
const BYTES_PER_CODE_BYTE = 16

const ANALYSES = Symbol('gateway-double.codeAnalyses')

interface KeptAnalyses {
  readonly table: readonly OpEntry[]
  /** The table's entries when the analyses were made. */
  readonly entries: readonly OpEntry[]
  readonly byCode: Map<string, Analysis>
  /** The same analyses by the code arrays they were asked for (no weight of their own). */
  byArray: WeakMap<Uint8Array, Analysis>
  bytes: number
}

interface AnalysingInterpreter {
  readonly _evm: { _opcodeMap: OpEntry[]; [ANALYSES]?: KeptAnalyses | undefined }
  _getValidJumpDestinations(code: Uint8Array): Analysis
}

/** The analysis of `code` for the interpreter's EVM: kept, or made (by EthereumJS) and kept. */
export function codeAnalysis(interpreter: AnalysingInterpreter, code: Uint8Array): Analysis {
  const evm = interpreter._evm
  let kept = evm[ANALYSES]
  if (kept === undefined || !sameTable(kept, evm._opcodeMap)) {
    kept = { table: evm._opcodeMap, entries: [...evm._opcodeMap], byCode: new Map(), byArray: new WeakMap(), bytes: 0 }
    evm[ANALYSES] = kept
  }
  const known = kept.byArray.get(code)
  if (known !== undefined) return known
  const key = Buffer.from(code.buffer, code.byteOffset, code.byteLength).toString('latin1')
  let analysis = kept.byCode.get(key)
  if (analysis === undefined) {
    analysis = interpreter._getValidJumpDestinations(code)
    const bytes = code.length * BYTES_PER_CODE_BYTE
    if (kept.bytes + bytes > ANALYSES_BYTE_LIMIT) {
      kept.byCode.clear()
      kept.byArray = new WeakMap()
      kept.bytes = 0
    }
    kept.byCode.set(key, analysis)
    kept.bytes += bytes
  }
  kept.byArray.set(code, analysis)
  return analysis
}

/**
 * The analysis of `code` when one is already kept for the interpreter's EVM (looked up by the
 * array, as `codeAnalysis` does first), else undefined: nothing is made. A frame can take it from
 * its first step (./interpreterPatch.ts): EthereumJS analyses a code at its first jump, and a
 * kept analysis of the same code and table is what that jump would read, so only the steps before
 * it change, from the opcode looked up and each PUSH's bytes read as a number (`bytesToBigInt`,
 * through a hex string) to the entries and values the analysis holds.
 */
export function keptAnalysis(interpreter: AnalysingInterpreter, code: Uint8Array): Analysis | undefined {
  const evm = interpreter._evm
  const kept = evm[ANALYSES]
  if (kept === undefined) return undefined
  const known = kept.byArray.get(code)
  return known !== undefined && sameTable(kept, evm._opcodeMap) ? known : undefined
}

function sameTable(kept: KeptAnalyses, table: readonly OpEntry[]): boolean {
  if (kept.table !== table || kept.entries.length !== table.length) return false
  for (let op = 0; op < table.length; op++) if (kept.entries[op] !== table[op]) return false
  return true
}
