/**
 * EIP-1186 proofs (eth_getProof) as geth writes them: the account trie's nodes on the path to the
 * account, and for each storage key the storage trie's nodes on its path, over the state of one
 * block. An account that does not exist has the zero hash as code hash and storage hash (geth's
 * `GetCodeHash`/`GetStorageRoot` of a missing object), and an account without storage proves
 * every key with no nodes.
 */
import { createMerkleProof } from '@ethereumjs/mpt'
import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { bytesToBigInt, bytesToHex, equalsBytes, KECCAK256_RLP } from '@ethereumjs/util'
import type { Account, Address } from '@ethereumjs/util'
import type { BlockStateManager } from './blockState.ts'

const ZERO_HASH = `0x${'00'.repeat(32)}`

export interface AccountProof {
  balance: bigint
  nonce: bigint
  codeHash: string
  storageHash: string
  accountProof: string[]
  /** One per key asked, in order: the slot's value and the nodes proving it. */
  storageProof: { value: bigint; proof: string[] }[]
}

/** Proves `address` and `keys` (32-byte slots) in `state` (a read-only state at one block's root). */
export async function proveAccount(state: BlockStateManager, address: Address, keys: readonly Uint8Array[]): Promise<AccountProof> {
  // Element access: the tries are protected on MerkleStateManager; proofs walk them directly.
  const trie = (state as unknown as { _trie: MerklePatriciaTrie })._trie
  const accountProof = (await createMerkleProof(trie, address.bytes)).map((node) => bytesToHex(node))
  const account = await state.getAccount(address)
  if (!account) {
    return {
      balance: 0n,
      nonce: 0n,
      codeHash: ZERO_HASH,
      storageHash: ZERO_HASH,
      accountProof,
      storageProof: keys.map(() => ({ value: 0n, proof: [] })),
    }
  }
  const hasStorage = !equalsBytes(account.storageRoot, KECCAK256_RLP)
  const storageTrie = hasStorage ? storageTrieOf(state, address, account) : undefined
  const storageProof: AccountProof['storageProof'] = []
  for (const key of keys) {
    if (!storageTrie) {
      storageProof.push({ value: 0n, proof: [] })
      continue
    }
    const proof = (await createMerkleProof(storageTrie, key)).map((node) => bytesToHex(node))
    storageProof.push({ value: bytesToBigInt(await state.getStorage(address, key)), proof })
  }
  return {
    balance: account.balance,
    nonce: account.nonce,
    codeHash: bytesToHex(account.codeHash),
    storageHash: bytesToHex(account.storageRoot),
    accountProof,
    storageProof,
  }
}

function storageTrieOf(state: BlockStateManager, address: Address, account: Account): MerklePatriciaTrie {
  return (state as unknown as { _getStorageTrie(a: Address, acc: Account): MerklePatriciaTrie })._getStorageTrie(address, account)
}
