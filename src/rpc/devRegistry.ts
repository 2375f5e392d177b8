/**
 * The test endpoint's method table: every method of the gateway's (./registry.ts) plus the test
 * methods viem's test client (`mode: 'anvil'`) and Hardhat's network helpers call, each in its own
 * file in ./methods/, and the other names Anvil answers them under (`hardhat_*`, `anvil_*` twins of
 * `evm_*`). Never served on the gateway's `/v3/` path (src/gateway/devRpc.ts serves this table).
 */
import type { RpcMethod } from './method.ts'
import { anvil_autoImpersonateAccount } from './methods/anvil_autoImpersonateAccount.ts'
import { anvil_dropTransaction } from './methods/anvil_dropTransaction.ts'
import { anvil_dumpState } from './methods/anvil_dumpState.ts'
import { anvil_getAutomine } from './methods/anvil_getAutomine.ts'
import { anvil_getIntervalMining } from './methods/anvil_getIntervalMining.ts'
import { anvil_impersonateAccount } from './methods/anvil_impersonateAccount.ts'
import { anvil_loadState } from './methods/anvil_loadState.ts'
import { anvil_metadata } from './methods/anvil_metadata.ts'
import { anvil_mine } from './methods/anvil_mine.ts'
import { anvil_removeBlockTimestampInterval } from './methods/anvil_removeBlockTimestampInterval.ts'
import { anvil_reorg } from './methods/anvil_reorg.ts'
import { anvil_reset } from './methods/anvil_reset.ts'
import { anvil_setBalance } from './methods/anvil_setBalance.ts'
import { anvil_setBlockTimestampInterval } from './methods/anvil_setBlockTimestampInterval.ts'
import { anvil_setCode } from './methods/anvil_setCode.ts'
import { anvil_setCoinbase } from './methods/anvil_setCoinbase.ts'
import { anvil_setLoggingEnabled } from './methods/anvil_setLoggingEnabled.ts'
import { anvil_setMinGasPrice } from './methods/anvil_setMinGasPrice.ts'
import { anvil_setNextBlockBaseFeePerGas } from './methods/anvil_setNextBlockBaseFeePerGas.ts'
import { anvil_setNonce } from './methods/anvil_setNonce.ts'
import { anvil_setRpcUrl } from './methods/anvil_setRpcUrl.ts'
import { anvil_setStorageAt } from './methods/anvil_setStorageAt.ts'
import { anvil_setTime } from './methods/anvil_setTime.ts'
import { anvil_stopImpersonatingAccount } from './methods/anvil_stopImpersonatingAccount.ts'
import { eth_accounts } from './methods/eth_accounts.ts'
import { eth_fillTransaction } from './methods/eth_fillTransaction.ts'
import { eth_sendTransaction } from './methods/eth_sendTransaction.ts'
import { eth_sendUnsignedTransaction } from './methods/eth_sendUnsignedTransaction.ts'
import { evm_increaseTime } from './methods/evm_increaseTime.ts'
import { evm_mine } from './methods/evm_mine.ts'
import { evm_revert } from './methods/evm_revert.ts'
import { evm_setAutomine } from './methods/evm_setAutomine.ts'
import { evm_setBlockGasLimit } from './methods/evm_setBlockGasLimit.ts'
import { evm_setIntervalMining } from './methods/evm_setIntervalMining.ts'
import { evm_setNextBlockTimestamp } from './methods/evm_setNextBlockTimestamp.ts'
import { evm_snapshot } from './methods/evm_snapshot.ts'
import { METHODS } from './registry.ts'

const own = [
  evm_snapshot,
  evm_revert,
  evm_mine,
  anvil_mine,
  evm_setAutomine,
  anvil_getAutomine,
  evm_setIntervalMining,
  anvil_getIntervalMining,
  evm_increaseTime,
  evm_setNextBlockTimestamp,
  anvil_setTime,
  anvil_setBlockTimestampInterval,
  anvil_removeBlockTimestampInterval,
  anvil_setBalance,
  anvil_setCode,
  anvil_setNonce,
  anvil_setStorageAt,
  anvil_impersonateAccount,
  anvil_stopImpersonatingAccount,
  anvil_autoImpersonateAccount,
  eth_sendTransaction,
  eth_sendUnsignedTransaction,
  eth_fillTransaction,
  eth_accounts,
  anvil_dumpState,
  anvil_loadState,
  anvil_reset,
  anvil_reorg,
  anvil_setCoinbase,
  anvil_setMinGasPrice,
  anvil_setNextBlockBaseFeePerGas,
  evm_setBlockGasLimit,
  anvil_dropTransaction,
  anvil_setLoggingEnabled,
  anvil_setRpcUrl,
  anvil_metadata,
] as RpcMethod[]

/** Other names Anvil answers the same methods under (checked against Anvil 1.7.1). */
export const DEV_ALIASES: Readonly<Record<string, RpcMethod>> = {
  anvil_snapshot: evm_snapshot as RpcMethod,
  anvil_revert: evm_revert as RpcMethod,
  hardhat_mine: anvil_mine as RpcMethod,
  anvil_setAutomine: evm_setAutomine as RpcMethod,
  hardhat_getAutomine: anvil_getAutomine as RpcMethod,
  anvil_setIntervalMining: evm_setIntervalMining as RpcMethod,
  anvil_increaseTime: evm_increaseTime as RpcMethod,
  anvil_setNextBlockTimestamp: evm_setNextBlockTimestamp as RpcMethod,
  evm_setTime: anvil_setTime as RpcMethod,
  hardhat_setBalance: anvil_setBalance as RpcMethod,
  hardhat_setCode: anvil_setCode as RpcMethod,
  hardhat_setNonce: anvil_setNonce as RpcMethod,
  hardhat_setStorageAt: anvil_setStorageAt as RpcMethod,
  hardhat_impersonateAccount: anvil_impersonateAccount as RpcMethod,
  hardhat_stopImpersonatingAccount: anvil_stopImpersonatingAccount as RpcMethod,
  hardhat_autoImpersonateAccount: anvil_autoImpersonateAccount as RpcMethod,
  hardhat_reset: anvil_reset as RpcMethod,
  hardhat_setCoinbase: anvil_setCoinbase as RpcMethod,
  hardhat_setMinGasPrice: anvil_setMinGasPrice as RpcMethod,
  hardhat_setNextBlockBaseFeePerGas: anvil_setNextBlockBaseFeePerGas as RpcMethod,
  anvil_setBlockGasLimit: evm_setBlockGasLimit as RpcMethod,
  hardhat_dropTransaction: anvil_dropTransaction as RpcMethod,
  hardhat_setLoggingEnabled: anvil_setLoggingEnabled as RpcMethod,
  hardhat_metadata: anvil_metadata as RpcMethod,
}

/** The test methods alone (own names and aliases), by wire name. */
export const TEST_METHODS: Readonly<Record<string, RpcMethod>> = {
  ...Object.fromEntries(own.map((m) => [m.name, m])),
  ...Object.fromEntries(Object.entries(DEV_ALIASES).map(([name, m]) => [name, { ...m, name }])),
}

/** The test endpoint's table: the gateway's methods and the test methods. */
export const DEV_METHODS: Readonly<Record<string, RpcMethod>> = { ...METHODS, ...TEST_METHODS }
