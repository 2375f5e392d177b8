import { dumpStateHex } from '../../chain/loading/anvilState.ts'
import { defineMethod } from '../method.ts'

/**
 * The head's state as Anvil's dump: gzipped JSON as 0x hex (chain/loading/anvilState.ts), which
 * `anvil_loadState`, `anvil --load-state` (written to a file) and the double's loader read. Every
 * account with its code, balance, nonce and non-zero slots, and the head block's environment; no
 * blocks or transactions.
 */
export const anvil_dumpState = defineMethod({
  name: 'anvil_dumpState',
  params: [],
  run: (_params, { chain }) => dumpStateHex(chain),
})
