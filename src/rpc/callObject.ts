/**
 * The call object of eth_call / eth_estimateGas, decoded as geth decodes `TransactionArgs`:
 * unknown fields are ignored, `data` and `input` are aliases (both set and different is an error),
 * quantities follow hexutil's rules (`gas` and `nonce` 64-bit, fees and value 256-bit).
 */
import type { CallArgs } from '../chain/execution/callArgs.ts'
import { GoFields } from './goFields.ts'
import { ArgumentError } from './params.ts'
import type { Param } from './params.ts'

/** One element of a list field: an object whose fields Go's errors name by the list. */
function element(item: unknown, field: string, goType: string): GoFields {
  return new GoFields(item ?? {}, 'TransactionArgs', goType, field)
}

/** A hash in a list field (missing fields decode as Go's zero values). */
function hashIn(v: unknown, field: string): string {
  const h = new GoFields({ h: v }, 'TransactionArgs', 'common.Hash', field).hash('h')
  return `0x${Buffer.from(h ?? new Uint8Array(32)).toString('hex')}`
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'

/** Decodes geth's `TransactionArgs`. */
export function parseCallArgs(v: unknown): CallArgs {
  const f = new GoFields(v, 'TransactionArgs', 'ethapi.TransactionArgs')
  const args: CallArgs = {}
  const set = <K extends keyof CallArgs>(key: K, value: CallArgs[K] | undefined) => {
    if (value !== undefined) args[key] = value
  }
  set('from', f.address('from'))
  set('to', f.address('to'))
  set('gas', f.quantity('gas', 64))
  set('gasPrice', f.quantity('gasPrice', 256))
  set('maxFeePerGas', f.quantity('maxFeePerGas', 256))
  set('maxPriorityFeePerGas', f.quantity('maxPriorityFeePerGas', 256))
  set('maxFeePerBlobGas', f.quantity('maxFeePerBlobGas', 256))
  set('value', f.quantity('value', 256))
  set('nonce', f.quantity('nonce', 64))
  set('chainId', f.quantity('chainId', 256))
  const data = f.bytes('data')
  const input = f.bytes('input')
  if (data && input && Buffer.compare(data, input) !== 0) {
    throw new ArgumentError('both "data" and "input" are set and not equal. Please use "input" to pass transaction call data')
  }
  if (input ?? data) args.data = input ?? data
  const accessList = f.list('accessList', 'types.AccessList')
  if (accessList !== undefined) {
    args.accessList = accessList.map((item) => {
      const entry = element(item, 'accessList', 'types.AccessTuple')
      return {
        address: entry.address('address') ?? ZERO_ADDRESS,
        storageKeys: (entry.list('storageKeys', '[]common.Hash') ?? []).map((k) => hashIn(k, 'accessList')),
      }
    })
  }
  const hashes = f.list('blobVersionedHashes', '[]common.Hash')
  if (hashes !== undefined) args.blobVersionedHashes = hashes.map((h) => hashIn(h, 'blobVersionedHashes'))
  const auths = f.list('authorizationList', '[]types.SetCodeAuthorization')
  if (auths !== undefined) {
    args.authorizationList = auths.map((item) => {
      const a = element(item, 'authorizationList', 'types.SetCodeAuthorization')
      return {
        chainId: a.quantity('chainId', 256) ?? 0n,
        address: a.address('address') ?? ZERO_ADDRESS,
        nonce: a.quantity('nonce', 64) ?? 0n,
        yParity: a.quantity('yParity', 64) ?? 0n,
        r: a.quantity('r', 256) ?? 0n,
        s: a.quantity('s', 256) ?? 0n,
      }
    })
  }
  return args
}

export const callObject: Param<CallArgs> = { parse: parseCallArgs }
