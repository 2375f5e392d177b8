/**
 * An account in the head's state (its edits included), as admission and the miner's nonces read it
 * before each block. Mining on the head leaves the head state's caches holding what the block read
 * and wrote, the sender's account among them: found there, peeked (nothing in that state changes:
 * ../vm/cacheJournal.ts `restingAccount`), no read state of the new head is made for it (a trie
 * copy, then the account's path walked and decoded from the root, at every head of a
 * send-and-receipt loop). Otherwise (not cached, another root, caches not at rest) the head's
 * read state answers.
 */
import { createAddressFromString } from '@ethereumjs/util'
import type { Account } from '@ethereumjs/util'
import type { BlockStateManager } from '../vm/blockState.ts'
import type { RecordingStateManager } from '../vm/recordingState.ts'

/** The account at `from` (lowercase hex) in the state at `root` (the head's), `state` being the head state. */
export async function headAccount(state: RecordingStateManager, root: Uint8Array, from: string, readState: () => Promise<BlockStateManager>): Promise<Account | undefined> {
  const held = state.cacheJournal.restingAccount(root, from.slice(2))
  if (held !== null) return held
  return (await readState()).getAccount(createAddressFromString(from))
}
