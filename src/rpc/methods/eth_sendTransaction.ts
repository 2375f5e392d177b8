import { callObject } from '../callObject.ts'
import { reportMinedConsole } from '../consoleReport.ts'
import { defineMethod } from '../method.ts'
import { sendUnsigned } from '../sendUnsigned.ts'

/**
 * Sends a transaction from an impersonated account (`anvil_impersonateAccount`, or any account
 * after `anvil_autoImpersonateAccount(true)`), its missing fields filled in as geth does (see
 * ../sendUnsigned.ts); any other sender is `-32602 No Signer available` (the double holds no keys).
 * Served on the test endpoint only: the hosted service has no `eth_sendTransaction`.
 */
export const eth_sendTransaction = defineMethod({
  name: 'eth_sendTransaction',
  params: [callObject],
  async run([args], ctx) {
    const hash = await sendUnsigned(ctx.chain, args, true)
    reportMinedConsole(ctx, hash)
    return hash
  },
})
