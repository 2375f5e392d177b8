import { editHead } from '../dev.ts'
import { anvilNumber, hexQuantity } from '../devParams.ts'
import { defineMethod } from '../method.ts'
import { address } from '../validators.ts'

/** Sets an account's nonce, outside any transaction (a state edit of the head). */
export const anvil_setNonce = defineMethod({
  name: 'anvil_setNonce',
  params: [address, anvilNumber(64)],
  async run([account, nonce], { chain }) {
    await editHead(chain, [{ address: account, nonce: hexQuantity(nonce) }])
    return null
  },
})
