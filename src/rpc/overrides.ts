/**
 * geth's `override.StateOverride` and `override.BlockOverrides`, decoded as Go decodes them: a
 * map from address to `OverrideAccount` (`nonce`, `code`, `balance`, `state`, `stateDiff`,
 * `movePrecompileToAddress`), and the header fields a call or a simulated block may replace.
 */
import type { AccountOverride, BlockOverrides, StateOverride, Withdrawal } from '../chain/execution/overrides.ts'
import { addressKey, GoFields, hashBytes, jsonKind } from './goFields.ts'
import { ArgumentError } from './params.ts'
import type { Param } from './params.ts'

function slots(o: Record<string, unknown> | undefined, field: string): Map<string, Uint8Array> | undefined {
  if (o === undefined) return undefined
  const out = new Map<string, Uint8Array>()
  for (const [key, value] of Object.entries(o)) {
    const slot = hashBytes(key)
    if (typeof value !== 'string') throw new ArgumentError(`json: cannot unmarshal ${jsonKind(value)} into Go struct field OverrideAccount.${field} of type common.Hash`)
    out.set(`0x${Buffer.from(slot).toString('hex')}`, hashBytes(value))
  }
  return out
}

function accountOverride(v: unknown): AccountOverride {
  const f = new GoFields(v, 'OverrideAccount', 'override.OverrideAccount')
  const account: AccountOverride = {}
  const nonce = f.quantity('nonce', 64)
  if (nonce !== undefined) account.nonce = nonce
  const code = f.bytes('code')
  if (code !== undefined) account.code = code
  const balance = f.quantity('balance', 256)
  if (balance !== undefined) account.balance = balance
  const state = slots(f.object('state', 'map[common.Hash]common.Hash'), 'state')
  if (state !== undefined) account.state = state
  const stateDiff = slots(f.object('stateDiff', 'map[common.Hash]common.Hash'), 'stateDiff')
  if (stateDiff !== undefined) account.stateDiff = stateDiff
  const move = f.address('movePrecompileToAddress')
  if (move !== undefined) account.movePrecompileToAddress = move
  return account
}

/** A state override object; `undefined` for JSON null. */
export function parseStateOverride(v: unknown): StateOverride | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'object' || Array.isArray(v)) throw new ArgumentError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type override.StateOverride`)
  const out = new Map<string, AccountOverride>()
  for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
    // A null account override is Go's zero OverrideAccount: nothing to change.
    out.set(addressKey(key), value === null ? {} : accountOverride(value))
  }
  return out
}

function withdrawal(v: unknown): Withdrawal {
  const f = new GoFields(v, 'Withdrawal', 'types.Withdrawal')
  return {
    index: f.quantity('index', 64) ?? 0n,
    validatorIndex: f.quantity('validatorIndex', 64) ?? 0n,
    address: f.address('address') ?? '0x0000000000000000000000000000000000000000',
    amount: f.quantity('amount', 64) ?? 0n,
  }
}

/** A block overrides object; `undefined` for JSON null. */
export function parseBlockOverrides(v: unknown): BlockOverrides | undefined {
  if (v === undefined || v === null) return undefined
  const f = new GoFields(v, 'BlockOverrides', 'override.BlockOverrides')
  const o: BlockOverrides = {}
  const put = <K extends keyof BlockOverrides>(key: K, value: BlockOverrides[K] | undefined) => {
    if (value !== undefined) o[key] = value
  }
  put('number', f.quantity('number', 256))
  put('difficulty', f.quantity('difficulty', 256))
  put('time', f.quantity('time', 64))
  put('gasLimit', f.quantity('gasLimit', 64))
  put('feeRecipient', f.address('feeRecipient'))
  put('prevRandao', f.hash('prevRandao'))
  put('baseFeePerGas', f.quantity('baseFeePerGas', 256))
  put('blobBaseFee', f.quantity('blobBaseFee', 256))
  put('beaconRoot', f.hash('beaconRoot'))
  put('withdrawals', f.list('withdrawals', 'types.Withdrawals')?.map(withdrawal))
  return o
}

export const stateOverrideParam: Param<StateOverride | undefined> = { parse: parseStateOverride, fallback: { value: undefined } }
export const blockOverridesParam: Param<BlockOverrides | undefined> = { parse: parseBlockOverrides, fallback: { value: undefined } }
