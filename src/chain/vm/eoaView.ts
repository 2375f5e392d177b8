/**
 * EIP-3607 waived for one sender. EthereumJS's runTx refuses a sender with code, reading the
 * sender's account once before anything else in the transaction does and comparing its code hash;
 * geth runs calls from any address (`SkipTransactionChecks`), and Anvil and Hardhat mine what an
 * impersonated contract sends. Armed with an address, the next read of that account answers an
 * account whose code hash reads empty the first time only: that check passes, and every later read
 * of the same object (the puts that debit and bump the sender) gives the real hash, so the code
 * stays. A state manager holds one `EoaView` and passes each account it reads through `apply`.
 */
import { bytesToHex, KECCAK256_NULL } from '@ethereumjs/util'
import type { Account, Address } from '@ethereumjs/util'

export class EoaView {
  /** The address (lowercase hex) whose next account read answers an empty code hash once. */
  #address: string | undefined

  arm(address: Address): void {
    this.#address = bytesToHex(address.bytes)
  }

  disarm(): void {
    this.#address = undefined
  }

  /** Whether the next read of some account may answer the EOA view (a read that skips `apply` would leave it armed). */
  get armed(): boolean {
    return this.#address !== undefined
  }

  /** `account` as the read of `address` answers it: the EOA view when armed for it (which disarms). */
  apply(address: Address, account: Account | undefined): Account | undefined {
    if (this.#address === undefined || account === undefined || this.#address !== bytesToHex(address.bytes)) return account
    this.#address = undefined
    if (!account.isContract()) return account
    let read = false
    Object.defineProperty(account, 'codeHash', {
      get(this: { _codeHash: Uint8Array }) {
        if (read) return this._codeHash
        read = true
        return KECCAK256_NULL
      },
      set(this: { _codeHash: Uint8Array }, value: Uint8Array) {
        this._codeHash = value
      },
      configurable: true,
    })
    return account
  }
}
