/**
 * The transaction pool's rules, as geth's `SubmitTransaction` (internal/ethapi) and its legacy
 * pool (core/txpool/validation.go, legacypool) apply them to eth_sendRawTransaction, in geth's
 * order and words. Stateless checks run against the head's fork rules and gas limit; the state
 * checks (nonce, balance, what the sender already has pooled) against the head's state and the
 * pool. The pool itself is ./txPool.ts; what the next block takes, ./selection.ts.
 */
import type { Common } from '@ethereumjs/common'
import { createTxFromRLP } from '@ethereumjs/tx'
import type { TypedTransaction } from '@ethereumjs/tx'
import { bytesToHex } from '@ethereumjs/util'
import { sha256 } from 'ethereum-cryptography/sha256.js'
import { withoutEthereumJsContext } from '../vm/ethereumjsMessage.ts'
import { decodeImpersonated } from './impersonation.ts'
import { intrinsicGas, MAX_TX_GAS } from '../vm/gasRules.ts'
import type { DecodedTx, FieldValue } from './rawTransaction.ts'
import type { PoolTransaction } from './poolTransaction.ts'

/** The pool (or geth's RPC layer before it) refused a transaction; the message is geth's. */
export class TxRejectedError extends Error {
  override readonly name = 'TxRejectedError'
}

/** geth's `txMaxSize`: 4 slots of 32 KiB (the blob pool's: 1 MiB, sidecar included). */
export const TX_MAX_SIZE = 131072
export const BLOB_TX_MAX_SIZE = 1048576
/** geth's `params.BlobTxMaxBlobs`. */
const BLOB_TX_MAX_BLOBS = 6
const CELL_PROOFS_PER_BLOB = 128
/** geth's default `--rpc.txfeecap`: 1 ether. */
export const RPC_TX_FEE_CAP_WEI = 10n ** 18n
/** geth's default `--txpool.pricelimit`: 1 wei of tip. */
export const MIN_TIP = 1n
/** geth's default `--txpool.pricebump`: a replacement pays 10% more. */
export const PRICE_BUMP = 10n
const MAX_INIT_CODE_SIZE = 49152
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const U256_BITS = 256

const big = (v: FieldValue | undefined): bigint => (typeof v === 'bigint' ? v : 0n)
const bytes = (v: FieldValue | undefined): Uint8Array => (v instanceof Uint8Array ? v : new Uint8Array())

function bitLen(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length
}

/** The checks of geth's `SubmitTransaction` that come before the pool: the fee cap, EIP-155. */
export function checkSubmission(decoded: DecodedTx): void {
  const f = decoded.fields
  const gasPrice = decoded.type === 0 || decoded.type === 1 ? big(f.GasPrice) : big(f.GasFeeCap)
  const fee = gasPrice * big(f.Gas)
  const feeEther = Number(fee) / 1e18
  if (feeEther > Number(RPC_TX_FEE_CAP_WEI) / 1e18) {
    throw new TxRejectedError(`tx fee (${feeEther.toFixed(2)} ether) exceeds the configured cap (1.00 ether)`)
  }
  if (decoded.type === 0 && !isProtectedV(big(f.V))) {
    throw new TxRejectedError('only replay-protected (EIP-155) transactions allowed over RPC')
  }
}

function isProtectedV(v: bigint): boolean {
  if (bitLen(v) <= 8) return v !== 27n && v !== 28n && v !== 1n && v !== 0n
  return true
}

/** What the stateless checks need of the chain: the head's rules and gas limit, the chain id. */
export interface HeadRules {
  /** A Common at the head's fork (geth's pool validates against the head). */
  common: Common
  gasLimit: bigint
  chainId: bigint
  /** A Common at the next block's fork, for the transaction object that block will execute. */
  nextCommon: Common
  /**
   * The sender of an impersonated transaction (./impersonation.ts): its signature is a
   * placeholder, so the signer's checks are skipped and this is the sender.
   */
  sender?: string
}

/**
 * geth's `ValidateTransaction`: everything that needs no state, in its order. Returns the
 * transaction as EthereumJS will execute it, and its sender.
 */
