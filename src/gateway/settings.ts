/**
 * The gateway's options (`createGateway`'s) and the settings they give once checked: a
 * `ConfigError` or `TypeError` names the field; defaults filled in, the provider profile
 * compiled (./profiles/).
 */
import type { FilterLimits } from '../chain/filters/filterTable.ts'
import type { Chain } from '../chain/chain.ts'
import { DEFAULT_EVM_TIMEOUT_MS, DEFAULT_SLICE_MS } from '../chain/vm/executionGuard.ts'
import type { RpcContext } from '../rpc/method.ts'
import { rpcBackendWith, silentLogger } from './backend.ts'
import type { Logger, RpcBackend } from './backend.ts'
import { parseAccounts } from './accounts.ts'
import type { AccountConfigInput, AccountSettings } from './accounts.ts'
import { ConfigError, DEFAULT_SERVICE_HOST, parseExcludeMethods, parseKeys, parseNetworkName, parseServiceHost } from './config.ts'
import type { KeyConfigInput, KeySettings } from './config.ts'
import { createControllableClock } from './clock.ts'
import type { ControllableClock } from './clock.ts'
import { systemClock } from './credits.ts'
import type { Clock, QuotaAlert } from './credits.ts'
import { DEFAULT_BATCH_LIMIT } from './plan.ts'
import type { Network } from './request.ts'
import { compileProfile } from './profiles/compile.ts'
import type { CompiledProfile } from './profiles/compile.ts'
import { resolveProfile } from './profiles/profile.ts'
import type { ProfileInput } from './profiles/profile.ts'
import { KEYLESS_KEY } from './profiles/route.ts'
import { parseControlLimits } from './controlLimits.ts'
import type { ControlLimits } from './controlLimits.ts'
import { parseSocketLimits } from './sockets/limits.ts'
import type { SocketLimits } from './sockets/limits.ts'

export interface GatewayOptions {
  /** Chains by network name; each is served at `<name>-mainnet.<serviceHost>`. */
  readonly networks: Readonly<Record<string, Chain>>
  /** Keys in the config-file shape; validated here (a `ConfigError` names the field). */
  readonly keys: readonly KeyConfigInput[]
  /** Accounts by name (./accounts.ts): plans keys share with `account`. */
  readonly accounts?: Readonly<Record<string, AccountConfigInput>>
  /**
   * Told when a daily quota (an account's, or a key's own cap) crosses 75, 85 or 100%, once a
   * day each, as the service's alert emails; also written to the logger's `info` and the control
   * event stream.
   */
  readonly onQuotaAlert?: (alert: QuotaAlert) => void
  /** Default `localhost`. */
  readonly serviceHost?: string
  /**
   * The base clock. Default: the system clock. The gateway's own clock (`gateway.clock`) runs on
   * it, shifted by the controls (`control.setClock`); the ledger's 00:00 UTC follows that.
   */
  readonly clock?: Clock
  readonly logger?: Logger
  readonly rpc?: RpcBackend
  readonly batchLimit?: number
  /** The filters' bounds per key and network (default `FILTER_LIMITS`, src/chain/filters/filterTable.ts). */
  readonly filterLimits?: Partial<FilterLimits>
  /**
   * How long the executions of one eth_call or eth_estimateGas may take, in ms (geth's
   * `--rpc.evmtimeout`): past it, -32000 `execution aborted (timeout = 5s)`. 0: no limit.
   * Default 5,000.
   */
  readonly evmTimeoutMs?: number
  /** How long an execution runs before other requests get a turn, in ms; 0: never. Default 10. */
  readonly evmSliceMs?: number
  /** Bounds of WebSocket connections (./sockets/limits.ts); each defaults. */
  readonly sockets?: Partial<SocketLimits>
  /** Bounds on the snapshots, faults and keys the controls and the test endpoint keep (./controlLimits.ts); each defaults. */
  readonly controlLimits?: Partial<ControlLimits>
  /**
   * Methods and families (`"debug_*"`) a network leaves out, by network name (config
   * `networks.<name>.excludeMethods`, ./methodAvailability.ts): answered and charged as unknown
   * methods. Default: every network serves every method.
   */
  readonly excludeMethods?: Readonly<Record<string, readonly string[]>>
  /**
   * The provider whose rules it plays (./profiles/, docs/providers.md): a shipped profile's name
   * (default `infura`), a whole profile, or `{ extends: <name>, ...fields }`. Two gateways over the
   * same chains serve one network under two profiles, each metering its traffic in its own unit.
   */
  readonly profile?: ProfileInput
}

