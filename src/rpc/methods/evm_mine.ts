import { checkAfterHead, MAX_BLOCKS_PER_CALL } from '../dev.ts'
import { anvilNumber } from '../devParams.ts'
import { InvalidParamsError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { optional } from '../params.ts'
import type { Param } from '../params.ts'

const timestamp = anvilNumber(64)

interface MineOptions {
  timestamp?: bigint
  blocks?: bigint
}

const NO_OPTIONS: MineOptions = {}

/** Anvil's `MineOptions`: a timestamp, or `{timestamp?, blocks?}`. */
const mineOptions: Param<MineOptions> = {
  parse(v) {
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const o = v as Record<string, unknown>
      return {
        ...(o.timestamp === undefined || o.timestamp === null ? {} : { timestamp: timestamp.parse(o.timestamp) }),
        ...(o.blocks === undefined || o.blocks === null ? {} : { blocks: anvilNumber(64).parse(o.blocks) }),
      }
    }
    return { timestamp: timestamp.parse(v) }
  },
}

/**
 * Mines a block with the pooled transactions (an empty one if none), whatever the mining mode; with
 * a timestamp, at that time (after the head's), and `blocks` of them (the first at the timestamp).
 * Answers `0x0`, as Anvil does.
 */
export const evm_mine = defineMethod({
  name: 'evm_mine',
  params: [optional(mineOptions, NO_OPTIONS)],
  async run([opts], { chain }) {
    const blocks = opts.blocks ?? 1n
    if (blocks > BigInt(MAX_BLOCKS_PER_CALL)) throw new InvalidParamsError(`blocks: at most ${MAX_BLOCKS_PER_CALL} per call, got ${blocks}`)
    if (opts.timestamp !== undefined) checkAfterHead(chain, opts.timestamp)
    for (let i = 0n; i < blocks; i++) await chain.mine(i === 0n && opts.timestamp !== undefined ? { timestamp: opts.timestamp } : {})
    return '0x0'
  },
})
