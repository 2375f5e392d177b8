/**
 * `@ethereumjs/vm` and `@ethereumjs/evm`, imported on first need: about 75 modules that only
 * executing a transaction or mining a block uses, and most of the server's start (a chain read
 * back from the verified cache, and every read method, never execute anything). Imported once;
 * a failed import is tried again by the next caller.
 */
type VmLibraries = { vm: typeof import('@ethereumjs/vm'); evm: typeof import('@ethereumjs/evm') }

let loading: Promise<VmLibraries> | undefined
let loaded: VmLibraries | undefined

export function vmLibraries(): Promise<VmLibraries> {
  if (!loading) {
    loading = Promise.all([import('@ethereumjs/vm'), import('@ethereumjs/evm')]).then(([vm, evm]) => (loaded = { vm, evm }))
    loading.catch(() => {
      loading = undefined
    })
  }
  return loading
}

/** The libraries, for code that runs on a VM (which only exists once `vmLibraries()` has resolved). */
export function loadedVmLibraries(): VmLibraries {
  if (!loaded) throw new Error('@ethereumjs/vm used before vmLibraries() resolved')
  return loaded
}
