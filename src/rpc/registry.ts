/** The method table: wire name to method. One module per method in ./methods/. */
import type { RpcMethod } from './method.ts'
import { eth_blockNumber } from './methods/eth_blockNumber.ts'
import { eth_call } from './methods/eth_call.ts'
import { eth_chainId } from './methods/eth_chainId.ts'
import { eth_estimateGas } from './methods/eth_estimateGas.ts'
import { eth_feeHistory } from './methods/eth_feeHistory.ts'
import { eth_gasPrice } from './methods/eth_gasPrice.ts'
import { eth_getBalance } from './methods/eth_getBalance.ts'
import { eth_getBlockByHash } from './methods/eth_getBlockByHash.ts'
import { eth_getBlockByNumber } from './methods/eth_getBlockByNumber.ts'
import { eth_getBlockReceipts } from './methods/eth_getBlockReceipts.ts'
import { eth_getBlockTransactionCountByHash } from './methods/eth_getBlockTransactionCountByHash.ts'
import { eth_getBlockTransactionCountByNumber } from './methods/eth_getBlockTransactionCountByNumber.ts'
import { eth_getCode } from './methods/eth_getCode.ts'
import { eth_getLogs } from './methods/eth_getLogs.ts'
import { eth_getStorageAt } from './methods/eth_getStorageAt.ts'
import { eth_getTransactionByBlockHashAndIndex } from './methods/eth_getTransactionByBlockHashAndIndex.ts'
import { eth_getTransactionByBlockNumberAndIndex } from './methods/eth_getTransactionByBlockNumberAndIndex.ts'
import { eth_getTransactionByHash } from './methods/eth_getTransactionByHash.ts'
import { eth_getTransactionCount } from './methods/eth_getTransactionCount.ts'
import { eth_getTransactionReceipt } from './methods/eth_getTransactionReceipt.ts'
import { eth_maxPriorityFeePerGas } from './methods/eth_maxPriorityFeePerGas.ts'
import { eth_sendRawTransaction } from './methods/eth_sendRawTransaction.ts'
import { eth_syncing } from './methods/eth_syncing.ts'
import { net_listening } from './methods/net_listening.ts'
import { net_version } from './methods/net_version.ts'
import { web3_clientVersion } from './methods/web3_clientVersion.ts'

const all = [
  eth_blockNumber,
  eth_chainId,
  net_version,
  eth_getStorageAt,
  eth_getTransactionByBlockNumberAndIndex,
  eth_getBlockReceipts,
  eth_estimateGas,
  eth_getBlockByNumber,
  eth_getBlockByHash,
  eth_getBlockTransactionCountByNumber,
  eth_getBlockTransactionCountByHash,
  eth_getTransactionByHash,
  eth_getTransactionReceipt,
  eth_getTransactionByBlockHashAndIndex,
  eth_getBalance,
  eth_getCode,
  eth_getTransactionCount,
  eth_call,
  eth_getLogs,
  eth_gasPrice,
  eth_maxPriorityFeePerGas,
  eth_feeHistory,
  eth_sendRawTransaction,
  eth_syncing,
  web3_clientVersion,
  net_listening,
] as RpcMethod[]

export const METHODS: Readonly<Record<string, RpcMethod>> = Object.fromEntries(all.map((m) => [m.name, m]))
