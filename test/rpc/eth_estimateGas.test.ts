/**
 * eth_estimateGas on the default ethereum fixture: geth's code, message and data for each revert
 * kind; estimates that are the lowest succeeding gas within geth's 1.5%, checked by running the
 * call at the estimate and below the true minimum; the caps and the block parameter rules.
 */
import { readFileSync } from 'node:fs'
import { encodeErrorResult, encodeFunctionData, parseAbi, parseEther } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { estimateGas } from '../../src/chain/execution/estimateGas.ts'
import { CallError } from '../../src/chain/execution/callArgs.ts'
import { CallSession } from '../../src/chain/execution/callSession.ts'
import { fixtureClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const method = 'eth_estimateGas'

const book = JSON.parse(readFileSync(new URL('../../fixtures/ethereum/accounts.json', import.meta.url), 'utf8')) as {
  accounts: { name: string; address: string }[]
  contracts: { name: string; address: string }[]
}
const addr = (name: string) =>
  (book.accounts.find((a) => a.name === name) ?? book.contracts.find((c) => c.name === name))!.address as `0x${string}`

const reverterAbi = parseAbi([
  'error InsufficientBalance(uint256 available, uint256 required)',
  'function revertWithReason()',
  'function revertWithCustomError(uint256 available, uint256 required)',
  'function panicAssert()',
  'function divide(uint256 divisor) returns (uint256)',
  'function revertEmpty()',
  'function burn(uint256 rounds) returns (bytes32)',
])
const tokenAbi = parseAbi(['function transfer(address to, uint256 value) returns (bool)', 'function balanceOf(address) view returns (uint256)'])
const errorAbi = parseAbi(['error Error(string)', 'error Panic(uint256)'])

const reverterCall = (data: `0x${string}`) => ({ from: addr('alice'), to: addr('reverter'), data })

describe(method, () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await fixtureClient('ethereum')
  })

  describe('reverts: code 3, geth message, raw revert data', () => {
    const cases: [string, `0x${string}`, string, `0x${string}`][] = [
      [
        'Error(string)',
        encodeFunctionData({ abi: reverterAbi, functionName: 'revertWithReason' }),
        'execution reverted: Reverter: always reverts',
        encodeErrorResult({ abi: errorAbi, errorName: 'Error', args: ['Reverter: always reverts'] }),
      ],
      [
        'a custom error with arguments',
        encodeFunctionData({ abi: reverterAbi, functionName: 'revertWithCustomError', args: [7n, 9n] }),
        'execution reverted',
        encodeErrorResult({ abi: reverterAbi, errorName: 'InsufficientBalance', args: [7n, 9n] }),
      ],
      [
        'Panic from assert',
        encodeFunctionData({ abi: reverterAbi, functionName: 'panicAssert' }),
        'execution reverted: assert(false)',
        encodeErrorResult({ abi: errorAbi, errorName: 'Panic', args: [1n] }),
      ],
      [
        'Panic from division by zero',
        encodeFunctionData({ abi: reverterAbi, functionName: 'divide', args: [0n] }),
        'execution reverted: division or modulo by zero',
        encodeErrorResult({ abi: errorAbi, errorName: 'Panic', args: [0x12n] }),
      ],
      ['empty revert data', encodeFunctionData({ abi: reverterAbi, functionName: 'revertEmpty' }), 'execution reverted', '0x'],
    ]
    for (const [kind, data, message, revertData] of cases) {
      it(kind, async () => {
        const res = await rpc.call(method, [reverterCall(data)])
        expect(res.error).toStrictEqual({ code: 3, message, data: revertData })
      })
    }
  })

  describe('estimates: the lowest succeeding gas, within 1.5%', () => {
    const calls: [string, Record<string, string>][] = []
    const scenario = (name: string, json: Record<string, string>) => calls.push([name, json])
    scenario('an ERC-20 transfer to a new holder', {
      from: addr('alice'),
      to: addr('token'),
      data: encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: ['0x000000000000000000000000000000000000beef', parseEther('1')] }),
    })
    scenario('an ERC-20 transfer to an existing holder', {
      from: addr('alice'),
      to: addr('token'),
      data: encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [addr('bob'), parseEther('1')] }),
    })
    scenario('a gas-burning loop of 300 rounds', reverterCall(encodeFunctionData({ abi: reverterAbi, functionName: 'burn', args: [300n] })))
    scenario('a plain transfer of ether', { from: addr('alice'), to: addr('bob'), value: '0xde0b6b3a7640000' })

    for (const [name, json] of calls) {
      it(name, async () => {
        const res = await rpc.call(method, [json])
        expect(res.error).toBeUndefined()
        const estimate = BigInt(res.result as string)

        const head = rpc.chain.head
        const session = await CallSession.open(rpc.chain, head, {
          from: json.from,
          to: json.to,
          value: json.value ? BigInt(json.value) : undefined,
          data: json.data ? Buffer.from(json.data.slice(2), 'hex') : undefined,
        })
        // Below the intrinsic gas the call cannot even start: that counts as failing too.
        const fails = async (gas: bigint) => {
          try {
            return (await session.execute(gas)).failed
          } catch (err) {
            if (err instanceof CallError && err.intrinsic) return true
            throw err
          }
        }
        // The true minimum, by bisection to the last unit of gas.
        let lo = 21000n - 1n
        let hi = estimate
        while (lo + 1n < hi) {
          const mid = (lo + hi) / 2n
          if (await fails(mid)) lo = mid
          else hi = mid
        }
        const minimum = hi
        expect(await fails(estimate)).toBe(false)
        expect(await fails(minimum - 1n)).toBe(true)
        expect(estimate).toBeGreaterThanOrEqual(minimum)
        expect(Number(estimate - minimum) / Number(estimate)).toBeLessThan(0.015)
      })
    }
  })

  it('answers gas required exceeds allowance when the given gas is too low, or the Osaka cap is', async () => {
    const burnMany = reverterCall(encodeFunctionData({ abi: reverterAbi, functionName: 'burn', args: [1_000_000n] }))
    expect((await rpc.call(method, [burnMany])).error).toStrictEqual({ code: -32000, message: 'gas required exceeds allowance (16777216)' })
    const burnFew = reverterCall(encodeFunctionData({ abi: reverterAbi, functionName: 'burn', args: [10n] }))
    expect((await rpc.call(method, [{ ...burnFew, gas: '0x5dc0' }])).error).toStrictEqual({
      code: -32000,
      message: 'gas required exceeds allowance (24000)',
    })
  })

  it('caps the balance allowance and refuses a value the sender cannot pay', async () => {
    const poor = '0x00000000000000000000000000000000000f00d5'
    const res = await rpc.call(method, [{ from: poor, to: addr('bob'), value: '0x1', gasPrice: '0x3b9aca00' }])
    expect(res.error).toStrictEqual({ code: -32000, message: 'insufficient funds for transfer' })
  })

  it('answers safe as finalized, and honours an explicit block', async () => {
    // erin holds 10 tokens at the finalized block 4 and 210 from block 5 (the safe block) on.
    const spend = {
      from: addr('erin'),
      to: addr('token'),
      data: encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [addr('dave'), parseEther('100')] }),
    }
    expect(rpc.chain.finalizedNumber).toBe(4n)
    expect(rpc.chain.safeNumber).toBe(5n)
    expect((await rpc.call(method, [spend, 'finalized'])).error?.code).toBe(3)
    expect((await rpc.call(method, [spend, 'safe'])).error?.code).toBe(3)
    expect((await rpc.call(method, [spend, '0x5'])).result).toMatch(/^0x[0-9a-f]+$/)
    expect((await rpc.call(method, [spend, 'latest'])).result).toMatch(/^0x[0-9a-f]+$/)
    expect((await rpc.call(method, [spend, '0x99'])).error).toStrictEqual({ code: -32000, message: 'header not found' })
  })

  it('refuses malformed calls with -32602', async () => {
    expect((await rpc.call(method, [])).error?.code).toBe(-32602)
    expect((await rpc.call(method, [{ to: '0x1234' }])).error?.code).toBe(-32602)
    expect((await rpc.call(method, [{ to: addr('bob'), value: '0x01' }])).error?.code).toBe(-32602)
    expect((await rpc.call(method, [{ to: addr('bob'), data: '0x12', input: '0x34' }])).error?.code).toBe(-32602)
    expect((await rpc.call(method, [{ to: addr('bob') }, 'latest', {}, 'extra'])).error?.code).toBe(-32602)
  })

  describe('one VM per block, kept answers', () => {
    const transfer = (from: string, to: string, amount: bigint) => ({
      from,
      to: addr('token'),
      data: encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [to as `0x${string}`, amount] }),
    })
    const calls = [
      transfer(addr('alice'), '0x000000000000000000000000000000000000beef', parseEther('1')),
      transfer(addr('alice'), addr('bob'), parseEther('2')),
      transfer(addr('bob'), '0x000000000000000000000000000000000000cafe', 1n),
      transfer(addr('erin'), addr('dave'), parseEther('100000')),
      reverterCall(encodeFunctionData({ abi: reverterAbi, functionName: 'burn', args: [40n] })),
      reverterCall(encodeFunctionData({ abi: reverterAbi, functionName: 'revertWithReason' })),
      { from: '0x00000000000000000000000000000000000f00d5', to: addr('bob'), value: '0x1', gasPrice: '0x3b9aca00' },
      { from: addr('alice'), to: addr('bob'), value: '0xde0b6b3a7640000' },
    ]

    it('answers concurrent calls (one batch) as each is answered alone on a fresh chain', async () => {
      const fresh = await fixtureClient('ethereum')
      const alone = []
      for (const call of calls) alone.push(await fresh.call(method, [call]))
      const batch = calls.map((call, i) => ({ jsonrpc: '2.0', id: i, method, params: [call] }))
      const together = (await rpc.post(JSON.stringify(batch))) as unknown as { id: number; result?: unknown; error?: unknown }[]
      expect(together.map((r) => r.result ?? r.error)).toStrictEqual(alone.map((r) => r.result ?? r.error))
    })

    it('leaves the block state as it was: balances and storage read the same after the estimates', async () => {
      const balanceOf = (who: string) =>
        rpc.call('eth_call', [{ to: addr('token'), data: encodeFunctionData({ abi: tokenAbi, functionName: 'balanceOf', args: [who as `0x${string}`] }) }])
      const before = await Promise.all([balanceOf(addr('alice')), balanceOf('0x000000000000000000000000000000000000beef'), rpc.call('eth_getBalance', [addr('alice'), 'latest'])])
      for (const call of calls) await rpc.call(method, [call])
      const after = await Promise.all([balanceOf(addr('alice')), balanceOf('0x000000000000000000000000000000000000beef'), rpc.call('eth_getBalance', [addr('alice'), 'latest'])])
      expect(after.map((r) => r.result)).toStrictEqual(before.map((r) => r.result))
    })

    it('answers a repeated call from the kept answer, and a call at another block anew', async () => {
      const chain = rpc.chain
      const call = {
        from: addr('alice'),
        to: addr('token'),
        data: Buffer.from(transfer(addr('alice'), '0x00000000000000000000000000000000000d1ff5', 3n).data.slice(2), 'hex'),
      }
      const gasCap = chain.head.block.header.gasLimit * 10n
      const first = await estimateGas(chain, chain.head, call, { gasCap })
      expect(first.executions).toBeGreaterThan(1)
      const again = await estimateGas(chain, chain.head, { ...call, from: call.from.toUpperCase().replace('0X', '0x') }, { gasCap })
      expect(again).toStrictEqual({ gas: first.gas, executions: 0 })
      // Another amount (the same length of data, one byte apart) or a value is another call.
      const otherData = await estimateGas(chain, chain.head, { ...call, data: Buffer.from(transfer(addr('alice'), '0x00000000000000000000000000000000000d1ff5', 2n).data.slice(2), 'hex') }, { gasCap })
      expect(otherData.executions).toBeGreaterThan(1)
      const otherValue = await estimateGas(chain, chain.head, { ...call, value: 0n }, { gasCap })
      expect(otherValue.executions).toBeGreaterThan(1)
      const earlier = await estimateGas(chain, chain.byNumber(chain.head.number - 1n)!, call, { gasCap })
      expect(earlier.executions).toBeGreaterThan(1)
      // A revert is an answer too, and is given again the same way.
      const revert = reverterCall(encodeFunctionData({ abi: reverterAbi, functionName: 'revertWithReason' }))
      const answers = [await rpc.call(method, [revert]), await rpc.call(method, [revert])]
      expect(answers[1]!.error).toStrictEqual(answers[0]!.error)
      expect(answers[0]!.error?.code).toBe(3)
    })
  })
})
