import { flag } from '../devParams.ts'
import { defineMethod } from '../method.ts'

/** Accepted and ignored: the double logs no node output to switch off (its request log is a control). */
export const anvil_setLoggingEnabled = defineMethod({
  name: 'anvil_setLoggingEnabled',
  params: [flag],
  run: () => null,
})
