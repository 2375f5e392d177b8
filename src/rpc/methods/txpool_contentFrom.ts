import { defineMethod } from '../method.ts'
import { byNonce, splitPool } from '../txpool.ts'
import { address } from '../validators.ts'

/** One sender's pooled transactions, `{pending, queued}` by nonce. */
export const txpool_contentFrom = defineMethod({
  name: 'txpool_contentFrom',
  params: [address],
  async run([from], { chain }) {
    const { pending, queued } = await splitPool(chain, from)
    return { pending: byNonce(pending, (p) => p.json), queued: byNonce(queued, (p) => p.json) }
  },
})
