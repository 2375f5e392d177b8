/**
 * The state a plain call (../execution/plainCall.ts) executes on: its writes kept in a layer of its
 * own over the block's state, and the layer dropped whole when the call ends.
 *
 * A call's writes are thrown away. On the block's state manager they went into EthereumJS's
 * caches under a checkpoint the call then reverted: every checkpoint, commit and revert went
 * through the trie's checkpoints and the three caches (account, storage, code), each put saved the
 * entry's previous state for the revert, and every read and write was keyed by the address and
 * slot written as hex (about a fifth of a distinct `eth_call`'s CPU: the caches, their keys and
 * the journal's calls into them). Here a read misses the layer and goes to the block's memos
 * (./blockState.ts `blockAccount`, `slotAt`, `codeOf`), which never change; a write is a map entry,
 * its previous value kept in an undo list for the frame's revert; a checkpoint is the list's length.
 * Nothing reaches the block's state manager, so the call needs no checkpoint of it either.
 *
 * It does what EthereumJS 10.1.3's `MerkleStateManager` with caches does for each method the EVM
 * and its journal call (the same values, the same errors); anything else (a forked chain's state,
 * which reads through to its upstream; the binary-tree EIPs, whose witnesses read the state
 * manager's own tree) runs the call on the block's state manager as before (`callLayerOver`).
 * test/rpc/plainCall.test.ts runs calls on it and through runTx on the block's state manager, and
 * compares them (frames that revert and succeed, transient storage, creations).
 */
import { Account, EthereumJSErrorWithoutCode, KECCAK256_RLP, unpadBytes } from '@ethereumjs/util'
import type { Address } from '@ethereumjs/util'
import type { BlockStateManager } from './blockState.ts'

/** The EIPs under which the EVM reads more of its state manager than this layer has. */
const OWN_STATE_EIPS = [6800, 7864]

/** One write's undo: the map, the key, and what it held before (undefined: nothing). */
interface Undo {
  map: Map<string, unknown>
  key: string
  before: unknown
}

const latin1 = (Buffer.prototype as unknown as { latin1Slice(this: Uint8Array, start: number, end: number): string }).latin1Slice

/**
 * A key of bytes: one Latin-1 character per byte, written from the bytes themselves (no hex, no
 * Buffer made around them: `Buffer.from(...).toString` cost about twice as much a key).
 */
function keyOf(bytes: Uint8Array): string {
  return latin1.call(bytes, 0, bytes.length)
}

/** A new Account with the same fields (the byte fields shared: EthereumJS replaces them, never writes into them). */
const copyOf = (a: Account): Account => new Account(a.nonce, a.balance, a.storageRoot, a.codeHash)

const NO_CODE = new Uint8Array(0)

/**
 * The layer for a call on `state` under `common`'s rules, or undefined when the call must run on
 * the block's state manager itself (see the file's comment).
 */
export function callLayerOver(state: unknown, common: { isActivatedEIP(eip: number): boolean }): CallLayer | undefined {
  const block = state as Partial<BlockStateManager>
  if (typeof block.slotAt !== 'function' || block.fork !== undefined) return undefined
  if (OWN_STATE_EIPS.some((eip) => common.isActivatedEIP(eip))) return undefined
  return new CallLayer(state as BlockStateManager)
}

export class CallLayer {
  readonly #block: BlockStateManager
  /** Accounts read or written (null: none, or deleted), by address. */
  readonly #accounts = new Map<string, Account | null>()
  /** Each address's slots written since the call began or its storage was cleared (unpadded values). */
  readonly #slots = new Map<string, Map<string, Uint8Array>>()
  /** Code put or deleted (empty), by address. */
  readonly #codes = new Map<string, Uint8Array>()
  readonly #undo: Undo[] = []
  /** The undo list's length at each open checkpoint. */
  readonly #checkpoints: number[] = []
  /** EthereumJS's `OriginalStorageCache`: a slot's value at its first read as an original, for SSTORE's gas. */
  readonly originalStorageCache: OriginalSlots

  constructor(block: BlockStateManager) {
    this.#block = block
    this.originalStorageCache = new OriginalSlots(this)
  }

  #set<V>(map: Map<string, V>, key: string, value: V): void {
    if (this.#checkpoints.length > 0) this.#undo.push({ map: map as Map<string, unknown>, key, before: map.get(key) })
    map.set(key, value)
  }

  checkpoint(): void {
    this.#checkpoints.push(this.#undo.length)
  }

