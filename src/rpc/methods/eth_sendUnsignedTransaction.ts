import { callObject } from '../callObject.ts'
import { defineMethod } from '../method.ts'
import { sendUnsigned } from '../sendUnsigned.ts'

/** Anvil's `eth_sendUnsignedTransaction`: `eth_sendTransaction` from any account, impersonated or not. */
export const eth_sendUnsignedTransaction = defineMethod({
  name: 'eth_sendUnsignedTransaction',
  params: [callObject],
  run: ([args], { chain }) => sendUnsigned(chain, args, false),
})
