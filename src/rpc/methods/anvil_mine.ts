import { MAX_BLOCKS_PER_CALL } from '../dev.ts'
import { anvilNumber } from '../devParams.ts'
import { InvalidParamsError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { optional } from '../params.ts'

/**
 * Mines `count` blocks (default 1), the first with the pooled transactions; with `interval`, the
 * chain's clock moves that many seconds before each, so they are that far apart (and later blocks
 * go on from there), as Anvil does. At most 10,000 blocks per call.
 */
export const anvil_mine = defineMethod({
  name: 'anvil_mine',
  params: [optional(anvilNumber(64), 1n), optional(anvilNumber(64), 0n)],
  async run([count, interval], { chain }) {
    if (count > BigInt(MAX_BLOCKS_PER_CALL)) throw new InvalidParamsError(`at most ${MAX_BLOCKS_PER_CALL} blocks per call, got ${count}`)
    await chain.mineBlocks(Number(count), interval)
    return null
  },
})
