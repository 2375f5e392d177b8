/**
 * eth_simulateV1 through the wire, for what the execution-apis fixtures (all 91 pass, in
 * test/conformance/) do not pin: the hosted service's cap of 16 block state calls, its price,
 * that nothing simulated reaches the chain (blocks, state, the shared call VM), Go's decoding
 * errors, and the results of a token bundle on the default ethereum fixture.
 */
import { encodeFunctionData, parseAbi } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { fixtureClient, TEST_KEY } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const ALICE = '0x8f41fd4479ae08632001bc4b1fcbfdc464ed1c49'
const BOB = '0x724f0f3bde1c17da298e2af780968ff5a8271427'
const TOKEN = '0x7d4c351edf255f0d4532fe1eb8f7b7c5eefcb105'
const ERC20 = parseAbi(['function transfer(address,uint256) returns (bool)', 'function balanceOf(address) view returns (uint256)'])
const transfer = (to: string, amount: bigint) => encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [to as `0x${string}`, amount] })
const balanceOf = (who: string) => encodeFunctionData({ abi: ERC20, functionName: 'balanceOf', args: [who as `0x${string}`] })
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`

type Block = { number: string; hash: string; calls: { status: string; returnData: string; logs: { address: string; topics: string[]; logIndex: string; blockHash: string }[]; error?: unknown }[]; transactions: unknown[] }

describe('eth_simulateV1 on the default ethereum fixture', () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await fixtureClient('ethereum')
  })
  const simulate = (opts: unknown, block: unknown = 'latest') => rpc.call('eth_simulateV1', [opts, block])

  it('a 3-call ERC-20 bundle: each call’s result and logs, the block built on the head; the chain unchanged', async () => {
    const head = (await rpc.call('eth_blockNumber')).result as string
    const before = (await rpc.call('eth_call', [{ to: TOKEN, data: balanceOf(BOB) }])).result as string
    const res = await simulate({
      blockStateCalls: [
        {
          calls: [
            { from: ALICE, to: TOKEN, data: transfer(BOB, 10n ** 18n) },
            { from: BOB, to: TOKEN, data: transfer(ALICE, 2n * 10n ** 18n) },
            { from: ALICE, to: TOKEN, data: balanceOf(BOB) },
          ],
        },
      ],
    })
    const [block] = res.result as Block[]
    expect(block!.number).toBe(`0x${(BigInt(head) + 1n).toString(16)}`)
    expect(block!.calls.map((c) => c.status)).toEqual(['0x1', '0x1', '0x1'])
    expect(block!.calls[0]!.logs[0]).toMatchObject({ address: TOKEN, topics: [TRANSFER_TOPIC, word(BigInt(ALICE)), word(BigInt(BOB))], logIndex: '0x0', blockHash: block!.hash })
    expect(block!.calls[1]!.logs[0]!.logIndex).toBe('0x1')
    expect(BigInt(block!.calls[2]!.returnData)).toBe(BigInt(before) - 10n ** 18n)
    // Nothing reached the chain or the calls that follow.
    expect((await rpc.call('eth_blockNumber')).result).toBe(head)
    expect((await rpc.call('eth_call', [{ to: TOKEN, data: balanceOf(BOB) }])).result).toBe(before)
  })

  it('traceTransfers logs ether moves as ERC-7528 transfers; returnFullTransactions gives the transactions', async () => {
    const res = await simulate({ blockStateCalls: [{ calls: [{ from: ALICE, to: BOB, value: '0x2a' }] }], traceTransfers: true, returnFullTransactions: true })
    const [block] = res.result as Block[]
    expect(block!.calls[0]!.logs).toEqual([
      expect.objectContaining({ address: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', topics: [TRANSFER_TOPIC, word(BigInt(ALICE)), word(BigInt(BOB))], data: word(42n) }),
    ])
    expect(block!.transactions[0]).toMatchObject({ from: ALICE, to: BOB, value: '0x2a', v: '0x0', r: '0x0', s: '0x0' })
  })

  it('traceTransfers: a transfer refused for want of balance takes a log index, as geth logs it entering the frame it fails', async () => {
    // CALL(0xffff gas, 0xbeef, 1 ether) from a contract holding 1 wei: refused, no frame; then LOG0.
    const PAYER = '0x00000000000000000000000000000000000be7e5'
    const code = '0x600060006000600067' + '0de0b6b3a7640000' + '61beef61fffff1' + '50' + '60006000a0' + '00'
    const res = await simulate({
      blockStateCalls: [{ stateOverrides: { [PAYER]: { code, balance: '0x1' } }, calls: [{ from: ALICE, to: PAYER, value: '0x2a' }] }],
      traceTransfers: true,
    })
    const call = (res.result as Block[])[0]!.calls[0]!
    expect(call.status).toBe('0x1')
    // geth: 0 alice's 42 wei to the payer, 1 the refused ether (dropped with its frame), 2 the LOG0.
    expect(call.logs.map((l) => [l.address, l.logIndex])).toEqual([
      ['0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', '0x0'],
      [PAYER, '0x2'],
    ])
    // Without traceTransfers nothing is logged for a transfer, refused or not.
    const plain = await simulate({ blockStateCalls: [{ stateOverrides: { [PAYER]: { code, balance: '0x1' } }, calls: [{ from: ALICE, to: PAYER, value: '0x2a' }] }] })
    expect((plain.result as Block[])[0]!.calls[0]!.logs.map((l) => l.logIndex)).toEqual(['0x0'])
  })

  it('a revert is a call result (code 3 and data), not an error of the request', async () => {
    const res = await simulate({ blockStateCalls: [{ calls: [{ from: BOB, to: TOKEN, data: transfer(ALICE, 10n ** 30n) }] }] })
    const call = (res.result as Block[])[0]!.calls[0]!
    expect(call.status).toBe('0x0')
    expect(call.returnData).toBe('0x')
    expect(call.error).toMatchObject({ code: 3, message: 'execution reverted: Token: transfer amount exceeds balance' })
  })

  it('the service’s cap: at most 16 block state calls (-38026); geth’s own refusals keep their codes', async () => {
    const blocks = (n: number) => ({ blockStateCalls: Array.from({ length: n }, () => ({})) })
    expect(((await simulate(blocks(16))).result as unknown[]).length).toBe(16)
    expect((await simulate(blocks(17))).error).toEqual({ code: -38026, message: 'too many block state calls: 17 > 16' })
    expect((await simulate(blocks(0))).error).toEqual({ code: -32602, message: 'empty input' })
    const insufficient = await simulate({ blockStateCalls: [{ calls: [{ from: '0x00000000000000000000000000000000000f00d1', to: BOB, value: '0x1' }] }] })
    expect(insufficient.error?.code).toBe(-38014)
    const lowNonce = await simulate({ blockStateCalls: [{ calls: [{ from: ALICE, to: BOB, nonce: '0x0', maxFeePerGas: '0x174876e800' }] }], validation: true })
    expect(lowNonce.error?.code).toBe(-38010)
  })

  it('malformed options answer -32602 with Go’s decoding words', async () => {
    expect((await simulate({ blockStateCalls: {} })).error).toEqual({
      code: -32602,
      message: 'invalid argument 0: json: cannot unmarshal object into Go struct field simOpts.blockStateCalls of type []ethapi.simBlock',
    })
    expect((await simulate({ blockStateCalls: [{ calls: [{ to: '0x12' }] }] })).error?.code).toBe(-32602)
    expect((await simulate({ blockStateCalls: [{}], validation: 'yes' })).error?.code).toBe(-32602)
    expect((await simulate([])).error?.code).toBe(-32602)
  })

  it('costs 80 credits (the service lists no price: its default)', async () => {
    const before = rpc.app.gateway.balance(TEST_KEY)
    await simulate({ blockStateCalls: [{}] })
    expect(before! - rpc.app.gateway.balance(TEST_KEY)!).toBe(80)
  })
})
