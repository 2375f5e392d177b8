import { renderBlock } from '../../chain/blocks/renderBlock.ts'
import { RawJson } from '../../encoding/rawJson.ts'
import { defineMethod } from '../method.ts'
import { hash, bool } from '../validators.ts'

/** A block by hash, with its transactions as hashes or (second param true) in full, or null. */
export const eth_getBlockByHash = defineMethod({
  name: 'eth_getBlockByHash',
  params: [hash, bool],
  run([blockHash, full], { chain }) {
    const record = chain.byHash(blockHash)
    return record ? chain.renderedJson(record, full ? 'fullBlock' : 'block', () => RawJson.of(renderBlock(record, full))) : null
  },
})
