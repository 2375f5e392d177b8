import { editHead } from '../dev.ts'
import { anvilNumber, hexQuantity } from '../devParams.ts'
import { defineMethod } from '../method.ts'
import { address } from '../validators.ts'

/** Sets an account's balance, outside any transaction (a state edit of the head: `Chain.editState`). */
export const anvil_setBalance = defineMethod({
  name: 'anvil_setBalance',
  params: [address, anvilNumber(256)],
  async run([account, balance], { chain }) {
    await editHead(chain, [{ address: account, balance: hexQuantity(balance) }])
    return null
  },
})
