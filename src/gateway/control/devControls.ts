/**
 * A network's own chain, for test suites that bring their own: exported as a fixture folder
 * (chain/loading/exportChain.ts), and driven through the test endpoint (../devRpc.ts: the gateway's
 * methods and Anvil's test methods, no key, no credits).
 */
import { exportChain, ExportError } from '../../chain/loading/exportChain.ts'
import type { FixtureFolder } from '../../chain/loading/exportChain.ts'
import { ControlError } from '../controlError.ts'
import { networkNamed } from './shared.ts'
import type { ControlDeps, GatewayControl } from './types.ts'

export type DevControls = Pick<GatewayControl, 'exportNetwork' | 'rpc'>

export function createDevControls(deps: Pick<ControlDeps, 'networks' | 'devRpc'>): DevControls {
  return {
    exportNetwork(name) {
      const n = networkNamed(deps.networks, name)
      let files: FixtureFolder
      try {
        files = exportChain(n.chain)
      } catch (err) {
        // A chain made from code, not loaded from a fixture: it has no genesis file to export.
        if (err instanceof ExportError) throw new ControlError(501, err.message)
        throw err
      }
      return { network: n.name, headNumber: Number(n.chain.head.number), files }
    },

    rpc: (name, body) => deps.devRpc(name, body),
  }
}
