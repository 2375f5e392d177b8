/**
 * A change to EthereumJS 10.1.3's `Common.updateParams`, applied at run time (as
 * ./interpreterPatch.ts's; written up in patches/README.md, change 6): a call that would change
 * nothing does nothing.
 *
 * Every block header and transaction EthereumJS makes copies its Common and calls
 * `updateParams(paramsBlock)` (`paramsTx`) on the copy, which deep-copies each EIP's parameters
 * through JSON into the parameter table the copies share, and rebuilds the copy's parameter cache
 * (every parameter of every active EIP) from it: ~0.4 ms a header or transaction, four to six of
 * them for each transaction mined, always to the same table and cache. Here, when the table
 * already holds every given parameter with the same value and a cache was built from the table as
 * it is now at the Common's hardfork and EIPs, the Common takes that cache (caches are replaced
 * whole, never changed in place, as ../store/forkCommons.ts shares them) and the call returns.
 * Anything else (a new parameter or another value, which changes the table; a table not built
 * from yet at that hardfork) takes EthereumJS's own path, and the cache it builds is kept.
 */
import { Common } from '@ethereumjs/common'
import { ethereumjsVersion } from './ethereumjsVersion.ts'

/** The EthereumJS version this change was written against. */
const PATCHED_VERSION = '10.1.3'

type Params = Record<string, Record<string, unknown>>

interface CommonInternals {
  _params: Params
  _paramsCache: object
  _eips: readonly number[]
  HARDFORK_CHANGES: unknown
  hardfork(): string
}

/** A parameter cache and what it was built from. */
interface Built {
  readonly hardfork: string
  readonly eips: readonly number[]
  readonly changes: unknown
  readonly cache: object
}

/** Each parameter table (shared by a Common's copies): how many times `updateParams` changed it, and the caches built from it since. */
const tables = new WeakMap<Params, { version: number; built: Built[] }>()
/** The parameter sets (EthereumJS passes the same objects: `paramsBlock`, `paramsTx`) found held by a table, and its version then. */
const heldBy = new WeakMap<Params, { table: Params; version: number }>()

function holdsAll(table: Params, params: Params): boolean {
  const version = tables.get(table)?.version
  const held = heldBy.get(params)
  if (held !== undefined && held.table === table && held.version === version) return true
  if (!holdsEach(table, params)) return false
  if (version !== undefined) heldBy.set(params, { table, version })
  return true
}

function holdsEach(table: Params, params: Params): boolean {
  for (const eip in params) {
    const held = table[eip]
    if (held === undefined || held === null) return false
    const given = params[eip]!
    for (const name in given) if (held[name] !== given[name]) return false
  }
  return true
}

/** A cache built from `common`'s table as it is now, at its hardfork and EIPs. */
function builtFor(common: CommonInternals): Built | undefined {
  const table = tables.get(common._params)
  const hardfork = common.hardfork()
  return table?.built.find((b) => b.hardfork === hardfork && b.eips === common._eips && b.changes === common.HARDFORK_CHANGES)
}

let applied = false

/** Applies the change once, to the installed EthereumJS when it is the version it was written against. */
export function keepParamsCaches(): void {
  if (applied) return
  applied = true
  if (ethereumjsVersion('@ethereumjs/common') !== PATCHED_VERSION) return
  const proto = Common.prototype as unknown as CommonInternals & { updateParams(params: Params): void }
  const original = proto.updateParams
  proto.updateParams = function (this: CommonInternals, params: Params): void {
    const unchanged = holdsAll(this._params, params)
    if (unchanged) {
      // A cache is replaced whole, never changed in place: Commons can share one.
      const built = builtFor(this)
      if (built !== undefined) {
        this._paramsCache = built.cache
        return
      }
    }
    original.call(this, params)
    let table = tables.get(this._params)
    if (table === undefined || !unchanged) tables.set(this._params, (table = { version: (table?.version ?? 0) + 1, built: [] }))
    table.built.push({ hardfork: this.hardfork(), eips: this._eips, changes: this.HARDFORK_CHANGES, cache: this._paramsCache })
  }
}

/** A table of parameters by EIP, as `@ethereumjs/evm`'s `paramsEVM` and `@ethereumjs/vm`'s `paramsVM`. */
type ParamTable = Record<string, Record<string, unknown> | undefined>

/**
 * EthereumJS 10.1's EVM carries EIP-2935's `historyServeWindow` as 8192 (the EIP's value before
 * it became 8191) where its VM carries 8191 (the EIP's, and the system contract's): each EVM and
 * VM made writes its value into the parameter table their Commons share, so every VM made changed
 * the table twice, and every header and transaction made after it rebuilt its parameter cache
 * (the change above keeps caches of an unchanged table only). The EVM's value is read by EIP-7709's
 * BLOCKHASH alone (not active in any fork served); `runBlock` reads the VM's. The EVM's table is
 * set to the VM's value (patches/README.md, change 9).
 */
export function alignHistoryWindow(evmParams: ParamTable, vmParams: ParamTable): void {
  const evm = evmParams['2935']
  const vm = vmParams['2935']
  if (evm?.historyServeWindow === 8192 && vm?.historyServeWindow === 8191) evm.historyServeWindow = 8191
}
