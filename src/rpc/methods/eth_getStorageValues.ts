import { createAddressFromString, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { toData } from '../../encoding/hex.ts'
import { LATEST, stateRecord } from '../blocks.ts'
import { InvalidParamsError, RpcError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { ArgumentError, optional } from '../params.ts'
import type { Param } from '../params.ts'
import { address, blockNumberOrHash, hash } from '../validators.ts'

/** geth's cap on the slots of one request, all addresses together. */
const MAX_SLOTS = 1024

/** geth's code for a request over a client limit. */
const CLIENT_LIMIT_EXCEEDED = -38026

/** `{address: [slot, ...]}` (geth's `map[common.Address][]common.Hash`): addresses lowercased, slots 32-byte hashes. */
const storageRequests: Param<Map<string, string[]>> = {
  parse(v) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      throw new ArgumentError(`json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go value of type map[common.Address][]common.Hash`)
    }
    const requests = new Map<string, string[]>()
    for (const [key, slots] of Object.entries(v)) {
      if (!Array.isArray(slots)) throw new ArgumentError(`json: cannot unmarshal ${slots === null ? 'null' : typeof slots} into Go value of type []common.Hash`)
      requests.set(address.parse(key), slots.map((s) => hash.parse(s)))
    }
    return requests
  },
}

/**
 * Several storage slots of several accounts at one block (default `latest`), in one read:
 * `{address: [32-byte value, ...]}` in the order asked. At most 1,024 slots (-38026 past it); an
 * empty request is -32602 `empty request`.
 */
export const eth_getStorageValues = defineMethod({
  name: 'eth_getStorageValues',
  params: [storageRequests, optional(blockNumberOrHash, LATEST)],
  async run([requests, selector], { chain }) {
    let total = 0
    for (const slots of requests.values()) {
      total += slots.length
      if (total > MAX_SLOTS) throw new RpcError(CLIENT_LIMIT_EXCEEDED, `too many slots (max ${MAX_SLOTS})`)
    }
    if (total === 0) throw new InvalidParamsError('empty request')
    const state = await chain.stateAt(stateRecord(chain, selector))
    const result: Record<string, string[]> = {}
    for (const [owner, slots] of requests) {
      const account = createAddressFromString(owner)
      const values: string[] = []
      for (const slot of slots) values.push(toData(setLengthLeft(await state.getStorage(account, hexToBytes(slot as `0x${string}`)), 32)))
      result[owner] = values
    }
    return result
  },
})