/** The gateway's settings, checked, with their defaults. */
export interface Settings {
  readonly serviceHost: string
  readonly networks: Map<string, Network>
  readonly keys: Map<string, KeySettings>
  readonly accounts: Map<string, AccountSettings>
  readonly clock: ControllableClock
  readonly logger: Logger
  readonly rpc: RpcBackend
  readonly batchLimit: number
  readonly batchLimits: { readonly http: number; readonly ws: number }
  readonly profile: CompiledProfile
  readonly execution: NonNullable<RpcContext['execution']>
  readonly socketLimits: SocketLimits
  readonly controlLimits: ControlLimits
}

function nonNegativeInteger(v: number, name: string): number {
  if (!Number.isSafeInteger(v) || v < 0) throw new TypeError(`${name} must be an integer of at least 0 (ms), got ${v}`)
  return v
}

/** Checks the options (a `ConfigError` or `TypeError` names the field) and fills in the defaults; a keyless profile gets its one key (`KEYLESS_KEY`, every network). */
export function settingsOf(options: GatewayOptions): Settings {
  const serviceHost = parseServiceHost(options.serviceHost ?? DEFAULT_SERVICE_HOST)
  const profile = compileProfile(resolveProfile(options.profile))
  const networks = new Map<string, Network>()
  for (const [name, chain] of Object.entries(options.networks)) {
    parseNetworkName(name, `networks.${name}`)
    const excluded = [...profile.spec.excludeMethods, ...(options.excludeMethods?.[name] ?? [])]
    const excludedMethods = excluded.length === 0 && options.excludeMethods?.[name] === undefined ? undefined : parseExcludeMethods(excluded, `excludeMethods.${name}`)
    networks.set(name, { name, host: profile.networkHost(name, serviceHost), chain, ...(excludedMethods ? { excludedMethods } : {}) })
  }
  for (const name of Object.keys(options.excludeMethods ?? {})) {
    if (!networks.has(name)) throw new ConfigError(`excludeMethods.${name}: unknown network (served: ${[...networks.keys()].join(', ')})`)
  }
  const accounts = parseAccounts(options.accounts)
  const keyInputs = profile.keyless && !options.keys.some((k) => k.key === KEYLESS_KEY) ? [...options.keys, { key: KEYLESS_KEY, networks: [...networks.keys()] }] : options.keys
  const keys = new Map(parseKeys(keyInputs, networks.keys(), 'keys', accounts).map((k) => [k.key, k]))
  const clock = createControllableClock(options.clock ?? systemClock)
  const batchLimit = options.batchLimit ?? (profile.isDefault ? DEFAULT_BATCH_LIMIT : profile.batchLimits.http)
  if (!Number.isSafeInteger(batchLimit) || batchLimit < 1) throw new TypeError(`batchLimit must be a positive integer, got ${batchLimit}`)
  const batchLimits = { http: batchLimit, ws: options.batchLimit ?? (profile.isDefault ? DEFAULT_BATCH_LIMIT : profile.batchLimits.ws) }
  const execution = {
    timeoutMs: nonNegativeInteger(options.evmTimeoutMs ?? profile.spec.timeoutMs ?? DEFAULT_EVM_TIMEOUT_MS, 'evmTimeoutMs'),
    sliceMs: nonNegativeInteger(options.evmSliceMs ?? DEFAULT_SLICE_MS, 'evmSliceMs'),
  }
  const socketLimits = parseSocketLimits(options.sockets)
  const controlLimits = parseControlLimits(options.controlLimits)
  return { serviceHost, networks, keys, accounts, clock, logger: options.logger ?? silentLogger, rpc: options.rpc ?? rpcBackendWith(profile.spec.extraMethods), batchLimit, batchLimits, profile, execution, socketLimits, controlLimits }
}
