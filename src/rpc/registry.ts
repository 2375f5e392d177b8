/** The method table: wire name to method. One module per method in ./methods/. */
import type { RpcMethod } from './method.ts'
import { eth_createAccessList } from './methods/eth_createAccessList.ts'
import { debug_traceCall } from './methods/debug_traceCall.ts'
import { debug_traceBlockByHash } from './methods/debug_traceBlockByHash.ts'
import { debug_traceBlockByNumber } from './methods/debug_traceBlockByNumber.ts'
import { debug_traceTransaction } from './methods/debug_traceTransaction.ts'
import { debug_getRawBlock } from './methods/debug_getRawBlock.ts'
import { debug_getRawHeader } from './methods/debug_getRawHeader.ts'
import { debug_getRawReceipts } from './methods/debug_getRawReceipts.ts'
import { debug_getRawTransaction } from './methods/debug_getRawTransaction.ts'
import { eth_baseFee } from './methods/eth_baseFee.ts'
import { eth_blobBaseFee } from './methods/eth_blobBaseFee.ts'
import { eth_capabilities } from './methods/eth_capabilities.ts'
import { eth_config } from './methods/eth_config.ts'
import { eth_getProof } from './methods/eth_getProof.ts'
import { eth_getStorageValues } from './methods/eth_getStorageValues.ts'
import { txpool_content } from './methods/txpool_content.ts'
import { txpool_contentFrom } from './methods/txpool_contentFrom.ts'
import { txpool_inspect } from './methods/txpool_inspect.ts'
import { txpool_status } from './methods/txpool_status.ts'
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
import { eth_getFilterChanges } from './methods/eth_getFilterChanges.ts'
import { eth_getFilterLogs } from './methods/eth_getFilterLogs.ts'
import { eth_getLogs } from './methods/eth_getLogs.ts'
import { eth_getStorageAt } from './methods/eth_getStorageAt.ts'
import { eth_getTransactionByBlockHashAndIndex } from './methods/eth_getTransactionByBlockHashAndIndex.ts'
import { eth_getTransactionByBlockNumberAndIndex } from './methods/eth_getTransactionByBlockNumberAndIndex.ts'
import { eth_getTransactionByHash } from './methods/eth_getTransactionByHash.ts'
import { eth_getTransactionCount } from './methods/eth_getTransactionCount.ts'
import { eth_getTransactionReceipt } from './methods/eth_getTransactionReceipt.ts'
import { eth_maxPriorityFeePerGas } from './methods/eth_maxPriorityFeePerGas.ts'
import { eth_newBlockFilter } from './methods/eth_newBlockFilter.ts'
import { eth_newFilter } from './methods/eth_newFilter.ts'
import { eth_newPendingTransactionFilter } from './methods/eth_newPendingTransactionFilter.ts'
import { eth_sendRawTransaction } from './methods/eth_sendRawTransaction.ts'
import { eth_simulateV1 } from './methods/eth_simulateV1.ts'
import { eth_subscribe } from './methods/eth_subscribe.ts'
import { eth_syncing } from './methods/eth_syncing.ts'
import { eth_unsubscribe } from './methods/eth_unsubscribe.ts'
import { eth_uninstallFilter } from './methods/eth_uninstallFilter.ts'
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
  eth_newFilter,
  eth_newBlockFilter,
  eth_newPendingTransactionFilter,
  eth_getFilterChanges,
  eth_getFilterLogs,
  eth_uninstallFilter,
  eth_gasPrice,
  eth_maxPriorityFeePerGas,
  eth_feeHistory,
  eth_sendRawTransaction,
  eth_syncing,
  eth_simulateV1,
  eth_subscribe,
  eth_unsubscribe,
  web3_clientVersion,
  net_listening,
  debug_getRawBlock,
  debug_getRawHeader,
  debug_getRawReceipts,
  debug_getRawTransaction,
  eth_baseFee,
  eth_blobBaseFee,
  eth_capabilities,
  eth_config,
  eth_getProof,
  eth_getStorageValues,
  txpool_content,
  txpool_contentFrom,
  txpool_inspect,
  txpool_status,
  debug_traceBlockByHash,
  debug_traceBlockByNumber,
  debug_traceTransaction,
  debug_traceCall,
  eth_createAccessList,
] as RpcMethod[]

export const METHODS: Readonly<Record<string, RpcMethod>> = Object.fromEntries(all.map((m) => [m.name, m]))
