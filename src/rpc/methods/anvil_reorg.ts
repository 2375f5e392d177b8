import { hexToBytes } from '@ethereumjs/util'
import { ReorgError } from '../../chain/mining/reorg.ts'
import { anvilNumber } from '../devParams.ts'
import { InvalidParamsError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { ArgumentError, optional } from '../params.ts'
import type { Param } from '../params.ts'

interface AnvilReorg {
  depth: bigint
  /** Each transaction (raw, signed) and the new block it goes in (0: the first). */
  pairs: { raw: string; block: bigint }[]
}

const depthParam = anvilNumber(64)

/** Alloy's `txBlockPairs`: `[[tx, block], ...]`, a transaction being raw signed bytes (0x hex). */
function readPairs(v: unknown): AnvilReorg['pairs'] {
  if (v === undefined || v === null) return []
  if (!Array.isArray(v)) throw new ArgumentError(`txBlockPairs: not a list of [transaction, block] pairs: ${JSON.stringify(v)?.slice(0, 80)}`)
  return v.map((pair: unknown, i) => {
    if (!Array.isArray(pair) || pair.length !== 2) throw new ArgumentError(`txBlockPairs[${i}]: not a [transaction, block] pair`)
    const [tx, block] = pair as [unknown, unknown]
    if (typeof tx === 'object' && tx !== null) {
      throw new ArgumentError(`txBlockPairs[${i}]: a transaction request needs a signer the double does not have: give the raw signed transaction (0x hex)`)
    }
    if (typeof tx !== 'string' || !/^0[xX](?:[0-9a-fA-F]{2})+$/.test(tx)) throw new ArgumentError(`txBlockPairs[${i}]: not a raw transaction (0x hex)`)
    return { raw: tx, block: depthParam.parse(block) }
  })
}

/** Alloy's `ReorgOptions` (`{depth, txBlockPairs}`), or its fields in order (`depth, txBlockPairs`). */
const reorgOptions: Param<AnvilReorg> = {
  parse(v) {
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const o = v as Record<string, unknown>
      return { depth: depthParam.parse(o.depth), pairs: readPairs(o.txBlockPairs) }
    }
    return { depth: depthParam.parse(v), pairs: [] }
  },
}

/**
 * Anvil's reorg: the last `depth` blocks replaced by as many new ones holding only the transactions
 * given, each in the block named (0: the first new one), the others empty; the replaced blocks'
 * transactions are gone (not pooled), as on Anvil. `Chain.reorg` (docs/events.md#reorgs): safe and
 * finalized never move back, so `depth` is at most head - safe (1 on the default fixtures).
 */
export const anvil_reorg = defineMethod({
  name: 'anvil_reorg',
  params: [reorgOptions, optional({ parse: readPairs }, undefined)],
  async run([options, pairs], { chain }) {
    const given = pairs ?? options.pairs
    const depth = Number(options.depth)
    const blocks: Uint8Array[][] = Array.from({ length: Math.min(depth, 1024) }, () => [])
    for (const [i, { raw, block }] of given.entries()) {
      if (block >= options.depth) throw new InvalidParamsError(`txBlockPairs[${i}]: block ${block} is past the ${depth} new blocks`)
      blocks[Number(block)]!.push(hexToBytes(raw.toLowerCase() as `0x${string}`))
    }
    try {
      await chain.reorg({ depth, transactions: blocks, repool: false })
    } catch (err) {
      if (err instanceof ReorgError) throw new InvalidParamsError(`${err.field}: ${err.message}`)
      throw err
    }
    return null
  },
})
