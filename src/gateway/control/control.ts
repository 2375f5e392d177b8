/**
 * The gateway's control facet: what a test suite does to the double between (or during) its
 * tests, without any transport. `Gateway.control` is one; the HTTP control routes
 * (src/http/controlRoutes.ts) and `RunningServer.control` expose the same object.
 *
 * - snapshots of the chains and of the credit ledger, keys and request log position; restore;
 * - the clock: set, advance, reset (the ledger's 00:00 UTC follows it);
 * - keys: list, add (config shape, validated by `parseKeys`), set today's remaining credits,
 *   enable or disable a network;
 * - networks: list, fork one into a new network (per-worker isolation), mining mode, mine;
 * - reorgs: replace a network's last blocks with a new branch (./reorgControls.ts);
 * - the request log: read, clear; usage by window, key, network and method, quota alerts;
 * - scripted faults: add, list, remove, clear (../faults.ts);
 * - a network's chain exported as a fixture folder; the test endpoint's JSON-RPC (../devRpc.ts).
 *
 * Chain operations go through `ControllableChain`, feature-tested at run time: a chain without
 * the method answers a `ChainFeatureMissingError` (501) naming it.
 *
 * Errors: `ControlInputError` (400, names the field), `ControlNotFoundError` (404),
 * `ChainFeatureMissingError` (501); all are `ControlError`s.
 */
import { createClockControls } from './clockControls.ts'
import { createDevControls } from './devControls.ts'
import { createFaultControls } from './faultControls.ts'
import { createKeyControls } from './keyControls.ts'
import { createLogControls } from './logControls.ts'
import { createNetworkControls } from './networkControls.ts'
import { createReorgControls } from './reorgControls.ts'
import { createSnapshotControls } from './snapshotControls.ts'
import { createUsageControls } from './usageControls.ts'
import type { ControlDeps, GatewayControl } from './types.ts'

/** The control facet: one part per concern, each made (and testable) with only what it needs. */
export function createControl(deps: ControlDeps): GatewayControl {
  return {
    ...createSnapshotControls(deps),
    ...createClockControls(deps),
    ...createKeyControls(deps),
    ...createNetworkControls(deps),
    ...createReorgControls(deps),
    ...createLogControls(deps),
    ...createUsageControls(deps),
    ...createFaultControls(deps),
    ...createDevControls(deps),
  }
}
