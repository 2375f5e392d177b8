import { toData } from '../../encoding/hex.ts'
import { defineMethod } from '../method.ts'
import { rawRecord } from '../rawBlocks.ts'
import { blockNumberOrHash } from '../validators.ts'

/** The RLP of a block (header, transactions, uncles, withdrawals), `null` past the head. */
export const debug_getRawBlock = defineMethod({
  name: 'debug_getRawBlock',
  params: [blockNumberOrHash],
  run([selector], { chain }) {
    const record = rawRecord(chain, selector, 'block')
    return record ? toData(record.block.serialize()) : null
  },
})
