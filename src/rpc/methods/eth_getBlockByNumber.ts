import { renderBlock } from '../../chain/blocks/renderBlock.ts'
import { RawJson } from '../../encoding/rawJson.ts'
import { defineMethod } from '../method.ts'
import { blockNumber, bool } from '../validators.ts'

/**
 * A block by number or tag, with its transactions as hashes or (second param true) in full, or
 * null past the head. `pending` is the head: transactions are mined as they arrive.
 */
export const eth_getBlockByNumber = defineMethod({
  name: 'eth_getBlockByNumber',
  params: [blockNumber, bool],
  run([selector, full], { chain }) {
    const record = chain.resolve(selector)
    return record ? chain.renderedJson(record, full ? 'fullBlock' : 'block', () => RawJson.of(renderBlock(record, full))) : null
  },
})
