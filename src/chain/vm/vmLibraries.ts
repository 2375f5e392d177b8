/**
 * What a start does not need, imported on first need: `@ethereumjs/vm` and `@ethereumjs/evm`
 * (about 75 modules that only executing a transaction or mining a block uses: a chain read back
 * from the verified cache, and every read method, never execute anything), and
 * `@ethereumjs/statemanager` (about 35 modules with the binary tree it brings, 50-60 ms: only
 * reading or changing state uses it, not answering from the blocks). Each is imported once; a
 * failed import is tried again by the next caller.
 */
import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import type { Common } from '@ethereumjs/common'
import { KeyBook } from './keyBook.ts'
import type { ForkReads } from './forkState.ts'
import type { RecordingStateManager } from './recordingState.ts'

type VmLibraries = { vm: typeof import('@ethereumjs/vm'); evm: typeof import('@ethereumjs/evm') }

let loading: Promise<VmLibraries> | undefined
let loaded: VmLibraries | undefined

export function vmLibraries(): Promise<VmLibraries> {
  if (!loading) {
    loading = Promise.all([import('@ethereumjs/vm'), import('@ethereumjs/evm'), import('./interpreterPatch.ts'), import('./commonParams.ts')]).then(async ([vm, evm, patch, params]) => {
      await patch.patchInterpreter()
      params.alignHistoryWindow(evm.paramsEVM, vm.paramsVM)
      return (loaded = { vm, evm })
    })
    loading.catch(() => {
      loading = undefined
    })
  }
  return loading
}

type StateLibraries = {
  statemanager: typeof import('@ethereumjs/statemanager')
  blockState: typeof import('./blockState.ts')
  recordingState: typeof import('./recordingState.ts')
}

let stateLoading: Promise<StateLibraries> | undefined

export function stateLibraries(): Promise<StateLibraries> {
  if (!stateLoading) {
    stateLoading = Promise.all([import('@ethereumjs/statemanager'), import('./blockState.ts'), import('./recordingState.ts'), import('./triePath.ts'), import('./trieNode.ts')]).then(
      ([statemanager, blockState, recordingState, triePath, trieNode]) => {
        triePath.patchFindPath()
        trieNode.patchLookupNode()
        return { statemanager, blockState, recordingState }
      },
    )
    stateLoading.catch(() => {
      stateLoading = undefined
    })
  }
  return stateLoading
}

/**
 * A state manager over `trie` that notes the keys written through it in `book` (importing
 * `@ethereumjs/statemanager` on first use); with `fork`, reading through to the upstream what the
 * trie lacks (./forkState.ts).
 */
export async function merkleState(common: Common, trie: MerklePatriciaTrie, book: KeyBook = new KeyBook(), fork?: ForkReads): Promise<RecordingStateManager> {
  const { recordingState, statemanager } = await stateLibraries()
  const caches = new statemanager.Caches({ account: { type: statemanager.CacheType.LRU, size: 10_000 }, storage: { type: statemanager.CacheType.LRU, size: 20_000 }, code: { type: statemanager.CacheType.LRU, size: 2_000 } })
  return new recordingState.RecordingStateManager({ common, trie, caches }, book, fork)
}

/** The libraries, for code that runs on a VM (which only exists once `vmLibraries()` has resolved). */
export function loadedVmLibraries(): VmLibraries {
  if (!loaded) throw new Error('@ethereumjs/vm used before vmLibraries() resolved')
  return loaded
}