export function validateTransaction(raw: Uint8Array, decoded: DecodedTx, rules: HeadRules): { tx: TypedTransaction; from: string } {
  const f = decoded.fields
  const type = decoded.type
  const { common } = rules
  const blobHashes = Array.isArray(f.BlobHashes) ? (f.BlobHashes as Uint8Array[]) : []
  const maxSize = type === 3 ? BLOB_TX_MAX_SIZE : TX_MAX_SIZE
  if (decoded.size > maxSize) {
    throw new TxRejectedError(`oversized data: transaction size ${decoded.size}, limit ${maxSize}`)
  }
  const forkNeeded: Record<number, [string, string]> = { 1: ['berlin', 'Berlin'], 2: ['london', 'London'], 3: ['cancun', 'Cancun'], 4: ['prague', 'Prague'] }
  const need = forkNeeded[type]
  if (need && !common.gteHardfork(need[0])) {
    throw new TxRejectedError(`transaction type not supported: type ${type} rejected, pool not yet in ${need[1]}`)
  }
  const gas = big(f.Gas)
  const data = bytes(f.Data)
  const create = f.To === null
  if (create && common.gteHardfork('shanghai') && data.length > MAX_INIT_CODE_SIZE) {
    throw new TxRejectedError(`max initcode size exceeded: code size ${data.length}, limit ${MAX_INIT_CODE_SIZE}`)
  }
  if (common.gteHardfork('osaka') && gas > MAX_TX_GAS) {
    throw new TxRejectedError(`transaction gas limit too high (cap: ${MAX_TX_GAS}, tx: ${gas})`)
  }
  if (rules.gasLimit < gas) throw new TxRejectedError('exceeds block gas limit')
  const feeCap = type <= 1 ? big(f.GasPrice) : big(f.GasFeeCap)
  const tipCap = type <= 1 ? big(f.GasPrice) : big(f.GasTipCap)
  if (bitLen(feeCap) > U256_BITS) throw new TxRejectedError('max fee per gas higher than 2^256-1')
  if (bitLen(tipCap) > U256_BITS) throw new TxRejectedError('max priority fee per gas higher than 2^256-1')
  if (feeCap < tipCap) throw new TxRejectedError('max priority fee per gas higher than max fee per gas')

  const { tx, from } = rules.sender === undefined ? recoverSender(raw, decoded, rules) : impersonated(decoded, rules.sender, rules)

  if (big(f.Nonce) === (1n << 64n) - 1n) throw new TxRejectedError('nonce has max value')
  const accessList = decodedAccessList(f.AccessList)
  const authorizations = Array.isArray(f.AuthList) ? f.AuthList : []
  const { intrinsic, floor } = intrinsicGas(common, {
    to: create ? undefined : bytesToHex(bytes(f.To)),
    data,
    accessList,
    authorizationList: authorizations,
  })
  if (gas < intrinsic) throw new TxRejectedError(`intrinsic gas too low: gas ${gas}, minimum needed ${intrinsic}`)
  if (floor !== undefined && gas < floor) {
    throw new TxRejectedError(`insufficient gas for floor data gas cost: gas ${gas}, minimum needed ${floor}`)
  }
  if (tipCap < MIN_TIP) {
    throw new TxRejectedError(`transaction gas price below minimum: gas tip cap ${tipCap}, minimum needed ${MIN_TIP}`)
  }
  if (type === 3) validateBlobSidecar(decoded, blobHashes, common)
  if (type === 4 && authorizations.length === 0) {
    throw new TxRejectedError('set code tx must have at least one authorization tuple')
  }
  return { tx, from }
}

/**
 * geth's `validateBlobTx`: the sidecar's version for the fork, the blob fee floor, the counts, and
 * the commitments against the versioned hashes. The KZG proofs themselves are not verified (a
 * cell-proof check costs more than the double should spend on a test transaction).
 */
function validateBlobSidecar(decoded: DecodedTx, hashes: Uint8Array[], common: Common): void {
  const sidecar = decoded.sidecar
  if (!sidecar) throw new TxRejectedError('missing sidecar in blob transaction')
  const version = common.gteHardfork('osaka') ? 1 : 0
  if (sidecar.version !== version) throw new TxRejectedError(`unexpected sidecar version, want: ${version}, got: ${sidecar.version}`)
  const blobFeeCap = big(decoded.fields.BlobFeeCap)
  if (blobFeeCap < 1n) throw new TxRejectedError(`transaction gas price below minimum: blob fee cap ${blobFeeCap}, minimum needed 1`)
  if (hashes.length === 0) throw new TxRejectedError('blobless blob transaction')
  if (hashes.length > BLOB_TX_MAX_BLOBS) {
    throw new TxRejectedError(`too many blobs in transaction: have ${hashes.length}, permitted ${BLOB_TX_MAX_BLOBS}`)
  }
  if (sidecar.blobs.length !== hashes.length) {
    throw new TxRejectedError(`invalid number of ${sidecar.blobs.length} blobs compared to ${hashes.length} blob hashes`)
  }
  if (sidecar.commitments.length !== hashes.length) {
    throw new TxRejectedError(`invalid number of ${sidecar.commitments.length} blob commitments compared to ${hashes.length} blob hashes`)
  }
  sidecar.commitments.forEach((commitment, i) => {
    const computed = sha256(commitment)
    computed[0] = 1
    if (bytesToHex(computed) !== bytesToHex(hashes[i]!)) {
      throw new TxRejectedError(`blob ${i}: computed hash ${bytesToHex(computed)} mismatches transaction one ${bytesToHex(hashes[i]!)}`)
    }
  })
  const proofs = version === 1 ? hashes.length * CELL_PROOFS_PER_BLOB : hashes.length
  if (sidecar.proofs.length !== proofs) {
    throw new TxRejectedError(`invalid number of ${sidecar.proofs.length} blob proofs expected ${proofs}`)
  }
}

