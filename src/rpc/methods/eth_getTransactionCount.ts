import { createAddressFromString } from '@ethereumjs/util'
import { toQuantity } from '../../encoding/hex.ts'
import { defineMethod } from '../method.ts'
import { optional } from '../params.ts'
import { address, blockNumberOrHash } from '../validators.ts'
import { LATEST, stateRecord } from '../blocks.ts'

/**
 * The nonce of an account at a block (default `latest`). `pending` is geth's pending nonce: the
 * head's, raised by the account's pooled transactions that follow it without a gap (those wait
 * only in the `manual` mining mode; `auto` mines them at once).
 */
export const eth_getTransactionCount = defineMethod({
  name: 'eth_getTransactionCount',
  params: [address, optional(blockNumberOrHash, LATEST)],
  async run([owner, selector], { chain }) {
    if (selector.kind === 'tag' && selector.tag === 'pending') return toQuantity(await chain.pendingNonce(owner))
    const state = await chain.stateAt(stateRecord(chain, selector))
    const account = await state.getAccount(createAddressFromString(owner))
    return toQuantity(account?.nonce ?? 0n)
  },
})
