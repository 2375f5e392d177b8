/**
 * EthereumJS 10.1.3's `MerkleStateManager.flush` (the caches written to the tries: at the outermost
 * commit and whenever the state root is asked, as runBlock does inside its checkpoint) with each
 * trie written in one pass (./trieCommit.ts) instead of put by put. EthereumJS's flush writes every
 * changed slot with a storage trie `put` (walking, encoding and hashing the slot's whole path),
 * puts the account again after each slot with the new storage root, then writes every account with
 * a state trie `put`. Here each written contract's storage trie takes its slots at once, its
 * account is put once with the storage root they make, and the state trie takes every account at
 * once. Same order of steps, same final values, so the same roots and nodes (trieCommit.test.ts,
 * stateCommit.test.ts).
 *
 * Code is written as EthereumJS writes it. A state this does not know how to write as EthereumJS
 * would (a fork trie's deletions are tombstones; prefixed storage keys, node pruning, debug
 * logging) answers false, and EthereumJS's own flush runs.
 */
import { CODEHASH_PREFIX } from '@ethereumjs/statemanager'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { Account, bytesToUnprefixedHex, concatBytes, createAddressFromString, unprefixedHexToBytes } from '@ethereumjs/util'
import type { Address } from '@ethereumjs/util'
import { canCommit, commitWrites } from './trieCommit.ts'
import type { TrieWrite } from './trieCommit.ts'
import { ethereumjsVersion } from './ethereumjsVersion.ts'
import { PATCHED_MPT_VERSION } from './triePath.ts'

/** What the flush reads of EthereumJS 10.1.3's MerkleStateManager. */
interface StateInternals {
  DEBUG: boolean
  _trie: MerklePatriciaTrie
  _prefixCodeHashes: boolean
  _prefixStorageTrieKeys: boolean
  _storageTries: Record<string, MerklePatriciaTrie>
  _caches?: {
    code?: { flush(): [string, { code: Uint8Array | undefined }][] }
    storage?: { flush(): [string, string, Uint8Array | undefined][] }
    account?: { flush(): [string, { accountRLP: Uint8Array | undefined }][] }
  }
  keccakFunction(bytes: Uint8Array): Uint8Array
  _getCodeDB(): { put(key: Uint8Array, value: Uint8Array): Promise<void> }
  _getStorageTrie(address: Address, account: Account): MerklePatriciaTrie
}

/** Flushes `state`'s caches as EthereumJS's `flush` does, each trie in one pass; false (nothing done) where it cannot. */
export async function flushInOnePass(state: MerkleStateManager): Promise<boolean> {
  const sm = state as unknown as StateInternals
  if (!commitsInOnePass(sm)) return false
  await flushCode(state, sm)
  await flushStorage(state, sm)
  const writes: TrieWrite[] = []
  for (const [addressHex, elem] of sm._caches?.account?.flush() ?? []) {
    writes.push({ key: appliedKey(sm._trie, unprefixedHexToBytes(addressHex)), value: elem.accountRLP ?? null })
  }
  await commitWrites(sm._trie, writes)
  return true
}

/** Whether the installed EthereumJS is the version this was written against (read once). */
let knownVersion: boolean | undefined

function commitsInOnePass(sm: StateInternals): boolean {
  const trie = sm._trie
  knownVersion ??= ethereumjsVersion('@ethereumjs/mpt') === PATCHED_MPT_VERSION
  return (
    knownVersion &&
    sm.DEBUG !== true &&
    (trie as unknown as { DEBUG: boolean }).DEBUG !== true &&
    sm._prefixStorageTrieKeys === false &&
    typeof sm._getStorageTrie === 'function' &&
    typeof sm._storageTries === 'object' &&
    // A subclass (./forkTrie.ts) may write deletions its own way.
    trie.constructor === MerklePatriciaTrie &&
    canCommit(trie)
  )
}

/** EthereumJS's own first step, unchanged: code to the database, the account's code hash to the cache. */
async function flushCode(state: MerkleStateManager, sm: StateInternals): Promise<void> {
  for (const [addressHex, { code }] of sm._caches?.code?.flush() ?? []) {
    if (code === undefined) continue
    const address = createAddressFromString(`0x${addressHex}`)
    const codeHash = sm.keccakFunction(code)
    await sm._getCodeDB().put(sm._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, codeHash) : codeHash, code)
    if ((await state.getAccount(address)) === undefined) await state.putAccount(address, new Account())
    await state.modifyAccountFields(address, { codeHash })
  }
}

/**
 * Each written contract's slots in one pass over its storage trie, then its account put once with
 * the new storage root (EthereumJS: a trie put and an account put per slot, the same final values).
 * A slot whose account is gone is skipped, as EthereumJS skips it.
 */
async function flushStorage(state: MerkleStateManager, sm: StateInternals): Promise<void> {
  const byAddress = new Map<string, [string, Uint8Array | undefined][]>()
  for (const [addressHex, keyHex, value] of sm._caches?.storage?.flush() ?? []) {
    let slots = byAddress.get(addressHex)
    if (slots === undefined) byAddress.set(addressHex, (slots = []))
    slots.push([keyHex, value])
  }
  for (const [addressHex, slots] of byAddress) {
    const address = createAddressFromString(`0x${addressHex}`)
    const account = await state.getAccount(address)
    if (account === undefined) continue
    const trie = sm._getStorageTrie(address, account)
    const writes: TrieWrite[] = []
    for (const [keyHex, value] of slots) {
      const decoded = RLP.decode(value ?? new Uint8Array(0))
      const stored = decoded instanceof Uint8Array && decoded.length > 0 ? RLP.encode(decoded) : null
      writes.push({ key: appliedKey(trie, unprefixedHexToBytes(keyHex)), value: stored })
    }
    if (canCommit(trie)) await commitWrites(trie, writes)
    else for (const w of writes) await (w.value === null ? trie.del(w.key, true) : trie.put(w.key, w.value, true))
    // EthereumJS's _modifyContractStorage keeps the trie under the address as written (not its hash).
    sm._storageTries[bytesToUnprefixedHex(address.bytes)] = trie
    account.storageRoot = trie.root()
    await state.putAccount(address, account)
  }
}

/** The key as the trie's own `put` stores it (hashed, for the state's secure tries). */
function appliedKey(trie: MerklePatriciaTrie, key: Uint8Array): Uint8Array {
  return (trie as unknown as { appliedKey(key: Uint8Array): Uint8Array }).appliedKey(key)
}
