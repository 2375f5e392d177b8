import { toChecksumAddress } from '@ethereumjs/util'
import type { PendingTransaction } from '../../chain/chain.ts'
import { defineMethod } from '../method.ts'
import { bySender, splitPool } from '../txpool.ts'

/** geth's one-line summary of a pooled transaction (the fee cap stands for the price of a dynamic-fee one). */
function summary(p: PendingTransaction): string {
  const tx = p.tx
  const price = 'maxFeePerGas' in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice
  const target = tx.to ? toChecksumAddress(tx.to.toString()) : 'contract creation'
  return `${target}: ${tx.value} wei + ${tx.gasLimit} gas × ${price} wei`
}

/** The pool's transactions as text, `{pending, queued}` by sender and nonce. */
export const txpool_inspect = defineMethod({
  name: 'txpool_inspect',
  params: [],
  async run(_params, { chain }) {
    const { pending, queued } = await splitPool(chain)
    return { pending: bySender(pending, summary), queued: bySender(queued, summary) }
  },
})
