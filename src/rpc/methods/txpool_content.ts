import { defineMethod } from '../method.ts'
import { bySender, splitPool } from '../txpool.ts'

/** The pool's transactions, `{pending, queued}` by sender and nonce, each as a pending eth_getTransactionByHash shows it. */
export const txpool_content = defineMethod({
  name: 'txpool_content',
  params: [],
  async run(_params, { chain }) {
    const { pending, queued } = await splitPool(chain)
    return { pending: bySender(pending, (p) => p.json), queued: bySender(queued, (p) => p.json) }
  },
})
