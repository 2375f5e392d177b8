import { callObject } from '../callObject.ts'
import { reportMinedConsole } from '../consoleReport.ts'
import { defineMethod } from '../method.ts'
import { sendUnsigned } from '../sendUnsigned.ts'

/** Anvil's `eth_sendUnsignedTransaction`: `eth_sendTransaction` from any account, impersonated or not. */
export const eth_sendUnsignedTransaction = defineMethod({
  name: 'eth_sendUnsignedTransaction',
  params: [callObject],
  async run([args], ctx) {
    const hash = await sendUnsigned(ctx.chain, args, false)
    reportMinedConsole(ctx, hash)
    return hash
  },
})