  commit(): void {
    if (this.#checkpoints.pop() === undefined) throw EthereumJSErrorWithoutCode('Nothing to commit')
  }

  revert(): void {
    const mark = this.#checkpoints.pop()
    if (mark === undefined) throw EthereumJSErrorWithoutCode('Nothing to revert')
    const undo = this.#undo
    while (undo.length > mark) {
      const { map, key, before } = undo.pop()!
      if (before === undefined) map.delete(key)
      else map.set(key, before)
    }
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    const key = keyOf(address.bytes)
    let account = this.#accounts.get(key)
    if (account === undefined) {
      // A read: the block's account, kept (not a write: no undo, it is what every revert comes back to).
      account = (await this.#block.blockAccount(address)) ?? null
      if (!this.#accounts.has(key)) this.#accounts.set(key, account)
    }
    return account === null ? undefined : copyOf(account)
  }

  async putAccount(address: Address, account: Account | undefined): Promise<void> {
    this.#set(this.#accounts, keyOf(address.bytes), account === undefined ? null : copyOf(account))
  }

  async deleteAccount(address: Address): Promise<void> {
    const key = keyOf(address.bytes)
    this.#set(this.#codes, key, NO_CODE)
    this.#set(this.#accounts, key, null)
    this.#set(this.#slots, key, new Map())
  }

  async modifyAccountFields(address: Address, fields: Partial<Pick<Account, 'nonce' | 'balance' | 'storageRoot' | 'codeHash' | 'codeSize'>>): Promise<void> {
    // @ethereumjs/statemanager's `modifyAccountFields`.
    const account = (await this.getAccount(address)) ?? new Account()
    account.nonce = fields.nonce ?? account.nonce
    account.balance = fields.balance ?? account.balance
    account.storageRoot = fields.storageRoot ?? account.storageRoot
    account.codeHash = fields.codeHash ?? account.codeHash
    account.codeSize = fields.codeSize ?? account.codeSize
    await this.putAccount(address, account)
  }

  async getCode(address: Address): Promise<Uint8Array> {
    const code = this.#codes.size > 0 ? this.#codes.get(keyOf(address.bytes)) : undefined
    if (code !== undefined) return code
    const account = await this.getAccount(address)
    if (!account || !account.isContract()) return NO_CODE
    return this.#block.codeOf(account.codeHash)
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length
  }

  async putCode(address: Address, code: Uint8Array): Promise<void> {
    // The hash `putCode` makes: the Common's custom keccak256, if any.
    const codeHash = (this.#block as unknown as { keccakFunction(b: Uint8Array): Uint8Array }).keccakFunction(code)
    this.#set(this.#codes, keyOf(address.bytes), code)
    if ((await this.getAccount(address)) === undefined) await this.putAccount(address, new Account())
    await this.modifyAccountFields(address, { codeHash })
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (key.length !== 32) throw EthereumJSErrorWithoutCode('Storage key must be 32 bytes long')
    if (this.#slots.size > 0) {
      const written = this.#slots.get(keyOf(address.bytes))?.get(keyOf(key))
      if (written !== undefined) return written
    }
    const account = await this.getAccount(address)
    if (!account) return new Uint8Array()
    return this.#block.slotAt(address, account.storageRoot, key)
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (key.length !== 32) throw EthereumJSErrorWithoutCode('Storage key must be 32 bytes long')
    if (value.length > 32) throw EthereumJSErrorWithoutCode('Storage value cannot be longer than 32 bytes')
    if (!(await this.getAccount(address))) throw EthereumJSErrorWithoutCode('putStorage() called on non-existing account')
    const addressKey = keyOf(address.bytes)
    let slots = this.#slots.get(addressKey)
    if (slots === undefined) this.#set(this.#slots, addressKey, (slots = new Map()))
    // A copy: the value may be a view of a buffer the handlers use again.
    this.#set(slots, keyOf(key), unpadBytes(value).slice())
  }

  async clearStorage(address: Address): Promise<void> {
    const account = (await this.getAccount(address)) ?? new Account()
    this.#set(this.#slots, keyOf(address.bytes), new Map())
    account.storageRoot = KECCAK256_RLP
    await this.putAccount(address, account)
  }
}

/** EthereumJS's `OriginalStorageCache` over a layer: a slot's value when first asked, kept for the call. */
class OriginalSlots {
  readonly #layer: CallLayer
  #values = new Map<string, Uint8Array>()

  constructor(layer: CallLayer) {
    this.#layer = layer
  }

  async get(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const slotKey = keyOf(address.bytes) + keyOf(key)
    let value = this.#values.get(slotKey)
    if (value === undefined) {
      value = await this.#layer.getStorage(address, key)
      if (!this.#values.has(slotKey)) this.#values.set(slotKey, value)
    }
    return value
  }

  put(address: Address, key: Uint8Array, value: Uint8Array): void {
    const slotKey = keyOf(address.bytes) + keyOf(key)
    if (!this.#values.has(slotKey)) this.#values.set(slotKey, value)
  }

  clear(): void {
    this.#values = new Map()
  }
}
