import { jsonText } from '../../encoding/jsonText.ts'
import { feeHistory, FeeHistoryError } from '../../chain/fees/feeHistory.ts'
import { ServerError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { ArgumentError, optional } from '../params.ts'
import type { Param } from '../params.ts'
import { blockNumber } from '../validators.ts'

/** geth's `math.HexOrDecimal64`: a hex or decimal string, or a bare JSON integer. */
const hexOrDecimal64: Param<bigint> = {
  parse(v) {
    // geth reads the param's JSON text; `jsonText` writes it without recursion (a client may nest 10,000 deep).
    const text = typeof v === 'string' ? v : jsonText(v)
    let n: bigint | undefined
    if (text === '') n = 0n
    else if (/^0[xX][0-9a-fA-F]+$/.test(text)) n = BigInt(`0x${text.slice(2)}`)
    else if (/^[0-9]+$/.test(text)) n = BigInt(text)
    if (n === undefined || n >> 64n !== 0n) throw new ArgumentError(`invalid hex or decimal integer ${JSON.stringify(text)}`)
    return n
  },
}

/** A JSON array of numbers (Go's `[]float64`). */
const percentiles: Param<number[]> = {
  parse(v) {
    if (!Array.isArray(v)) {
      throw new ArgumentError(`json: cannot unmarshal ${typeof v === 'object' ? 'object' : typeof v} into Go value of type []float64`)
    }
    return v.map((p) => {
      if (typeof p !== 'number') {
        const kind = Array.isArray(p) ? 'array' : p === null ? 'null' : typeof p === 'object' ? 'object' : typeof p
        if (kind === 'null') return 0
        throw new ArgumentError(`json: cannot unmarshal ${kind} into Go value of type float64`)
      }
      return p
    })
  },
}

/**
 * Base fees, gas used ratios, blob base fees and blob gas used ratios of up to 1024 blocks ending
 * at a block, and (with percentiles) the effective tips at those percentiles of each block's gas:
 * geth's shape, computed from the blocks and receipts the chain kept (see chain/feeHistory.ts).
 */
export const eth_feeHistory = defineMethod({
  name: 'eth_feeHistory',
  params: [hexOrDecimal64, blockNumber, optional(percentiles, undefined)],
  run([count, end, rewardPercentiles], { chain }) {
    try {
      return feeHistory(chain, count, end, rewardPercentiles)
    } catch (err) {
      if (err instanceof FeeHistoryError) throw new ServerError(err.message)
      throw err
    }
  },
})
