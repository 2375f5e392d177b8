/**
 * keccak-256 on WebAssembly (hash-wasm): about 9x faster here than the pure-JS @noble/hashes
 * EthereumJS uses by default (1.6 vs 14.4 us per 64-byte hash), and trie hashing dominates
 * chain loading. Handed to EthereumJS through `Common.customCrypto.keccak256`.
 *
 * The WebAssembly module compiles asynchronously, and this module must not wait for it at its top
 * level: a top-level await makes the whole module graph async, and `require('gateway-double')`
 * (Node's require of ES modules) refuses such a graph. It is compiled on the first hash, not at
 * import: a start from the verified cache hashes nothing before its first answer, and decoding
 * and instantiating the module was about 12 million instructions of a cold start's ~240 million
 * of our own (callgrind). Until the hasher is ready (a few milliseconds after the first hash),
 * hashes come from @noble/hashes: the same answers, only slower. Work that hashes a lot (a
 * fixture's replay) awaits `keccakReady()` first.
 */
import { keccak256 as nobleKeccak256 } from 'ethereum-cryptography/keccak.js'
import { createKeccak } from 'hash-wasm'

type Hasher = Awaited<ReturnType<typeof createKeccak>>

let hasher: Hasher | undefined
let loading: Promise<void> | undefined

/**
 * Starts loading the WebAssembly hasher (once); resolves when it is in use (or, should it fail to
 * load, at once: noble stays).
 */
export function keccakReady(): Promise<void> {
  loading ??= createKeccak(256).then(
    (h) => {
      hasher = h
    },
    () => undefined,
  )
  return loading
}

export function keccak256(data: Uint8Array): Uint8Array {
  if (hasher === undefined) {
    void keccakReady()
    return nobleKeccak256(data)
  }
  hasher.init()
  hasher.update(data)
  return hasher.digest('binary')
}
