/**
 * eth_sendRawTransaction's way into the pool, in geth's order: decoded (./rawTransaction.ts), the
 * submission checks, the stateless checks against the head's rules, the state checks against the
 * head's state and what the sender already has pooled, then the next block's base fee and blob
 * base fee (the double refuses what geth would keep waiting for a lower fee). A transaction that
 * passes is pooled; the caller mines it or not.
 */
import { bytesToHex, toChecksumAddress } from '@ethereumjs/util'
import { keccak256 } from '../../encoding/keccak.ts'
import { checkSubmission, TxRejectedError, validateTransaction, validateWithState } from './poolRules.ts'
import type { HeadRules } from './poolRules.ts'
import { poolTransaction } from './poolTransaction.ts'
import type { PoolTransaction } from './poolTransaction.ts'
import { decodeRawTransaction } from './rawTransaction.ts'
import type { TxPool } from './txPool.ts'

/** What admission asks of the chain, each when its check comes (the clock may move between them). */
export interface AdmissionContext {
  /** The head's fork and gas limit, the chain id, the next block's fork. */
  headRules(): HeadRules
  /** The sender's nonce and balance in the head's state (`from` in lowercase hex). */
  account(from: string): Promise<{ nonce: bigint; balance: bigint }>
  /** The next block's base fee (undefined before London). */
  nextBaseFee(): bigint | undefined
  /** The next block's blob base fee (undefined before Cancun). */
  nextBlobBaseFee(): bigint | undefined
}

/**
 * Checks `raw` as geth does (throwing `TxDecodeError` or `TxRejectedError` with geth's message) and
 * pools it, in place of the pooled transaction it replaces. Returns the pooled entry. With
 * `sender`, `raw` is an impersonated transaction (./impersonation.ts): every rule but the signer's.
 */
export async function admit(raw: Uint8Array, pool: TxPool, chain: AdmissionContext, sender?: string): Promise<PoolTransaction> {
  const decoded = decodeRawTransaction(raw)
  checkSubmission(decoded)
  const hash = bytesToHex(keccak256(raw))
  if (pool.has(hash)) throw new TxRejectedError('already known')
  const { tx, from } = validateTransaction(raw, decoded, sender === undefined ? chain.headRules() : { ...chain.headRules(), sender })
  const ptx = poolTransaction(decoded.canonical, tx, from, pool.takeSeq())
  const replaced = validateWithState(ptx, await chain.account(from), pool.entries)
  const baseFee = chain.nextBaseFee()
  if (baseFee !== undefined && ptx.feeCap < baseFee) {
    throw new TxRejectedError(
      `max fee per gas less than block base fee: address ${toChecksumAddress(from)}, maxFeePerGas: ${ptx.feeCap}, baseFee: ${baseFee}`,
    )
  }
  const blobFee = ptx.blobGas > 0n ? chain.nextBlobBaseFee() : undefined
  if (blobFee !== undefined && ptx.blobFeeCap < blobFee) {
    throw new TxRejectedError(
      `max fee per blob gas less than block blob gas fee: address ${toChecksumAddress(from)} blobGasFeeCap: ${ptx.blobFeeCap}, blobBaseFee: ${blobFee}`,
    )
  }
  // geth's pool evicts cheaper transactions to make room; the double refuses the new one instead.
  if (!pool.fits(ptx, replaced)) throw new TxRejectedError('txpool is full')
  pool.add(ptx, replaced)
  return ptx
}
