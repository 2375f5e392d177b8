/**
 * geth's prestateTracer (`eth/tracers/native/prestate.go`): every account and storage slot the
 * transaction touches, as it was before. Accounts are looked up when first touched: the sender,
 * the recipient (or the contract a creation makes), the fee recipient and EIP-7702 authorities at
 * the start; then the targets of BALANCE, EXTCODE*, SELFDESTRUCT, calls (and an EIP-7702
 * delegate) and creations; slots on SLOAD and SSTORE. An account that did not exist is dropped
 * (unless `includeEmpty`). With `diffMode` the answer is `{post, pre}` of what changed (./diff.ts).
 * A step that fails before running touches nothing, as in geth.
 */
import type { StateManagerInterface } from '@ethereumjs/common'
import { bytesToHex, createAddressFromString, generateAddress, generateAddress2, hexToBytes, KECCAK256_NULL, setLengthLeft } from '@ethereumjs/util'
import type { OpcodeStep, Tracer, TxStart } from './hooks.ts'
import type { TraceBudget } from './limits.ts'
import { isCallOp, OP } from './opcodes.ts'
import { diffState } from './prestateDiff.ts'
import type { AccountState, PostAccount, PrestateConfig } from './prestateDiff.ts'

export type { PrestateConfig } from './prestateDiff.ts'

/** EIP-7702's delegation designator: `0xef0100 ‖ address`. */
const DELEGATION_PREFIX = '0xef0100'
const ACCOUNT_BYTES = 256
const LOOKUP_OPS = [OP.SLOAD, OP.SSTORE, OP.EXTCODECOPY, OP.EXTCODEHASH, OP.EXTCODESIZE, OP.BALANCE, OP.SELFDESTRUCT, OP.CALL, OP.CALLCODE, OP.DELEGATECALL, OP.STATICCALL, OP.CREATE, OP.CREATE2]

export class PrestateTracer implements Tracer {
  readonly #config: PrestateConfig
  readonly #budget: TraceBudget
  readonly #pre = new Map<string, AccountState>()
  readonly #created = new Set<string>()
  readonly #deleted = new Set<string>()
  #state!: StateManagerInterface
  #cancun = false
  #prague = false
  /** What the step not yet confirmed added, undone if it failed before running. */
  #tentative: (() => void)[] = []
  #post: Map<string, PostAccount> | undefined

  constructor(config: PrestateConfig, budget: TraceBudget) {
    this.#config = config
    this.#budget = budget
  }

  /** The opcodes that touch accounts and slots; each waits for the state it reads. */
  readonly opcodes = { which: LOOKUP_OPS, async: true }

