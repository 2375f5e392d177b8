/**
 * eth_simulateV1's first param, geth's `simOpts`, decoded as Go decodes it: `blockStateCalls`
 * (each with `blockOverrides`, `stateOverrides`, `calls`), `traceTransfers`, `validation`,
 * `returnFullTransactions`; keys matched case-insensitively, unknown keys ignored.
 */
import type { SimBlockInput } from '../chain/simulate/types.ts'
import { parseCallArgs } from './callObject.ts'
import { GoFields } from './goFields.ts'
import { parseBlockOverrides, parseStateOverride } from './overrides.ts'
import type { Param } from './params.ts'

export interface SimulateParams {
  blocks: SimBlockInput[]
  traceTransfers: boolean
  validation: boolean
  returnFullTransactions: boolean
}

function simBlock(v: unknown): SimBlockInput {
  const f = new GoFields(v ?? {}, 'simBlock', 'ethapi.simBlock')
  const block: SimBlockInput = { calls: (f.list('calls', '[]ethapi.TransactionArgs') ?? []).map((c) => parseCallArgs(c ?? {})) }
  const blockOverrides = parseBlockOverrides(f.get('blockOverrides'))
  if (blockOverrides !== undefined) block.blockOverrides = blockOverrides
  const stateOverrides = parseStateOverride(f.get('stateOverrides'))
  if (stateOverrides !== undefined) block.stateOverrides = stateOverrides
  return block
}

export const simulateOptions: Param<SimulateParams> = {
  parse(v) {
    const f = new GoFields(v, 'simOpts', 'ethapi.simOpts')
    return {
      blocks: (f.list('blockStateCalls', '[]ethapi.simBlock') ?? []).map(simBlock),
      traceTransfers: f.bool('traceTransfers') ?? false,
      validation: f.bool('validation') ?? false,
      returnFullTransactions: f.bool('returnFullTransactions') ?? false,
    }
  },
}
