import { createAddressFromString } from '@ethereumjs/util'
import { toQuantity } from '../../encoding/hex.ts'
import { defineMethod } from '../method.ts'
import { optional } from '../params.ts'
import { address, blockNumberOrHash } from '../validators.ts'
import { LATEST, stateRecord } from '../blocks.ts'

/**
 * The nonce of an account at a block (default `latest`). `pending` is the head's: transactions
 * are mined as they arrive, so no pending one can raise it.
 */
export const eth_getTransactionCount = defineMethod({
  name: 'eth_getTransactionCount',
  params: [address, optional(blockNumberOrHash, LATEST)],
  async run([owner, selector], { chain }) {
    const state = await chain.stateAt(stateRecord(chain, selector))
    const account = await state.getAccount(createAddressFromString(owner))
    return toQuantity(account?.nonce ?? 0n)
  },
})
