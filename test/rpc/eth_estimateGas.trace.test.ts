/**
 * The estimator's search decided from the first run's trace (`ExecutionOutcome.lowestGas`) gives
 * the answer the full search gives, executing once where the trace depends on nothing gas-limited.
 */
import { readFileSync } from 'node:fs'
import { encodeFunctionData, parseAbi, parseEther } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { estimateGas } from '../../src/chain/execution/estimateGas.ts'
import type { CallArgs } from '../../src/chain/execution/callArgs.ts'
import { fixtureClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const book = JSON.parse(readFileSync(new URL('../../fixtures/ethereum/accounts.json', import.meta.url), 'utf8')) as {
  accounts: { name: string; address: string }[]
  contracts: { name: string; address: string }[]
}
const addr = (name: string) => (book.accounts.find((a) => a.name === name) ?? book.contracts.find((c) => c.name === name))!.address

const abi = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function burn(uint256 rounds) returns (bytes32)',
  'function increment()',
])
const bytes = (hex: string) => Buffer.from(hex.replace(/^0x/, ''), 'hex')
const transfer = (from: string, to: string, amount: bigint): CallArgs => ({
  from,
  to: addr('token'),
  data: bytes(encodeFunctionData({ abi, functionName: 'transfer', args: [to as `0x${string}`, amount] })),
})

describe('eth_estimateGas decided from the trace', () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await fixtureClient('ethereum')
  })

  const cases: [string, () => CallArgs, 'once' | 'searched'][] = [
    ['an ERC-20 transfer to a new holder', () => transfer(addr('alice'), '0x000000000000000000000000000000000000beef', parseEther('1')), 'once'],
    ['an ERC-20 transfer to a holder, with a fee', () => ({ ...transfer(addr('alice'), addr('bob'), 5n), maxFeePerGas: 10n ** 11n }), 'once'],
    ['a gas-burning loop', () => ({ from: addr('alice'), to: addr('reverter'), data: bytes(encodeFunctionData({ abi, functionName: 'burn', args: [120n] })) }), 'once'],
    ['a counter increment', () => ({ from: addr('bob'), to: addr('counter'), data: bytes(encodeFunctionData({ abi, functionName: 'increment' })) }), 'once'],
    ['calldata to an account without code, under the EIP-7623 floor', () => ({ from: addr('alice'), to: addr('bob'), data: new Uint8Array(2000).fill(7) }), 'once'],
    ['the SHA-256 precompile', () => ({ from: addr('alice'), to: '0x0000000000000000000000000000000000000002', data: new Uint8Array(4096).fill(1) }), 'once'],
    // A creation is left to the search.
    ['a creation', () => ({ from: addr('alice'), data: bytes('0x600a600c600039600a6000f3602a60005260206000f3') }), 'searched'],
  ]
  for (const [what, call, runs] of cases) {
    it(`${what}: the same answer as the full search`, async () => {
      const chain = rpc.chain
      const gasCap = chain.head.block.header.gasLimit * 10n
      const searched = await estimateGas(chain, chain.head, call(), { gasCap, decideFromTrace: false })
      const decided = await estimateGas(chain, chain.head, call(), { gasCap })
      expect(decided.gas).toBe(searched.gas)
      expect(decided.executions).toBe(searched.executions)
      expect(searched.evmRuns).toBe(searched.executions)
      expect(decided.evmRuns).toBe(runs === 'once' ? 1 : searched.executions)
    })
  }
})
