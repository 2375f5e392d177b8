import { editHead } from '../dev.ts'
import { storageSlot, storageWord } from '../devParams.ts'
import { defineMethod } from '../method.ts'
import { address } from '../validators.ts'

/** Sets one storage slot of an account (a state edit of the head); answers true, as Anvil does. */
export const anvil_setStorageAt = defineMethod({
  name: 'anvil_setStorageAt',
  params: [address, storageSlot, storageWord],
  async run([account, slot, value], { chain }) {
    await editHead(chain, [{ address: account, storage: { [slot]: value } }])
    return true
  },
})
