/**
 * State edits: changes to accounts made outside any transaction (`anvil_setBalance`, `setCode`,
 * `setNonce`, `setStorageAt`, `anvil_loadState`). An edit names one account and the fields it sets;
 * fields it does not name keep their values. They are kept in this JSON shape (hex strings) because
 * the chain carries them as they were given: an export writes them to `edits.json`, and the loader
 * applies them again before the block that built on them.
 */
import { Account, bytesToBigInt, createAddressFromString, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import type { MerkleStateManager } from '@ethereumjs/statemanager'

export interface StateEdit {
  /** Lowercase 0x address. */
  readonly address: string
  /** 0x quantity. */
  readonly balance?: string
  /** 0x quantity. */
  readonly nonce?: string
  /** 0x bytes (`0x`: no code). */
  readonly code?: string
  /** Slot (0x, 32 bytes) to value (0x, 32 bytes); a zero value empties the slot. */
  readonly storage?: Readonly<Record<string, string>>
}

/** A malformed edit (the RPC methods check their params first; a fixture's `edits.json` may not). */
export class StateEditError extends Error {
  override readonly name = 'StateEditError'
}

const ADDRESS = /^0x[0-9a-f]{40}$/
const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]{0,63})$/
const WORD = /^0x[0-9a-f]{64}$/
const BYTES = /^0x(?:[0-9a-f]{2})*$/
const MAX_NONCE = (1n << 64n) - 1n

/** Checks an edit's shape; the message names the field. */
export function checkEdit(edit: StateEdit): void {
  if (typeof edit.address !== 'string' || !ADDRESS.test(edit.address)) throw new StateEditError(`address: must be a lowercase 0x address, got ${String(edit.address)}`)
  if (edit.balance !== undefined && !QUANTITY.test(edit.balance)) throw new StateEditError(`balance: must be a 0x quantity of at most 256 bits, got ${String(edit.balance)}`)
  if (edit.nonce !== undefined && (!QUANTITY.test(edit.nonce) || BigInt(edit.nonce) > MAX_NONCE)) {
    throw new StateEditError(`nonce: must be a 0x quantity of at most 64 bits, got ${String(edit.nonce)}`)
  }
  if (edit.code !== undefined && !BYTES.test(edit.code)) throw new StateEditError(`code: must be 0x bytes, got ${String(edit.code).slice(0, 80)}`)
  for (const [slot, value] of Object.entries(edit.storage ?? {})) {
    if (!WORD.test(slot) || !WORD.test(value)) throw new StateEditError(`storage: slots and values must be 32-byte 0x words, got ${slot}: ${String(value)}`)
  }
}

/** Applies `edits` in order to `state` (an account that does not exist is created empty first). */
export async function applyEdits(state: MerkleStateManager, edits: readonly StateEdit[]): Promise<void> {
  for (const edit of edits) {
    checkEdit(edit)
    const address = createAddressFromString(edit.address)
    if (edit.code !== undefined) await state.putCode(address, hexToBytes(edit.code as `0x${string}`))
    const account = (await state.getAccount(address)) ?? new Account()
    if (edit.balance !== undefined) account.balance = BigInt(edit.balance)
    if (edit.nonce !== undefined) account.nonce = BigInt(edit.nonce)
    await state.putAccount(address, account)
    for (const [slot, value] of Object.entries(edit.storage ?? {})) {
      const word = hexToBytes(value as `0x${string}`)
      await state.putStorage(address, hexToBytes(slot as `0x${string}`), bytesToBigInt(word) === 0n ? new Uint8Array() : setLengthLeft(word, 32))
    }
  }
}
