/**
 * An account in the head's state (its edits included), as admission and the miner's nonces read
 * it before each block. Mining on the head leaves the chain's own state (the VM's) at the head's
 * root, its caches holding what the block just read and wrote (the sender's account among them):
 * read there, the account costs a cache lookup. The head's read state (`ChainStore.stateAt`) was
 * made for these reads alone in a send-and-receipt loop, a new one at every head (a trie copy, then
 * the account's path walked and decoded from the root): ~0.5 ms of a ~7 ms transaction's CPU.
 * Anywhere else (after a reorg, or a state not yet at the head's root) the head's read state
 * answers, as before. Sends and mining run one at a time (`Chain`'s queue), so nothing runs on the
 * chain's state meanwhile.
 */
import { createAddressFromString, equalsBytes } from '@ethereumjs/util'
import type { Account } from '@ethereumjs/util'
import type { ChainStore } from './chainStore.ts'

/** The head's account at `from` (lowercase hex), undefined when it does not exist. */
export async function headAccount(store: ChainStore, from: string): Promise<Account | undefined> {
  const address = createAddressFromString(from)
  const root = store.stateRootOf(store.head)
  const state = await store.getState()
  if (equalsBytes(await state.getStateRoot(), root)) return state.getAccount(address)
  return (await store.stateAt(store.head)).getAccount(address)
}
