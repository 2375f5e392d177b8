/**
 * The call object of eth_call / eth_estimateGas, decoded as geth decodes `TransactionArgs`:
 * unknown fields are ignored, `data` and `input` are aliases (both set and different is an error),
 * quantities follow hexutil's rules (`gas` and `nonce` 64-bit, fees and value 256-bit).
 */
import type { CallArgs } from '../chain/execution/execution.ts'
import { decodeQuantity } from './validators.ts'
import { ArgumentError } from './params.ts'
import type { Param } from './params.ts'

function fieldError(field: string, goType: string, reason: string): ArgumentError {
  return new ArgumentError(`json: cannot unmarshal ${reason} into Go struct field TransactionArgs.${field} of type ${goType}`)
}

function hexString(v: unknown, field: string, goType: string): string {
  if (typeof v !== 'string') throw fieldError(field, goType, Array.isArray(v) ? 'array' : typeof v)
  if (!/^0[xX]/.test(v)) throw fieldError(field, goType, 'hex string without 0x prefix')
  return v
}

function addressField(v: unknown, field: string): string {
  const text = hexString(v, field, 'common.Address')
  if (text.length !== 42) throw new ArgumentError(`hex string has length ${text.length - 2}, want 40 for common.Address`)
  if (!/^0[xX][0-9a-fA-F]{40}$/.test(text)) throw new ArgumentError('invalid hex string')
  return text.toLowerCase()
}

function hashField(v: unknown, field: string): string {
  const text = hexString(v, field, 'common.Hash')
  if (!/^0[xX][0-9a-fA-F]{64}$/.test(text)) throw new ArgumentError(`hex string has length ${text.length - 2}, want 64 for common.Hash`)
  return text.toLowerCase()
}

function quantityField(v: unknown, field: string, bits: 64 | 256): bigint {
  const goType = bits === 64 ? 'hexutil.Uint64' : '*hexutil.Big'
  const text = hexString(v, field, goType)
  try {
    return decodeQuantity(text, bits)
  } catch (err) {
    throw fieldError(field, goType, (err as Error).message)
  }
}

function bytesField(v: unknown, field: string): Uint8Array {
  const text = hexString(v, field, 'hexutil.Bytes')
  const digits = text.slice(2)
  if (digits.length % 2 === 1) throw fieldError(field, 'hexutil.Bytes', 'hex string of odd length')
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw fieldError(field, 'hexutil.Bytes', 'invalid hex string')
  return Uint8Array.from(Buffer.from(digits, 'hex'))
}

function list(v: unknown, field: string): unknown[] {
  if (!Array.isArray(v)) throw fieldError(field, 'array', typeof v)
  return v
}

function present(o: Record<string, unknown>, key: string): boolean {
  return o[key] !== undefined && o[key] !== null
}

export const callObject: Param<CallArgs> = {
  parse(v) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      throw new ArgumentError(`json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go value of type ethapi.TransactionArgs`)
    }
    const o = v as Record<string, unknown>
    const args: CallArgs = {}
    if (present(o, 'from')) args.from = addressField(o.from, 'from')
    if (present(o, 'to')) args.to = addressField(o.to, 'to')
    if (present(o, 'gas')) args.gas = quantityField(o.gas, 'gas', 64)
    if (present(o, 'gasPrice')) args.gasPrice = quantityField(o.gasPrice, 'gasPrice', 256)
    if (present(o, 'maxFeePerGas')) args.maxFeePerGas = quantityField(o.maxFeePerGas, 'maxFeePerGas', 256)
    if (present(o, 'maxPriorityFeePerGas')) args.maxPriorityFeePerGas = quantityField(o.maxPriorityFeePerGas, 'maxPriorityFeePerGas', 256)
    if (present(o, 'maxFeePerBlobGas')) args.maxFeePerBlobGas = quantityField(o.maxFeePerBlobGas, 'maxFeePerBlobGas', 256)
    if (present(o, 'value')) args.value = quantityField(o.value, 'value', 256)
    if (present(o, 'nonce')) args.nonce = quantityField(o.nonce, 'nonce', 64)
    if (present(o, 'chainId')) args.chainId = quantityField(o.chainId, 'chainId', 256)
    const data = present(o, 'data') ? bytesField(o.data, 'data') : undefined
    const input = present(o, 'input') ? bytesField(o.input, 'input') : undefined
    if (data && input && Buffer.compare(data, input) !== 0) {
      throw new ArgumentError('both "data" and "input" are set and not equal. Please use "input" to pass transaction call data')
    }
    if (input ?? data) args.data = input ?? data
    if (present(o, 'accessList')) {
      args.accessList = list(o.accessList, 'accessList').map((item) => {
        const entry = (item ?? {}) as Record<string, unknown>
        return {
          address: addressField(entry.address, 'accessList'),
          storageKeys: list(entry.storageKeys ?? [], 'accessList').map((k) => hashField(k, 'accessList')),
        }
      })
    }
    if (present(o, 'blobVersionedHashes')) {
      args.blobVersionedHashes = list(o.blobVersionedHashes, 'blobVersionedHashes').map((h) => hashField(h, 'blobVersionedHashes'))
    }
    if (present(o, 'authorizationList')) {
      args.authorizationList = list(o.authorizationList, 'authorizationList').map((item) => {
        const a = (item ?? {}) as Record<string, unknown>
        return {
          chainId: quantityField(a.chainId, 'authorizationList', 256),
          address: addressField(a.address, 'authorizationList'),
          nonce: quantityField(a.nonce, 'authorizationList', 64),
          yParity: quantityField(a.yParity, 'authorizationList', 64),
          r: quantityField(a.r, 'authorizationList', 256),
          s: quantityField(a.s, 'authorizationList', 256),
        }
      })
    }
    return args
  },
}
