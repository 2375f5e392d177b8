/**
 * V8's collector for the tests that bound what the heap keeps: `--expose-gc` set at run time
 * (vitest's workers start without it) and `gc` read from a fresh context, where the flag makes it.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

setFlagsFromString('--expose-gc')

export const gc = runInNewContext('gc') as () => void

/** The heap in use after two full collections (the second takes what the first's finalizers let go). */
export function heapAfterGc(): number {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}
