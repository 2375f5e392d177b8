import { InvalidParamsError } from '../errors.ts'
import { anything } from '../devParams.ts'
import { defineMethod } from '../method.ts'
import { optional } from '../params.ts'

/** Refused: the double does not fork from a URL. */
export const anvil_setRpcUrl = defineMethod({
  name: 'anvil_setRpcUrl',
  params: [optional(anything, undefined)],
  run() {
    throw new InvalidParamsError('Forking not enabled (the double does not fork from a URL)')
  },
})
