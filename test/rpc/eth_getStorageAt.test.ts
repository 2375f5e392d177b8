import { encodeAbiParameters, keccak256, parseEther, toHex } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { fixtureBook } from '../support/fixtureBook.ts'
import { fixtureClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const method = 'eth_getStorageAt'
const book = fixtureBook('ethereum')
const word = (n: bigint) => toHex(n, { size: 32 })
/** The slot of `balances[holder]` for the token's mapping at slot 0 (the spec's slot rule 2). */
const balanceSlot = (holder: `0x${string}`) => keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [holder, 0n]))

describe(method, () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await fixtureClient('ethereum')
  })

  it("reads an ERC-20 balance from its mapping slot at each block of its history, padded to 32 bytes", async () => {
    // carol: nothing until block 2 (500 from alice), +100 from bob and -50 to dave in block 3.
    const at = async (block: string) => (await rpc.call(method, [book.address('token'), balanceSlot(book.address('carol')), block])).result
    expect(await at('0x1')).toBe(word(0n))
    expect(await at('0x2')).toBe(word(parseEther('500')))
    expect(await at('0x3')).toBe(word(parseEther('550')))
    expect(await at('latest')).toBe(word(parseEther('550')))
    expect(await at('earliest')).toBe(word(0n))
  })

  it('accepts every tag and a block hash, and defaults to latest', async () => {
    const slot = balanceSlot(book.address('erin'))
    const latest = (await rpc.call(method, [book.address('token'), slot, 'latest'])).result
    expect((await rpc.call(method, [book.address('token'), slot])).result).toBe(latest)
    expect((await rpc.call(method, [book.address('token'), slot, 'pending'])).result).toBe(latest)
    expect((await rpc.call(method, [book.address('token'), slot, 'finalized'])).result).toBe(word(parseEther('10')))
    expect((await rpc.call(method, [book.address('token'), slot, 'safe'])).result).toBe(word(parseEther('210')))
    const block5 = rpc.chain.byNumber(5n)!.hash
    expect((await rpc.call(method, [book.address('token'), slot, block5])).result).toBe(word(parseEther('210')))
    expect((await rpc.call(method, [book.address('token'), slot, { blockHash: block5 }])).result).toBe(word(parseEther('210')))
  })

  it('reads zero for an account without code and a slot never written', async () => {
    expect((await rpc.call(method, [book.address('bob'), '0x0', 'latest'])).result).toBe(word(0n))
    expect((await rpc.call(method, [book.address('token'), '0x1234', 'latest'])).result).toBe(word(0n))
  })

  it('answers header not found for an unknown block, -32602 for bad params', async () => {
    expect((await rpc.call(method, [book.address('token'), '0x0', '0x64'])).error).toStrictEqual({ code: -32000, message: 'header not found' })
    expect((await rpc.call(method, [book.address('token'), '0x0', `0x${'ab'.repeat(32)}`])).error?.code).toBe(-32000)
    expect((await rpc.call(method, ['0x1234', '0x0', 'latest'])).error?.code).toBe(-32602)
    expect((await rpc.call(method, [book.address('token'), '0xzz', 'latest'])).error?.code).toBe(-32602)
    expect((await rpc.call(method, [book.address('token'), '0x0', 'newest'])).error?.code).toBe(-32602)
    expect((await rpc.call(method, [])).error?.code).toBe(-32602)
  })
})
