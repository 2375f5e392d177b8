/**
 * keccak-256 on WebAssembly (hash-wasm): about 9x faster here than the pure-JS @noble/hashes
 * EthereumJS uses by default (1.6 vs 14.4 us per 64-byte hash), and trie hashing dominates
 * chain loading. Handed to EthereumJS through `Common.customCrypto.keccak256`.
 */
import { createKeccak } from 'hash-wasm'

const hasher = await createKeccak(256)

export function keccak256(data: Uint8Array): Uint8Array {
  hasher.init()
  hasher.update(data)
  return hasher.digest('binary')
}
