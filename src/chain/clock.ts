/**
 * Where mined blocks take their time from. Kept apart from chain.ts (which loads the VM) so the
 * gateway can recognise the default clock without importing EthereumJS.
 */

/** Milliseconds since the epoch, like `Date.now`. */
export interface ChainClock {
  now(): number
}

export const SYSTEM_CLOCK: ChainClock = { now: () => Date.now() }
