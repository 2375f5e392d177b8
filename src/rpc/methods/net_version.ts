import { defineMethod } from '../method.ts'

/** The network id as a decimal string; fixture chains use their chain id, as geth does by default. */
export const net_version = defineMethod({
  name: 'net_version',
  params: [],
  run: (_params, { chain }) => chain.chainId.toString(10),
})
