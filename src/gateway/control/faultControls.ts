/**
 * The fault controls: add a scripted fault (parsed by ../faults.ts; its network and key must
 * exist), list, remove one, clear all.
 */
import { ControlNotFoundError } from '../controlError.ts'
import { parseFault } from '../faultInput.ts'
import { keyNamed, networkNamed } from './shared.ts'
import type { ControlDeps, GatewayControl } from './types.ts'

export type FaultControls = Pick<GatewayControl, 'faults' | 'addFault' | 'removeFault' | 'clearFaults'>

export function createFaultControls(deps: Pick<ControlDeps, 'faults' | 'networks' | 'keys'>): FaultControls {
  const { faults, networks, keys } = deps
  return {
    faults: () => faults.list(),

    addFault(input) {
      const fault = parseFault(input)
      if (fault.network !== null) networkNamed(networks, fault.network)
      if (fault.key !== null) keyNamed(keys, fault.key)
      return faults.add(fault)
    },

    removeFault(id) {
      if (!faults.remove(id)) throw new ControlNotFoundError('fault', String(id))
    },

    clearFaults() {
      faults.clear()
    },
  }
}
