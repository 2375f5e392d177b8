import { devOf } from '../dev.ts'
import { defineMethod } from '../method.ts'

/**
 * Takes a snapshot of the network's chain (blocks, state and state edits, pool, mining mode and
 * settings: `Chain.snapshot`, what `POST /_double/snapshots` takes of each network) and returns its
 * id, numbered per network from 0x0 as Anvil does. Not the credits, keys or request log.
 */
export const evm_snapshot = defineMethod({
  name: 'evm_snapshot',
  params: [],
  run: (_params, ctx) => devOf(ctx).snapshot(),
})
