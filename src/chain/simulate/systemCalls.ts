/**
 * What a block does besides its transactions, as EthereumJS's `runBlock` does it (its helpers are
 * not exported): before them, the parent beacon root (EIP-4788) and the parent hash (EIP-2935)
 * stored in their system contracts; after them, the EIP-7685 requests (deposits from the logs,
 * then the withdrawal and consolidation queues' system calls), the withdrawals (EIP-4895), and
 * before the Merge the miner's reward. The chain's own replay, which matches geth's roots block
 * for block, runs the same steps.
 */
import { genRequestsRoot } from '@ethereumjs/block'
import { Mainnet } from '@ethereumjs/common'
import { Account, bigIntToAddressBytes, bigIntToBytes, bytesToBigInt, bytesToHex, CLRequest, CLRequestType, concatBytes, createAddressFromString, setLengthLeft } from '@ethereumjs/util'
import type { Address } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { sha256 } from 'ethereum-cryptography/sha256.js'
import type { Withdrawal } from '../execution/overrides.ts'
import { SimulateError } from './types.ts'
import type { SimLog } from './types.ts'

const BEACON_ROOTS = createAddressFromString('0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02')
const DEPOSIT_TOPIC = '0x649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5'
const GWEI = 1_000_000_000n

const address = (vm: VM, param: string): Address => createAddressFromString(bytesToHex(setLengthLeft(bigIntToBytes(vm.common.param(param)), 20)))

/** EIP-4788 and EIP-2935, before the block's transactions. */
export async function beforeTransactions(vm: VM, number: bigint, timestamp: bigint, parentHash: Uint8Array, beaconRoot: Uint8Array | undefined): Promise<void> {
  const state = vm.stateManager
  if (vm.common.isActivatedEIP(4788) && beaconRoot !== undefined && (await state.getCode(BEACON_ROOTS)).length > 0) {
    const length = vm.common.param('historicalRootsLength')
    const index = timestamp % length
    await state.putStorage(BEACON_ROOTS, setLengthLeft(bigIntToBytes(index), 32), bigIntToBytes(timestamp))
    await state.putStorage(BEACON_ROOTS, setLengthLeft(bigIntToBytes(index + length), 32), beaconRoot)
  }
  if (vm.common.isActivatedEIP(2935)) {
    const history = address(vm, 'historyStorageAddress')
    if ((await state.getCode(history)).length > 0) {
      const slot = (number - 1n) % vm.common.param('historyServeWindow')
      await state.putStorage(history, setLengthLeft(bigIntToBytes(slot), 32), parentHash)
    }
  }
  await vm.evm.journal.cleanup()
}

/** The block's EIP-7685 requests hash (Prague on), from the logs of its successful calls and the system calls. */
export async function requestsHash(vm: VM, logs: readonly SimLog[]): Promise<Uint8Array | undefined> {
  const common = vm.common
  if (!common.isActivatedEIP(7685)) return undefined
  const requests: CLRequest<CLRequestType>[] = []
  if (common.isActivatedEIP(6110)) {
    const deposit = ((common as unknown as { _chainParams: { depositContractAddress?: string } })._chainParams.depositContractAddress ?? Mainnet.depositContractAddress)!.toLowerCase()
    let bytes = new Uint8Array()
    for (const log of logs) {
      if (log.topics.length > 0 && bytesToHex(log.topics[0]!) === DEPOSIT_TOPIC && bytesToHex(log.address) === deposit) {
        bytes = concatBytes(bytes, depositRequest(log.data))
      }
    }
    requests.push(new CLRequest(CLRequestType.Deposit, bytes))
  }
  if (common.isActivatedEIP(7002)) requests.push(new CLRequest(CLRequestType.Withdrawal, await systemCall(vm, 'withdrawalRequestPredeployAddress')))
  if (common.isActivatedEIP(7251)) requests.push(new CLRequest(CLRequestType.Consolidation, await systemCall(vm, 'consolidationRequestPredeployAddress')))
  return genRequestsRoot(requests, sha256)
}

/** A queue contract's system call: what it returns; the system account left as it was. */
async function systemCall(vm: VM, param: string): Promise<Uint8Array> {
  const to = address(vm, param)
  const state = vm.stateManager
  if ((await state.getAccount(to)) === undefined) return new Uint8Array()
  const system = createAddressFromString(bytesToHex(bigIntToAddressBytes(vm.common.param('systemAddress'))))
  const before = await state.getAccount(system)
  const result = await vm.evm.runCall({ caller: system, gasLimit: vm.common.param('systemCallGasLimit'), to })
  if (before === undefined) await state.deleteAccount(system)
  else await state.putAccount(system, before)
  return result.execResult.returnValue
}

/** A deposit log's data as a deposit request (geth's `ParseDepositLogs`: fixed offsets and sizes). */
function depositRequest(data: Uint8Array): Uint8Array {
  const word = (at: number) => Number(bytesToBigInt(data.subarray(at, at + 32)))
  const layout: [number, number][] = [[160, 48], [256, 32], [320, 8], [384, 96], [512, 8]]
  if (data.length !== 576) throw new SimulateError('server', 'unable to parse deposit data: invalid deposit log: unsupported data layout')
  const parts = layout.map(([offset, size], i) => {
    if (word(i * 32) !== offset || word(offset) !== size) throw new SimulateError('server', 'unable to parse deposit data: invalid deposit log: unsupported data layout')
    return data.subarray(offset + 32, offset + 32 + size)
  })
  return concatBytes(...parts)
}

/** Withdrawals credited (amounts in gwei), and before the Merge the miner's reward (no uncles here). */
export async function finalize(vm: VM, withdrawals: readonly Withdrawal[] | undefined, coinbase: Address, proofOfWork: boolean): Promise<void> {
  for (const w of withdrawals ?? []) await reward(vm, createAddressFromString(w.address), w.amount * GWEI)
  if (proofOfWork) await reward(vm, coinbase, vm.common.param('minerReward'))
  await vm.evm.journal.cleanup()
}

async function reward(vm: VM, to: Address, amount: bigint): Promise<void> {
  const account = (await vm.stateManager.getAccount(to)) ?? new Account()
  account.balance += amount
  // Through the journal: a zero credit touches the account, and an empty one is then removed (EIP-158).
  await vm.evm.journal.putAccount(to, account)
}
