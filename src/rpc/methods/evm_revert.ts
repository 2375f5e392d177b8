import { anvilNumber } from '../devParams.ts'
import { devOf } from '../dev.ts'
import { defineMethod } from '../method.ts'

/**
 * Restores the chain to snapshot `id` and forgets that snapshot and every later one (Anvil's and
 * Hardhat's rule); `false` for an id that is not (or no longer) there.
 */
export const evm_revert = defineMethod({
  name: 'evm_revert',
  params: [anvilNumber(64)],
  run: ([id], ctx) => devOf(ctx).revert(id),
})
