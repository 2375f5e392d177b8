import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx'
import type { AccessList } from '@ethereumjs/tx'
import { bigIntToUnpaddedBytes, bytesToHex, createAddressFromString, eoaCode7702RecoverAuthority, hexToBytes } from '@ethereumjs/util'
import { CallRejected } from '../../chain/execution/call.ts'
import type { CallArgs } from '../../chain/execution/callArgs.ts'
import { OverrideError } from '../../chain/execution/overrides.ts'
import { createAccessList } from '../../chain/tracing/accessList.ts'
import { ExecutionTimeout } from '../../chain/vm/executionGuard.ts'
import { vmLibraries } from '../../chain/vm/vmLibraries.ts'
import { keccak256 } from '../../encoding/keccak.ts'
import { toQuantity } from '../../encoding/hex.ts'
import { LATEST, callBlock } from '../blocks.ts'
import { callObject } from '../callObject.ts'
import { ServerError } from '../errors.ts'
import { withFeeDefaults } from '../feeDefaults.ts'
import { defineMethod, executionBudget } from '../method.ts'
import { optional } from '../params.ts'
import { stateOverrideParam } from '../overrides.ts'
import { blockNumberOrHash } from '../validators.ts'
import { GAS_CAP_MULTIPLIER } from './eth_estimateGas.ts'

/** geth's per-authorization gas (`params.CallNewAccountGas`), the floor of a set-code call's gas. */
const AUTHORIZATION_GAS = 25_000n

/**
 * The EIP-2930 access list that the call, sent as a transaction at a block (default `latest`,
 * state overrides as eth_call takes them), would need: geth's algorithm (chain/tracing/
 * accessList.ts), on the call with its fees filled in as a wallet's transaction would have them
 * and its nonce from the state. `{accessList, gasUsed}` (the gas with that list), and `error` when
 * the call fails; a call geth cannot apply at all is -32000 `failed to apply transaction: <hash>
 * err: <reason>`.
 */
export const eth_createAccessList = defineMethod({
  name: 'eth_createAccessList',
  params: [callObject, optional(blockNumberOrHash, LATEST), stateOverrideParam],
  async run([callArgs, selector, state], { chain, execution }) {
    const { record, block } = await callBlock(chain, selector, undefined)
    const overrides = state === undefined && block === undefined ? undefined : { state, block }
    let args = withFeeDefaults(chain, record, callArgs)
    if (args.nonce === undefined) {
      const from = (args.from ?? `0x${'00'.repeat(20)}`).toLowerCase()
      const overridden = state?.get(from)?.nonce
      args = { ...args, nonce: overridden ?? (await (await chain.stateAt(record)).getAccount(createAddressFromString(from)))?.nonce ?? 0n }
    }
    const gasCap = chain.head.block.header.gasLimit * GAS_CAP_MULTIPLIER
    const gas = args.gas ?? gasCap
    if (BigInt(args.authorizationList?.length ?? 0) > gas / AUTHORIZATION_GAS) throw new ServerError('insufficient gas to process all authorizations')
    const common = chain.common.copy()
    common.setHardforkBy({ blockNumber: record.number, timestamp: record.timestamp })
    const precompiles = [...(await vmLibraries()).evm.getActivePrecompiles(common).keys()].map((a) => `0x${a}`)
    try {
      const answer = await createAccessList({
        chain,
        record,
        args,
        gasCap,
        overrides,
        excluded: [...precompiles, ...authorities(args, chain.chainId)],
        budget: executionBudget(execution),
      })
      return {
        accessList: answer.accessList,
        ...(answer.error !== undefined ? { error: answer.error } : {}),
        gasUsed: toQuantity(answer.gasUsed),
      }
    } catch (err) {
      if (err instanceof CallRejected) throw new ServerError(`failed to apply transaction: ${transactionHash(args, chain.chainId)} err: ${reason(err.message)}`)
      if (err instanceof OverrideError || err instanceof ExecutionTimeout) throw new ServerError(err.message)
      throw err
    }
  },
})

/** The authorities of a set-code call whose authorizations could apply here (geth leaves them out of the list). */
function authorities(args: CallArgs, chainId: bigint): string[] {
  const out: string[] = []
  for (const auth of args.authorizationList ?? []) {
    if ((auth.chainId !== 0n && auth.chainId !== chainId) || auth.nonce + 1n < auth.nonce) continue
    try {
      const item = [auth.chainId, hexToBytes(auth.address as `0x${string}`), auth.nonce, auth.yParity, auth.r, auth.s].map((v) => (typeof v === 'bigint' ? bigIntToUnpaddedBytes(v) : v))
      out.push(eoaCode7702RecoverAuthority(item as never).toString())
    } catch {}
  }
  return out
}

/** eth_call's `err: <reason> (supplied gas N)` without its frame: geth's `ApplyMessage` error. */
function reason(message: string): string {
  return /^err: ([\s\S]*) \(supplied gas \d+\)$/.exec(message)?.[1] ?? message
}

/** geth's `args.ToTransaction(LegacyTxType).Hash()` of the call: unsigned, of the type its fees make it. */
function transactionHash(args: CallArgs, chainId: bigint): string {
  const accessList = (args.accessList ?? []) as AccessList
  const base = { nonce: args.nonce, gasLimit: args.gas, to: args.to as `0x${string}` | undefined, value: args.value, data: args.data }
  try {
    const tx =
      args.gasPrice !== undefined
        ? createLegacyTx({ ...base, gasPrice: args.gasPrice })
        : args.maxFeePerGas !== undefined
          ? createFeeMarket1559Tx({ ...base, chainId, maxFeePerGas: args.maxFeePerGas, maxPriorityFeePerGas: args.maxPriorityFeePerGas, accessList })
          : createAccessList2930Tx({ ...base, chainId, accessList })
    return bytesToHex(keccak256(tx.serialize()))
  } catch {
    return `0x${'00'.repeat(32)}`
  }
}
