/**
 * The prestateTracer's `diffMode` (geth's `processDiffState`), once the transaction is over: for
 * each account looked up, what changed. `post` gets the new balance, nonce, code hash, code and
 * the changed slots (a slot set to zero is left out of `post`); `pre` keeps only changed accounts
 * and changed, non-zero slots. A destroyed account stays in `pre` and is absent from `post`. An
 * account that does not exist has the zero code hash, as geth's `GetCodeHash` answers.
 */
import type { StateManagerInterface } from '@ethereumjs/common'
import { bytesToHex, createAddressFromString, hexToBytes, setLengthLeft } from '@ethereumjs/util'

export interface PrestateConfig {
  diffMode: boolean
  disableCode: boolean
  disableStorage: boolean
  includeEmpty: boolean
}

/** An account as the tracer reports it (geth's `account`), values as read. */
export interface AccountState {
  balance: bigint
  nonce: bigint
  code: Uint8Array | undefined
  codeHash: string | undefined
  storage: Map<string, string> | undefined
  empty: boolean
}

/** An account of `post` in diff mode: only what changed. */
export interface PostAccount {
  balance?: bigint
  nonce?: bigint
  code?: Uint8Array
  codeHash?: string
  storage?: Map<string, string>
}

const ZERO_WORD = `0x${'00'.repeat(32)}`
const EMPTY_CODE_HASH = '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470'

export async function diffState(
  pre: Map<string, AccountState>,
  deleted: ReadonlySet<string>,
  state: StateManagerInterface,
  config: PrestateConfig,
): Promise<Map<string, PostAccount>> {
  const post = new Map<string, PostAccount>()
  for (const [addr, before] of [...pre]) {
    if (deleted.has(addr)) continue
    const at = createAddressFromString(addr)
    const account = await state.getAccount(at)
    const after: PostAccount = {}
    let modified = false
    const balance = account?.balance ?? 0n
    if (balance !== before.balance) {
      modified = true
      after.balance = balance
    }
    const nonce = account?.nonce ?? 0n
    if (nonce !== before.nonce) {
      modified = true
      after.nonce = nonce
    }
    const codeHash = account ? bytesToHex(account.codeHash) : ZERO_WORD
    if (codeHash !== (before.codeHash ?? EMPTY_CODE_HASH)) {
      modified = true
      after.codeHash = codeHash
    }
    if (!config.disableCode) {
      const code = account ? await state.getCode(at) : new Uint8Array()
      if (bytesToHex(code) !== bytesToHex(before.code ?? new Uint8Array())) {
        modified = true
        after.code = code
      }
    }
    if (!config.disableStorage && before.storage) {
      const changed = new Map<string, string>()
      for (const [key, value] of [...before.storage]) {
        if (value === ZERO_WORD) before.storage.delete(key)
        const now = bytesToHex(setLengthLeft(await state.getStorage(at, hexToBytes(key as `0x${string}`)), 32))
        if (now === value) {
          before.storage.delete(key)
        } else {
          modified = true
          if (now !== ZERO_WORD) changed.set(key, now)
        }
      }
      after.storage = changed
    }
    if (modified) post.set(addr, after)
    else pre.delete(addr)
  }
  return post
}
