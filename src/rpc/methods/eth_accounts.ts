import { defineMethod } from '../method.ts'

/** The accounts `eth_sendTransaction` sends from: the impersonated ones (the double holds no keys). */
export const eth_accounts = defineMethod({
  name: 'eth_accounts',
  params: [],
  run: (_params, { chain }) => chain.impersonatedAccounts,
})
