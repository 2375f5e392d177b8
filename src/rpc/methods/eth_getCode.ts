import { createAddressFromString } from '@ethereumjs/util'
import { toData } from '../../encoding/hex.ts'
import { defineMethod } from '../method.ts'
import { optional } from '../params.ts'
import { address, blockNumberOrHash } from '../validators.ts'
import { LATEST, readRecord } from '../blocks.ts'

/**
 * The code of an account at a block (default `latest`): `0x` for an account without code, and
 * for an EIP-7702 delegated account its delegation designator (`0xef0100` + address).
 */
export const eth_getCode = defineMethod({
  name: 'eth_getCode',
  params: [address, optional(blockNumberOrHash, LATEST)],
  async run([owner, selector], { chain }) {
    const state = await chain.stateAt(await readRecord(chain, selector))
    return toData(await state.getCode(createAddressFromString(owner)))
  },
})
