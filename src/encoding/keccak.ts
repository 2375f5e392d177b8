/**
 * keccak-256 on WebAssembly (hash-wasm): about 9x faster here than the pure-JS @noble/hashes
 * EthereumJS uses by default (1.6 vs 14.4 us per 64-byte hash), and trie hashing dominates
 * chain loading. Handed to EthereumJS through `Common.customCrypto.keccak256`.
 *
 * The WebAssembly module compiles asynchronously, and this module must not wait for it at its top
 * level: a top-level await makes the whole module graph async, and `require('gateway-double')`
 * (Node's require of ES modules) refuses such a graph. Until the hasher is ready (a few
 * milliseconds after import), hashes come from @noble/hashes: the same answers, only slower.
 * Work that hashes a lot (a fixture's replay) awaits `keccakReady` first.
 */
import { keccak256 as nobleKeccak256 } from 'ethereum-cryptography/keccak.js'
import { createKeccak } from 'hash-wasm'

type Hasher = Awaited<ReturnType<typeof createKeccak>>

let hasher: Hasher | undefined

/** Resolves once the WebAssembly hasher is in use (or, should it fail to load, at once: noble stays). */
export const keccakReady: Promise<void> = createKeccak(256).then(
  (h) => {
    hasher = h
  },
  () => undefined,
)

export function keccak256(data: Uint8Array): Uint8Array {
  if (hasher === undefined) return nobleKeccak256(data)
  hasher.init()
  hasher.update(data)
  return hasher.digest('binary')
}
