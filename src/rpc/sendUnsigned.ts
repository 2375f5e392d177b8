/**
 * `eth_sendTransaction` from an account the double holds no key for (an impersonated one, or any
 * with `eth_sendUnsignedTransaction`): the missing fields filled in as geth's `setDefaults` does
 * (`fillUnsigned`, which eth_fillTransaction answers with), then sent through the pool's rules like a signed transaction (`Chain.sendImpersonated`).
 *
 * - fees: with `gasPrice`, a legacy transaction (type 1 with an access list); otherwise, from
 *   London, type 2 with the tip `eth_maxPriorityFeePerGas` suggests and a fee cap of
 *   tip + 2 x the head's base fee, each unless given; before London, the suggested gas price;
 * - nonce: the sender's pending nonce (`eth_getTransactionCount(from, "pending")`);
 * - gas: `eth_estimateGas` of the transaction at the head (a revert answers as the estimate does);
 * - value 0, no data.
 */
import type { Chain } from '../chain/chain.ts'
import { CallError } from '../chain/execution/callArgs.ts'
import type { CallArgs } from '../chain/execution/callArgs.ts'
import { estimateGas, EstimateRevert } from '../chain/execution/estimateGas.ts'
import type { UnsignedTxFields } from '../chain/pool/impersonation.ts'
import { TxDecodeError } from '../chain/pool/rawTransaction.ts'
import { TxRejectedError } from '../chain/pool/poolRules.ts'
import { toData } from '../encoding/hex.ts'
import { revertMessage } from '../encoding/revert.ts'
import { ExecutionRevertedError, InvalidParamsError, ServerError } from './errors.ts'
import { withFeeDefaults } from './feeDefaults.ts'
import { GAS_CAP_MULTIPLIER } from './methods/eth_estimateGas.ts'

/**
 * Sends `args` from `args.from`; with `impersonatedOnly`, only from an account the chain
 * impersonates (Anvil's `No Signer available` otherwise). Returns the transaction hash.
 */
export async function sendUnsigned(chain: Chain, args: CallArgs, impersonatedOnly: boolean): Promise<string> {
  const from = args.from
  if (from === undefined || (impersonatedOnly && !chain.isImpersonated(from))) throw new InvalidParamsError('No Signer available')
  const fields = await fillUnsigned(chain, args, from)
  try {
    return await chain.sendImpersonated(fields, from)
  } catch (err) {
    if (err instanceof TxDecodeError || err instanceof TxRejectedError) throw new ServerError(err.message)
    throw err
  }
}

/** The fields of `args` sent from `from`, the missing ones filled as geth's `setDefaults` fills them (also eth_fillTransaction's). */
export async function fillUnsigned(chain: Chain, args: CallArgs, from: string): Promise<UnsignedTxFields> {
  if (args.blobVersionedHashes !== undefined || args.authorizationList !== undefined) {
    throw new InvalidParamsError('blob and set-code transactions are not sent from impersonated accounts here: sign them and use eth_sendRawTransaction')
  }
  const fees = feeFields(chain, args)
  const nonce = args.nonce ?? (await chain.pendingNonce(from))
  const gasLimit = args.gas ?? (await estimate(chain, { ...args, ...fees, from }))
  // geth's setDefaults checks the chain id last.
  if (args.chainId !== undefined && args.chainId !== chain.chainId) throw new ServerError(`chainId does not match node's (have=${args.chainId}, want=${chain.chainId})`)
  return {
    ...fees,
    chainId: chain.chainId,
    nonce,
    gasLimit,
    ...(args.to === undefined ? {} : { to: args.to }),
    value: args.value ?? 0n,
    data: args.data ?? new Uint8Array(),
    ...(args.accessList === undefined ? {} : { accessList: args.accessList }),
  }
}

type FeeFields = Pick<UnsignedTxFields, 'type' | 'gasPrice' | 'maxFeePerGas' | 'maxPriorityFeePerGas'>

/** geth's `setFeeDefaults` (./feeDefaults.ts, eth_createAccessList's too), as the transaction's fee fields. */
function feeFields(chain: Chain, args: CallArgs): FeeFields {
  const legacyType = args.accessList === undefined ? 0 : 1
  const filled = withFeeDefaults(chain, chain.head, args)
  if (filled.gasPrice !== undefined) return { type: legacyType, gasPrice: filled.gasPrice }
  return { type: 2, maxFeePerGas: filled.maxFeePerGas!, maxPriorityFeePerGas: filled.maxPriorityFeePerGas! }
}

async function estimate(chain: Chain, args: CallArgs): Promise<bigint> {
  try {
    return (await estimateGas(chain, chain.head, args, { gasCap: chain.head.block.header.gasLimit * GAS_CAP_MULTIPLIER })).gas
  } catch (err) {
    if (err instanceof EstimateRevert) throw new ExecutionRevertedError(revertMessage(err.data), toData(err.data))
    if (err instanceof CallError) throw new ServerError(err.message)
    throw err
  }
}
