import { createAddressFromString } from '@ethereumjs/util'
import { toQuantity } from '../../encoding/hex.ts'
import { defineMethod } from '../method.ts'
import { optional } from '../params.ts'
import { address, blockNumberOrHash } from '../validators.ts'
import { LATEST, readRecord } from '../blocks.ts'

/** The balance in wei of an account at a block (default `latest`); an unknown account has 0. */
export const eth_getBalance = defineMethod({
  name: 'eth_getBalance',
  params: [address, optional(blockNumberOrHash, LATEST)],
  async run([owner, selector], { chain }) {
    const state = await chain.stateAt(await readRecord(chain, selector))
    const account = await state.getAccount(createAddressFromString(owner))
    return toQuantity(account?.balance ?? 0n)
  },
})
