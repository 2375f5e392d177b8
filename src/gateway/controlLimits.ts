/**
 * Bounds on what the controls and the test endpoint keep for a test: snapshots, scripted faults
 * and keys, each in a count and in (estimated) bytes. At a bound the request that would pass it is
 * refused with a clear error and nothing changes (docs/limits.md): a suite that snapshots per test
 * and never reverts learns it at the bound instead of when the machine runs out of memory. geth
 * and Anvil keep snapshots until reverted, without a bound.
 */

export interface ControlLimits {
  /** `POST /_double/snapshots` (control.snapshot) kept at once, across networks. */
  readonly snapshots: number
  /** Their estimated bytes (./control/snapshotControls.ts). */
  readonly snapshotBytes: number
  /** `evm_snapshot`s kept at once per network (a revert frees its snapshot and every later one). */
  readonly evmSnapshots: number
  /** Their estimated bytes per network. */
  readonly evmSnapshotBytes: number
  /** Scripted faults in force at once (a fault whose `times` are used up is gone). */
  readonly faults: number
  /** Their bytes, as JSON (a fault's answer body counts whole). */
  readonly faultBytes: number
  /** Keys at once, the config's included. */
  readonly keys: number
  /** The bytes of the keys added through the controls, as JSON. */
  readonly keyBytes: number
}

const MiB = 1024 * 1024

export const DEFAULT_CONTROL_LIMITS: ControlLimits = Object.freeze({
  snapshots: 1000,
  snapshotBytes: 256 * MiB,
  evmSnapshots: 10_000,
  evmSnapshotBytes: 256 * MiB,
  faults: 1000,
  faultBytes: 16 * MiB,
  keys: 10_000,
  keyBytes: 16 * MiB,
})

/** Validates limits given to `createGateway({ controlLimits })`; a `TypeError` names the field. */
export function parseControlLimits(input: Partial<ControlLimits> = {}): ControlLimits {
  const limits = { ...DEFAULT_CONTROL_LIMITS, ...input }
  for (const name of Object.keys(DEFAULT_CONTROL_LIMITS) as (keyof ControlLimits)[]) {
    const v = limits[name]
    if (!Number.isSafeInteger(v) || v < 1) throw new TypeError(`controlLimits.${name} must be a positive integer, got ${String(v)}`)
  }
  for (const name of Object.keys(limits)) {
    if (!(name in DEFAULT_CONTROL_LIMITS)) throw new TypeError(`controlLimits.${name}: unknown field (allowed: ${Object.keys(DEFAULT_CONTROL_LIMITS).join(', ')})`)
  }
  return Object.freeze(limits)
}

/** The bytes `value` takes as JSON: the estimate of what a fault or key keeps. */
export function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '')
  } catch {
    return 0
  }
}

/** `1,000` */
export const formatCount = (n: number): string => n.toLocaleString('en-US')

/** `256 MiB`, `16 KiB`, `512 bytes` */
export function formatBytes(n: number): string {
  if (n >= MiB && n % MiB === 0) return `${n / MiB} MiB`
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`
  return `${formatCount(n)} bytes`
}
