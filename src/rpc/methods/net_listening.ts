import { defineMethod } from '../method.ts'

/** Always true, as the hosted service answers. */
export const net_listening = defineMethod({
  name: 'net_listening',
  params: [],
  run: () => true,
})