function decodedAccessList(v: FieldValue | undefined): { address: string; storageKeys: string[] }[] {
  if (!Array.isArray(v)) return []
  return v.map((tuple) => {
    const [address, keys] = tuple as [Uint8Array, Uint8Array[]]
    return { address: bytesToHex(address), storageKeys: keys.map((k) => bytesToHex(k)) }
  })
}

/** An impersonated transaction: the chain id must still be the chain's; the sender is the given one. */
function impersonated(decoded: DecodedTx, sender: string, rules: HeadRules): { tx: TypedTransaction; from: string } {
  const chainId = decoded.type === 0 ? (big(decoded.fields.V) - 35n) / 2n : big(decoded.fields.ChainID)
  if (chainId !== rules.chainId) throw new TxRejectedError(`invalid sender: invalid chain id for signer: have ${chainId} want ${rules.chainId}`)
  try {
    return { tx: decodeImpersonated(decoded.canonical, sender, rules.nextCommon), from: sender }
  } catch (err) {
    throw new TxRejectedError(withoutEthereumJsContext(err))
  }
}

/**
 * geth's signer (`LatestSigner`): the chain id must be the chain's, the signature values valid
 * (`ValidateSignatureValues` with the Homestead rule on s), and the sender recoverable. Every
 * failure is `invalid sender: <why>`.
 */
function recoverSender(raw: Uint8Array, decoded: DecodedTx, rules: HeadRules): { tx: TypedTransaction; from: string } {
  const f = decoded.fields
  const invalid = (why: string): TxRejectedError => new TxRejectedError(`invalid sender: ${why}`)
  let recoveryId: bigint
  if (decoded.type === 0) {
    const v = big(f.V)
    const chainId = (v - 35n) / 2n
    if (chainId !== rules.chainId) throw invalid(`invalid chain id for signer: have ${chainId} want ${rules.chainId}`)
    recoveryId = v - rules.chainId * 2n - 8n - 27n
  } else {
    const chainId = big(f.ChainID)
    if (chainId !== rules.chainId) throw invalid(`invalid chain id for signer: have ${chainId} want ${rules.chainId}`)
    recoveryId = big(f.V)
  }
  const r = big(f.R)
  const s = big(f.S)
  const valid = r >= 1n && s >= 1n && s <= SECP256K1_N / 2n && r < SECP256K1_N && (recoveryId === 0n || recoveryId === 1n)
  if (!valid) throw invalid('invalid transaction v, r, s values')
  let tx: TypedTransaction
  try {
    tx = createTxFromRLP(decoded.canonical, { common: rules.nextCommon })
  } catch (err) {
    throw new TxRejectedError(withoutEthereumJsContext(err))
  }
  try {
    return { tx, from: tx.getSenderAddress().toString() }
  } catch {
    throw invalid('recovery failed')
  }
}

/**
 * geth's `ValidateTransactionWithState` and the legacy pool's replacement rule: the nonce against
 * the state, the balance against this transaction and what the sender already has pooled, and a
 * same-nonce replacement must raise both fee cap and tip by 10%. Returns the pooled transaction it
 * replaces, if any.
 */
export function validateWithState(
  ptx: PoolTransaction,
  state: { nonce: bigint; balance: bigint },
  pooled: readonly PoolTransaction[],
): PoolTransaction | undefined {
  if (state.nonce > ptx.nonce) {
    throw new TxRejectedError(`nonce too low: next nonce ${state.nonce}, tx nonce ${ptx.nonce}`)
  }
  const { balance } = state
  const cost = ptx.cost
  if (balance < cost) {
    throw new TxRejectedError(`insufficient funds for gas * price + value: balance ${balance}, tx cost ${cost}, overshot ${cost - balance}`)
  }
  const mine = pooled.filter((p) => p.from === ptx.from)
  const spent = mine.reduce((sum, p) => sum + p.cost, 0n)
  const previous = mine.find((p) => p.nonce === ptx.nonce)
  if (previous) {
    const bump = cost - previous.cost
    const need = spent + bump
    if (balance < need) {
      throw new TxRejectedError(
        `insufficient funds for gas * price + value: balance ${balance}, queued cost ${spent}, tx bumped ${bump}, overshot ${need - balance}`,
      )
    }
    const feeThreshold = (previous.feeCap * (100n + PRICE_BUMP)) / 100n
    const tipThreshold = (previous.tipCap * (100n + PRICE_BUMP)) / 100n
    const cheaper = previous.feeCap >= ptx.feeCap || previous.tipCap >= ptx.tipCap
    if (cheaper || ptx.feeCap < feeThreshold || ptx.tipCap < tipThreshold) {
      throw new TxRejectedError('replacement transaction underpriced')
    }
    return previous
  }
  const need = spent + cost
  if (balance < need) {
    throw new TxRejectedError(
      `insufficient funds for gas * price + value: balance ${balance}, queued cost ${spent}, tx cost ${cost}, overshot ${need - balance}`,
    )
  }
  return undefined
}
