import { toQuantity } from '../../encoding/hex.ts'
import { defineMethod } from '../method.ts'
import { splitPool } from '../txpool.ts'

/** How many transactions are pending and queued (blob transactions included). */
export const txpool_status = defineMethod({
  name: 'txpool_status',
  params: [],
  async run(_params, { chain }) {
    const { pending, queued } = await splitPool(chain)
    return { pending: toQuantity(pending.length), queued: toQuantity(queued.length) }
  },
})
