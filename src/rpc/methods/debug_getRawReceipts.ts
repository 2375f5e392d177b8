import { rawReceipts } from '../../chain/blocks/rawEncoding.ts'
import { toData } from '../../encoding/hex.ts'
import { defineMethod } from '../method.ts'
import { blockNumberOrHash } from '../validators.ts'

/**
 * A block's receipts in their consensus encoding, in order; `null` past the head, `[]` for an
 * unknown hash (geth finds no receipts there, which is no error).
 */
export const debug_getRawReceipts = defineMethod({
  name: 'debug_getRawReceipts',
  params: [blockNumberOrHash],
  run([selector], { chain }) {
    const record = chain.resolve(selector)
    if (!record) return selector.kind === 'hash' ? [] : null
    return rawReceipts(record).map(toData)
  },
})
