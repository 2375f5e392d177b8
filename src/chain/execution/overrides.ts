/**
 * geth's state and block overrides (`internal/ethapi/override`), already parsed: what eth_call,
 * eth_estimateGas and eth_simulateV1 apply to a call's own state before it runs.
 *
 * State overrides go straight into the state manager, not through the journal, as geth's apply
 * them before the transaction ("as if created in a transaction just before"): a call's rollback
 * (or a simulation's throwaway state) discards them. Accounts are applied in address order, and
 * geth's errors come in its words. Precompiles are a map the caller owns (the EVM's for this
 * execution): `movePrecompileToAddress` moves an entry, and overriding a precompile's address
 * removes it.
 */
import { Block, createBlockHeader } from '@ethereumjs/block'
import type { Common, StateManagerInterface } from '@ethereumjs/common'
import { Account, createAddressFromString, toChecksumAddress } from '@ethereumjs/util'

export interface AccountOverride {
  nonce?: bigint
  code?: Uint8Array
  balance?: bigint
  /** Replaces the whole storage: slot (0x + 64 lowercase hex digits) to a 32-byte value. */
  state?: ReadonlyMap<string, Uint8Array>
  /** Sets these slots, keeping the others. */
  stateDiff?: ReadonlyMap<string, Uint8Array>
  /** Lowercase 0x address. */
  movePrecompileToAddress?: string
}

/** By lowercase 0x address. */
export type StateOverride = ReadonlyMap<string, AccountOverride>

export interface Withdrawal {
  index: bigint
  validatorIndex: bigint
  /** Lowercase 0x address. */
  address: string
  /** In gwei. */
  amount: bigint
}

/** geth's `BlockOverrides`. */
export interface BlockOverrides {
  number?: bigint
  difficulty?: bigint
  time?: bigint
  gasLimit?: bigint
  /** Lowercase 0x address. */
  feeRecipient?: string
  prevRandao?: Uint8Array
  baseFeePerGas?: bigint
  blobBaseFee?: bigint
  beaconRoot?: Uint8Array
  withdrawals?: readonly Withdrawal[]
}

/** An override geth refuses (code -32000 on the wire), in geth's words. */
export class OverrideError extends Error {
  override readonly name = 'OverrideError'
}

/** A precompile's implementation, as the EVM keeps it (opaque here). */
export type Precompiles = Map<string, unknown>

/** `override.StateOverride.Apply`. `precompiles` is keyed by unprefixed lowercase address. */
export async function applyStateOverride(state: StateManagerInterface, override: StateOverride | undefined, precompiles: Precompiles): Promise<void> {
  if (override === undefined) return
  const moved = new Set<string>()
  for (const addr of [...override.keys()].sort()) {
    const account = override.get(addr)!
    const key = addr.slice(2)
    if (moved.has(key)) throw new OverrideError(`account ${toChecksumAddress(addr)} has already been overridden by a precompile`)
    const precompile = precompiles.get(key)
    const target = account.movePrecompileToAddress
    if (target !== undefined) {
      if (precompile === undefined) throw new OverrideError(`account ${toChecksumAddress(addr)} is not a precompile`)
      if (override.has(target)) throw new OverrideError(`account ${toChecksumAddress(target)} is already overridden`)
      precompiles.set(target.slice(2), precompile)
      moved.add(target.slice(2))
    }
    if (precompile !== undefined) precompiles.delete(key)

    const address = createAddressFromString(addr)
    if (account.nonce !== undefined || account.balance !== undefined) {
      const current = (await state.getAccount(address)) ?? new Account()
      if (account.nonce !== undefined) current.nonce = account.nonce
      if (account.balance !== undefined) current.balance = account.balance
      await state.putAccount(address, current)
    }
    if (account.code !== undefined) {
      if ((await state.getAccount(address)) === undefined) await state.putAccount(address, new Account())
      await state.putCode(address, account.code)
    }
    if (account.state !== undefined && account.stateDiff !== undefined) {
      throw new OverrideError(`account ${toChecksumAddress(addr)} has both 'state' and 'stateDiff'`)
    }
    const slots = account.state ?? account.stateDiff
    if (slots === undefined) continue
    // geth's SetState and SetStorage make the account when it is missing; EthereumJS's storage needs it there.
    if ((await state.getAccount(address)) === undefined) await state.putAccount(address, new Account())
    if (account.state !== undefined) await state.clearStorage(address)
    for (const [slot, value] of slots) await state.putStorage(address, hexBytes(slot), value)
  }
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.slice(2), 'hex'))
}

/**
 * `block` as a call sees it under `overrides` (geth's `BlockOverrides.Apply` on the block context,
 * and `MakeHeader` for the base fee): number, difficulty, time, gas limit, coinbase, prevRandao,
 * base fee, and the blob base fee BLOBBASEFEE reads. The header is built as it is and changed
 * afterwards, since its constructor checks fields (the base fee on the London block) that an
 * override may set to anything.
 */
export function overriddenBlock(block: Block, common: Common, o: BlockOverrides): Block {
  // Gas used says nothing to a call, and an overridden gas limit below it would fail validation.
  const header = createBlockHeader({ ...block.header.toJSON(), gasUsed: '0x0' }, { common, freeze: false, skipConsensusFormatValidation: true })
  const h = header as unknown as Record<string, unknown>
  if (o.number !== undefined) h.number = o.number
  if (o.difficulty !== undefined) h.difficulty = o.difficulty
  if (o.time !== undefined) h.timestamp = o.time
  if (o.gasLimit !== undefined) h.gasLimit = o.gasLimit
  if (o.feeRecipient !== undefined) h.coinbase = createAddressFromString(o.feeRecipient)
  if (o.prevRandao !== undefined) h.mixHash = o.prevRandao
  if (o.baseFeePerGas !== undefined) h.baseFeePerGas = o.baseFeePerGas
  const blobBaseFee = o.blobBaseFee
  if (blobBaseFee !== undefined) header.getBlobGasPrice = () => blobBaseFee
  return new Block(header, [], [], block.withdrawals, { common })
}
