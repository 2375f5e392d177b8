/**
 * eth_getStorageValues on the default ethereum fixture: the same words as eth_getStorageAt, for
 * several accounts at once and at any block; geth's limits and errors.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { fixtureBook } from '../support/fixtureBook.ts'
import { fixtureClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const book = fixtureBook('ethereum')
const TOKEN = book.address('token')
const COUNTER = book.address('counter')
const slot = (n: number) => `0x${n.toString(16).padStart(64, '0')}`

describe('eth_getStorageValues', () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await fixtureClient('ethereum')
  })

  it('reads what eth_getStorageAt reads, for several accounts, at any block', async () => {
    for (const block of ['latest', '0x1', '0x3']) {
      const request = { [TOKEN]: [slot(0), slot(1), slot(2)], [COUNTER]: [slot(0)], [book.address('alice')]: [slot(0)] }
      const res = await rpc.call('eth_getStorageValues', [request, block])
      const expected: Record<string, string[]> = {}
      for (const [owner, slots] of Object.entries(request)) {
        expected[owner] = []
        for (const s of slots) expected[owner].push((await rpc.call('eth_getStorageAt', [owner, s, block])).result as string)
      }
      expect(res.result).toEqual(expected)
    }
    const counter = (await rpc.call('eth_getStorageValues', [{ [COUNTER.toUpperCase().replace('0X', '0x')]: [slot(0)] }])).result
    expect(counter).toEqual({ [COUNTER]: ['0x0000000000000000000000000000000000000000000000000000000000000009'] })
  })

  it('refuses more than 1024 slots, an empty request and malformed input, as geth does', async () => {
    const many = { [TOKEN]: Array.from({ length: 600 }, (_, i) => slot(i)), [COUNTER]: Array.from({ length: 425 }, (_, i) => slot(i)) }
    expect((await rpc.call('eth_getStorageValues', [many])).error).toEqual({ code: -38026, message: 'too many slots (max 1024)' })
    expect((await rpc.call('eth_getStorageValues', [{}])).error).toEqual({ code: -32602, message: 'empty request' })
    expect((await rpc.call('eth_getStorageValues', [{ [TOKEN]: [] }])).error).toEqual({ code: -32602, message: 'empty request' })
    expect((await rpc.call('eth_getStorageValues', [{ [TOKEN]: ['0x0'] }])).error).toEqual({
      code: -32602,
      message: 'invalid argument 0: hex string has length 1, want 64 for common.Hash',
    })
    expect((await rpc.call('eth_getStorageValues', [[TOKEN]])).error?.code).toBe(-32602)
    expect((await rpc.call('eth_getStorageValues', [{ [TOKEN]: [slot(0)] }, '0xffff'])).error).toEqual({ code: -32000, message: 'header not found' })
  })
})
