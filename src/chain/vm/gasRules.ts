/**
 * Protocol gas rules that both the pool (validating a sent transaction) and execution (answering a
 * call that cannot pay) apply, in geth's terms: the intrinsic gas, the EIP-7623 calldata floor and
 * EIP-7825's per-transaction cap. Kept below both, so neither reaches into the other.
 */
import type { Common } from '@ethereumjs/common'

/** EIP-7825 (Osaka): the most gas one transaction may have. */
export const MAX_TX_GAS = 1n << 24n

/** What the intrinsic gas depends on: the target (none: a creation), the data, the lists' sizes. */
export interface IntrinsicGasInput {
  to?: string
  data?: Uint8Array
  accessList?: readonly { readonly storageKeys: readonly string[] }[]
  authorizationList?: readonly unknown[]
}

/** geth's `IntrinsicGas` and, from Prague, `FloorDataGas` (EIP-7623). */
export function intrinsicGas(common: Common, args: IntrinsicGasInput): { intrinsic: bigint; floor: bigint | undefined } {
  const data = args.data ?? new Uint8Array()
  const create = args.to === undefined
  let gas = create && common.gteHardfork('homestead') ? 53000n : 21000n
  const zeros = BigInt(data.filter((b) => b === 0).length)
  const nonZeros = BigInt(data.length) - zeros
  gas += nonZeros * (common.gteHardfork('istanbul') ? 16n : 68n) + zeros * 4n
  if (create && common.isActivatedEIP(3860)) gas += ((BigInt(data.length) + 31n) / 32n) * 2n
  for (const entry of args.accessList ?? []) gas += 2400n + BigInt(entry.storageKeys.length) * 1900n
  gas += BigInt(args.authorizationList?.length ?? 0) * 25000n
  const floor = common.isActivatedEIP(7623) ? 21000n + (nonZeros * 4n + zeros) * 10n : undefined
  return { intrinsic: gas, floor }
}
