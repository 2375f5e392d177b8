/**
 * Public-key recovery through libsecp256k1 (the `secp256k1` package's prebuilt native binding):
 * ~70 us against ~3.6 ms for EthereumJS's pure-JS default, and recovering every sender is most of
 * what loading a chain costs. Where the native binding cannot load (a platform without a
 * prebuild), EthereumJS's own `ecrecover` serves, with the same results. The binding is loaded on
 * the first recovery, not at start (about 17 ms, and a chain read back from the verified cache
 * recovers no sender until something reads a transaction).
 */
import { createRequire } from 'node:module'
import { calculateSigRecovery, ecrecover as jsEcrecover, setLengthLeft } from '@ethereumjs/util'

type Recover = (sig: Uint8Array, recid: number, msg: Uint8Array, compressed: boolean) => Uint8Array

function loadNative(): Recover | undefined {
  try {
    const lib = createRequire(import.meta.url)('secp256k1') as { ecdsaRecover: Recover }
    return lib.ecdsaRecover
  } catch {
    return undefined
  }
}

/** undefined: not tried yet; null: cannot load. */
let native: Recover | null | undefined

function nativeRecover(): Recover | null {
  if (native === undefined) native = loadNative() ?? null
  return native
}

/** EthereumJS's `customCrypto.ecrecover`: the 64-byte uncompressed public key, without its 0x04 prefix. */
export function ecrecover(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array {
  const recover = nativeRecover()
  if (!recover) return jsEcrecover(msgHash, v, r, s, chainId)
  const recovery = calculateSigRecovery(v, chainId)
  if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value')
  const signature = new Uint8Array(64)
  signature.set(setLengthLeft(r, 32), 0)
  signature.set(setLengthLeft(s, 32), 32)
  return recover(signature, Number(recovery), msgHash, false).slice(1)
}

/** Whether recovery goes through the native binding (tries to load it). */
export function hasNativeEcrecover(): boolean {
  return nativeRecover() !== null
}
