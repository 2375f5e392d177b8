/** The request log controls: read the entries (after a `since` seq), clear them (numbering goes on). */
import { ControlInputError } from '../controlError.ts'
import { show } from './shared.ts'
import type { ControlDeps, GatewayControl } from './types.ts'

export type LogControls = Pick<GatewayControl, 'requestLog' | 'clearRequestLog'>

export function createLogControls(deps: Pick<ControlDeps, 'log'>): LogControls {
  const { log } = deps
  return {
    requestLog(options = {}) {
      const since = options.since ?? 0
      if (typeof since !== 'number' || !Number.isSafeInteger(since) || since < 0) {
        throw new ControlInputError('since', `must be an integer of at least 0, got ${show(since)}`)
      }
      return log.entries(since)
    },

    clearRequestLog() {
      log.clear()
    },
  }
}
