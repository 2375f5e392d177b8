/**
 * Simulation as a dApp does it with viem 2, against a real gateway-double server on the default
 * fixtures: `simulateContract` with a `stateOverride` (eth_call's third param), `simulateCalls`
 * and `simulateBlocks` (eth_simulateV1), and a call from a contract's address (geth runs calls
 * from any address). Nothing simulated changes the chain.
 */
import { createPublicClient, http, keccak256, parseEther } from 'viem'
import type { PublicClient } from 'viem'
import { mainnet } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localhostFetch } from '../../src/http/client.ts'
import { counterAbi, tokenAbi } from './support/abis.ts'
import * as book from './support/fixture.ts'
import { balanceSlot, COUNTER, counter, HEAD, startE2eServer, token, TOKEN_BALANCES } from './support/fixture.ts'

const alice = book.alice.address
const bob = book.bob.address
const carol = book.carol.address

let server: Awaited<ReturnType<typeof startE2eServer>>
let client: PublicClient

beforeAll(async () => {
  server = await startE2eServer()
  client = createPublicClient({ chain: mainnet, transport: http(server.url, { fetchFn: localhostFetch }) })
})
afterAll(async () => {
  await server.close()
})

describe('viem simulation against a real server', () => {
  it('simulateContract with a stateOverride: a transfer bob cannot afford goes through when his balance is overridden', async () => {
    const amount = TOKEN_BALANCES.bob + parseEther('1')
    const args = { address: token, abi: tokenAbi, functionName: 'transfer', args: [carol, amount], account: bob } as const
    await expect(client.simulateContract(args)).rejects.toThrow(/transfer amount exceeds balance/)
    const { result } = await client.simulateContract({
      ...args,
      stateOverride: [{ address: token, stateDiff: [{ slot: balanceSlot(keccak256, bob), value: `0x${amount.toString(16).padStart(64, '0')}` }] }],
    })
    expect(result).toBe(true)
    expect(await client.readContract({ address: token, abi: tokenAbi, functionName: 'balanceOf', args: [bob] })).toBe(TOKEN_BALANCES.bob)
  })

  it('simulateCalls: an ERC-20 bundle, each call seeing the ones before it', async () => {
    const { results } = await client.simulateCalls({
      account: alice,
      calls: [
        { to: token, abi: tokenAbi, functionName: 'transfer', args: [bob, parseEther('5')] },
        { to: token, abi: tokenAbi, functionName: 'balanceOf', args: [bob] },
        { to: counter, abi: counterAbi, functionName: 'increment' },
        { to: counter, abi: counterAbi, functionName: 'count' },
      ],
    })
    expect(results.map((r) => r.status)).toEqual(['success', 'success', 'success', 'success'])
    expect(results[0]!.result).toBe(true)
    expect(results[0]!.logs?.[0]?.address).toBe(token)
    expect(results[1]!.result).toBe(TOKEN_BALANCES.bob + parseEther('5'))
    expect(results[3]!.result).toBe(COUNTER.atHead + 1n)
    expect(await client.getBlockNumber()).toBe(HEAD)
  })

  it('simulateBlocks: two blocks with block and state overrides, a revert among the calls', async () => {
    const time = 4_000_000_000n
    const blocks = await client.simulateBlocks({
      blocks: [
        {
          blockOverrides: { time },
          stateOverrides: [{ address: bob, balance: parseEther('1000') }],
          calls: [
            { account: bob, to: carol, value: parseEther('500') },
            { account: carol, to: token, abi: tokenAbi, functionName: 'transfer', args: [bob, parseEther('1000000000')] },
          ],
        },
        { calls: [{ account: alice, to: counter, abi: counterAbi, functionName: 'count' }] },
      ],
    })
    expect(blocks).toHaveLength(2)
    expect(blocks[0]!.number).toBe(HEAD + 1n)
    expect(blocks[0]!.timestamp).toBe(time)
    expect(blocks[1]!.timestamp).toBe(time + 12n)
    expect(blocks[1]!.parentHash).toBe(blocks[0]!.hash)
    expect(blocks[0]!.calls.map((c) => c.status)).toEqual(['success', 'failure'])
    expect(blocks[0]!.calls[1]!.error?.message).toMatch(/transfer amount exceeds balance/)
    expect(blocks[1]!.calls[0]!.result).toBe(COUNTER.atHead)
  })

  it('a call from a contract’s address (a smart account) runs as geth runs it', async () => {
    const count = await client.readContract({ address: counter, abi: counterAbi, functionName: 'count', account: token })
    expect(count).toBe(COUNTER.atHead)
    expect(await client.estimateGas({ account: token, to: bob, value: 0n })).toBe(21_000n)
  })
})
