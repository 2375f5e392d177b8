import { toData } from '../../encoding/hex.ts'
import { defineMethod } from '../method.ts'
import { rawRecord } from '../rawBlocks.ts'
import { blockNumberOrHash } from '../validators.ts'

/** The RLP of a block's header, `null` past the head. */
export const debug_getRawHeader = defineMethod({
  name: 'debug_getRawHeader',
  params: [blockNumberOrHash],
  run([selector], { chain }) {
    const record = rawRecord(chain, selector, 'header')
    return record ? toData(record.block.header.serialize()) : null
  },
})
