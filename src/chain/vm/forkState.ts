/**
 * A forked chain's state: the chain's own trie holds only what was written after the fork (by its
 * blocks, its state edits), and whatever it lacks is the upstream's at the fork block. So a read
 * looks in the trie first; an account or slot the trie has no entry for falls through to
 * `ForkReads` (the upstream at the fork block, read once and kept: ../loading/fork/forkSource.ts).
 *
 * An entry the chain deleted must not fall through: a slot set to zero, an account removed. The
 * fork's tries never delete (./forkTrie.ts): they write `TOMBSTONE`, the RLP of empty bytes, which
 * as a slot decodes to zero and as an account reads as none (`accountFromEntry`).
 *
 * Accounts read from the upstream carry the empty storage root: the chain's storage trie of such
 * an account holds only the slots written after the fork, the rest falls through slot by slot.
 * Code is read by address (the trie database keys it by hash, and a restore drops what was written
 * after the snapshot: the fork keeps it instead).
 */
import type { Address } from '@ethereumjs/util'

/** What a forked chain's state reads from the upstream at the fork block (kept once read). */
export interface ForkReads {
  /** The account's RLP (nonce, balance, the empty storage root, code hash), or null: none. */
  account(address: Address): Promise<Uint8Array | null>
  /** The slot's value as the storage trie holds it (the RLP of its unpadded bytes), or null: zero. */
  storage(address: Address, key: Uint8Array): Promise<Uint8Array | null>
  /** The account's code (empty for none). */
  code(address: Address): Promise<Uint8Array>
}

/** What a fork's trie writes instead of deleting: the RLP of empty bytes. */
export const TOMBSTONE = Uint8Array.of(0x80)

export function isTombstone(value: Uint8Array): boolean {
  return value.length === 1 && value[0] === 0x80
}

/**
 * An account trie entry read under a fork: the entry, else the upstream's account; a tombstone
 * is no account (null).
 */
export async function forkAccountEntry(entry: Uint8Array | null, fork: ForkReads, address: Address): Promise<Uint8Array | null> {
  if (entry === null) return fork.account(address)
  return isTombstone(entry) ? null : entry
}

/** A forked chain's upstream as the RPC layer sees it: the fork block, and the history up to it. */
export interface ForkOrigin {
  /** The fork block's number and hash (lowercase hex). */
  readonly block: bigint
  readonly hash: string
  /** The upstream's URL as it may be shown (its key hidden). */
  readonly upstream: string
  readonly chainId: bigint
  /** Whether reads come from the cache alone. */
  readonly offline: boolean
  /** An upstream request about the history at or before the fork block, kept once answered. */
  history(method: string, params: readonly unknown[]): Promise<unknown>
  /** Upstream requests sent so far (retries included). */
  readonly requests: number
  /** Reads from another upstream URL from now on (Anvil's `anvil_setRpcUrl`); what was read stays kept. */
  setUrl(url: string): void
}

/**
 * A read the upstream could not answer (after its retries), or that an offline fork's cache lacks:
 * answered to the client as a JSON-RPC error (-32000) with this message; nothing is kept of it.
 * A request about the history that the upstream answered with an error carries that error (`rpc`).
 */
export class ForkReadError extends Error {
  override readonly name: string = 'ForkReadError'
  readonly rpc: { readonly code: number; readonly message: string; readonly data?: unknown } | undefined
  constructor(message: string, rpc?: { code: number; message: string; data?: unknown }) {
    super(message)
    this.rpc = rpc
  }
}
