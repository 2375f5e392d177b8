/**
 * The snapshot controls: take one of the chains of some networks (default all) with the credits
 * spent, the keys and the request log position; restore it any number of times; list; delete. The
 * clock and faults are not part of a snapshot, nor networks forked since.
 */
import type { KeySettings } from '../config.ts'
import { ControlInputError, ControlLimitError, ControlNotFoundError } from '../controlError.ts'
import { formatBytes, formatCount } from '../controlLimits.ts'
import type { LedgerSnapshot } from '../credits.ts'
import { feature, isRecord, iso, networkNamed, show } from './shared.ts'
import type { ControlDeps, GatewayControl, SnapshotInfo } from './types.ts'

export type SnapshotControls = Pick<GatewayControl, 'snapshot' | 'restore' | 'snapshots' | 'deleteSnapshot'>

interface Snapshot {
  readonly info: SnapshotInfo
  readonly chains: ReadonlyMap<string, unknown>
  readonly ledger: LedgerSnapshot
  readonly keys: ReadonlyMap<string, KeySettings>
  /** About what keeping it costs (`ChainSnapshot.approximateBytes`, a ledger entry and a key reference each). */
  readonly bytes: number
}

function snapshotBytes(chains: ReadonlyMap<string, unknown>, ledger: LedgerSnapshot, keys: number): number {
  let bytes = 512 + keys * 16 + (ledger.entries.size + ledger.accounts.size) * 128
  for (const state of chains.values()) bytes += (state as { approximateBytes?: number }).approximateBytes ?? 0
  return bytes
}

export function createSnapshotControls(deps: Pick<ControlDeps, 'networks' | 'keys' | 'ledger' | 'clock' | 'log' | 'limits'>): SnapshotControls {
  const { networks, keys, ledger, clock, log, limits } = deps
  const snapshots = new Map<string, Snapshot>()
  let nextSnapshot = 1
  let keptBytes = 0

  function snapshotOf(id: unknown): Snapshot {
    if (typeof id !== 'string' || id === '') throw new ControlInputError('id', `must be a snapshot id, got ${show(id)}`)
    const s = snapshots.get(id)
    if (!s) throw new ControlNotFoundError('snapshot', id)
    return s
  }

  return {
    async snapshot(options = {}) {
      if (!isRecord(options)) throw new ControlInputError('snapshot', `must be an object, got ${show(options)}`)
      for (const name of Object.keys(options)) {
        if (name !== 'networks') throw new ControlInputError(name, 'unknown field (allowed: networks)')
      }
      let names: string[]
      if (options.networks === undefined) names = [...networks.keys()]
      else if (!Array.isArray(options.networks) || !options.networks.every((n) => typeof n === 'string')) {
        throw new ControlInputError('networks', `must be a list of network names, got ${show(options.networks)}`)
      } else names = [...new Set(options.networks)]
      const takers = names.map((name, i) => [name, feature(networkNamed(networks, name, `networks[${i}]`), 'snapshot')] as const)
      if (snapshots.size >= limits.snapshots) throw tooMany()
      const chains = new Map(takers.map(([name, take]) => [name, take()]))
      const kept = ledger.snapshot()
      const bytes = snapshotBytes(chains, kept, keys.size)
      if (keptBytes + bytes > limits.snapshotBytes) throw tooMany()
      const info: SnapshotInfo = { id: String(nextSnapshot++), networks: names, logPosition: log.position, time: iso(clock.now()) }
      snapshots.set(info.id, { info, chains, ledger: kept, keys: new Map(keys), bytes })
      keptBytes += bytes
      return info
    },

    async restore(id) {
      const s = snapshotOf(id)
      const restorers = [...s.chains].map(([name, state]) => [feature(networkNamed(networks, name), 'restore'), state] as const)
      // Credits, keys and log first: what the chains' restore sends to subscribers (removed logs,
      // new heads) is charged and logged after it, as anything else that happens after it.
      ledger.restore(s.ledger)
      keys.clear()
      for (const [name, k] of s.keys) keys.set(name, k)
      log.truncate(s.info.logPosition)
      for (const [restore, state] of restorers) await restore(state)
      return s.info
    },

    snapshots: () => [...snapshots.values()].map((s) => s.info),

    deleteSnapshot(id) {
      keptBytes -= snapshotOf(id).bytes
      snapshots.delete(id)
    },
  }

  function tooMany(): ControlLimitError {
    return new ControlLimitError(
      `too many snapshots: ${formatCount(snapshots.size)} kept, about ${formatBytes(keptBytes)} (the bounds: ${formatCount(limits.snapshots)} and ${formatBytes(limits.snapshotBytes)}); delete those no longer needed (DELETE /_double/snapshots/<id>, control.deleteSnapshot)`,
    )
  }
}