  async onTxStart(tx: TxStart): Promise<void> {
    this.#state = tx.state
    this.#cancun = tx.cancun
    this.#prague = tx.prague
    let to = tx.to
    if (to === undefined) {
      const nonce = (await this.#state.getAccount(createAddressFromString(tx.from)))?.nonce ?? 0n
      to = bytesToHex(generateAddress(hexToBytes(tx.from as `0x${string}`), bigEndian(nonce)))
      this.#created.add(to)
    } else if (this.#prague) {
      await this.#lookupDelegate(to)
    }
    await this.#lookupAccount(tx.from)
    await this.#lookupAccount(to)
    await this.#lookupAccount(tx.coinbase)
    for (const authority of tx.authorities) await this.#lookupAccount(authority)
    this.#tentative = []
  }

  async onOpcode(step: OpcodeStep): Promise<void> {
    this.#tentative = []
    const s = step.stack
    const top = s.length - 1
    const op = step.op
    const caller = step.address
    if (top >= 0 && (op === OP.SLOAD || op === OP.SSTORE)) {
      await this.#lookupStorage(caller, word(s[top]!))
    } else if (top >= 0 && (op === OP.EXTCODECOPY || op === OP.EXTCODEHASH || op === OP.EXTCODESIZE || op === OP.BALANCE || op === OP.SELFDESTRUCT)) {
      await this.#lookupAccount(address(s[top]!))
      if (op === OP.SELFDESTRUCT && (!this.#cancun || this.#created.has(caller))) this.#tentative.push(add(this.#deleted, caller))
    } else if (top >= 4 && isCallOp(op)) {
      const target = address(s[top - 1]!)
      await this.#lookupAccount(target)
      if (this.#prague) await this.#lookupDelegate(target)
    } else if (op === OP.CREATE) {
      const nonce = (await this.#state.getAccount(createAddressFromString(caller)))?.nonce ?? 0n
      await this.#created_(bytesToHex(generateAddress(hexToBytes(caller as `0x${string}`), bigEndian(nonce))))
    } else if (top >= 3 && op === OP.CREATE2) {
      const offset = Number(s[top - 1]!)
      const size = Number(s[top - 2]!)
      const init = new Uint8Array(size)
      init.set(step.memory.subarray(offset, offset + size))
      const salt = setLengthLeft(hexToBytes(word(s[top - 3]!) as `0x${string}`), 32)
      await this.#created_(bytesToHex(generateAddress2(hexToBytes(caller as `0x${string}`), salt, init)))
    }
  }

  onOpcodeDone(error: string | undefined): void {
    if (error !== undefined) for (const undo of this.#tentative.reverse()) undo()
    this.#tentative = []
  }

  async onTxEnd(): Promise<void> {
    if (this.#config.diffMode) this.#post = await diffState(this.#pre, this.#deleted, this.#state, this.#config)
    if (this.#config.includeEmpty) return
    for (const [addr, account] of this.#pre) if (account.empty) this.#pre.delete(addr)
  }

  result(): string {
    const pre = accountsJson(this.#pre)
    return this.#post ? `{"post":${accountsJson(this.#post)},"pre":${pre}}` : pre
  }

  async #created_(addr: string): Promise<void> {
    await this.#lookupAccount(addr)
    this.#tentative.push(add(this.#created, addr))
  }

  async #lookupDelegate(addr: string): Promise<void> {
    const code = bytesToHex(await this.#state.getCode(createAddressFromString(addr)))
    if (code.length === 48 && code.startsWith(DELEGATION_PREFIX)) await this.#lookupAccount(`0x${code.slice(8)}`)
  }

  async #lookupAccount(addr: string): Promise<void> {
    if (this.#pre.has(addr)) return
    const at = createAddressFromString(addr)
    const account = await this.#state.getAccount(at)
    const code = account ? await this.#state.getCode(at) : new Uint8Array()
    const balance = account?.balance ?? 0n
    const nonce = account?.nonce ?? 0n
    const hasCodeHash = account !== undefined && !bytesEqual(account.codeHash, KECCAK256_NULL)
    const state: AccountState = {
      balance,
      nonce,
      code: this.#config.disableCode || code.length === 0 ? undefined : code,
      codeHash: hasCodeHash ? bytesToHex(account.codeHash) : undefined,
      storage: this.#config.disableStorage ? undefined : new Map(),
      empty: !(nonce > 0n || code.length > 0 || balance !== 0n),
    }
    this.#budget.charge(ACCOUNT_BYTES + code.length * 2)
    this.#pre.set(addr, state)
    this.#tentative.push(() => this.#pre.delete(addr))
  }

  async #lookupStorage(addr: string, key: string): Promise<void> {
    if (this.#config.disableStorage) return
    await this.#lookupAccount(addr)
    const storage = this.#pre.get(addr)!.storage!
    if (storage.has(key)) return
    const value = await this.#state.getStorage(createAddressFromString(addr), hexToBytes(key as `0x${string}`))
    this.#budget.charge(140)
    storage.set(key, bytesToHex(setLengthLeft(value, 32)))
    this.#tentative.push(() => storage.delete(key))
  }
}

/** geth's JSON of a state map: `balance`, `code`, `codeHash`, `nonce`, `storage`, each left out when empty. */
export function accountsJson(accounts: ReadonlyMap<string, AccountState | PostAccount>): string {
  const out: Record<string, Record<string, unknown>> = {}
  for (const [addr, a] of accounts) {
    const o: Record<string, unknown> = {}
    if (a.balance !== undefined) o.balance = `0x${a.balance.toString(16)}`
    if (a.code !== undefined) o.code = bytesToHex(a.code)
    if (a.codeHash !== undefined) o.codeHash = a.codeHash
    if (a.nonce !== undefined && a.nonce !== 0n) o.nonce = Number(a.nonce)
    if (a.storage !== undefined && a.storage.size > 0) o.storage = Object.fromEntries(a.storage)
    out[addr] = o
  }
  return JSON.stringify(out)
}

function add(set: Set<string>, value: string): () => void {
  if (set.has(value)) return () => {}
  set.add(value)
  return () => set.delete(value)
}

function word(n: bigint): string {
  return `0x${n.toString(16).padStart(64, '0')}`
}

function address(n: bigint): string {
  return `0x${(n & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`
}

function bigEndian(n: bigint): Uint8Array {
  if (n === 0n) return new Uint8Array()
  const hex = n.toString(16)
  return hexToBytes(`0x${hex.length % 2 ? '0' : ''}${hex}` as `0x${string}`)
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i])
}
