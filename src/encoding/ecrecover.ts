/**
 * Public-key recovery through libsecp256k1 (the `secp256k1` package's prebuilt native binding):
 * ~70 us against ~3.6 ms for EthereumJS's pure-JS default, and recovering every sender is most of
 * what loading a chain costs. Where the native binding cannot load (a platform without a
 * prebuild), EthereumJS's own `ecrecover` serves, with the same results.
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

const nativeRecover = loadNative()

/** EthereumJS's `customCrypto.ecrecover`: the 64-byte uncompressed public key, without its 0x04 prefix. */
export function ecrecover(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array {
  if (!nativeRecover) return jsEcrecover(msgHash, v, r, s, chainId)
  const recovery = calculateSigRecovery(v, chainId)
  if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value')
  const signature = new Uint8Array(64)
  signature.set(setLengthLeft(r, 32), 0)
  signature.set(setLengthLeft(s, 32), 32)
  return nativeRecover(signature, Number(recovery), msgHash, false).slice(1)
}

export const hasNativeEcrecover = nativeRecover !== undefined
