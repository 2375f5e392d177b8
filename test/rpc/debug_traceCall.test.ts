/**
 * debug_traceCall on the default ethereum fixture, through the wire: a call traced as eth_call
 * runs it (the same answer, the same refusals in geth's traceCall words), with state and block
 * overrides; geth's frames where EthereumJS opens none (a call the caller cannot afford,
 * SELFDESTRUCT); and the double's bound on a trace's size.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { keccak256 } from '../../src/encoding/keccak.ts'
import { fixtureBook } from '../support/fixtureBook.ts'
import { fixtureClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const book = fixtureBook('ethereum')
const REVERTER = book.address('reverter')
const TOKEN = book.address('token')
const alice = book.address('alice')
const dave = book.address('dave')
const bob = book.address('bob')
const CONTRACT = '0x00000000000000000000000000000000000c0de1'
const TARGET = '0x000000000000000000000000000000000000beef'
const word = (n: bigint | number) => n.toString(16).padStart(64, '0')
const selector = (signature: string) => Buffer.from(keccak256(new TextEncoder().encode(signature))).toString('hex').slice(0, 8)

interface Frame {
  type: string
  from: string
  to?: string
  gas: string
  gasUsed: string
  input: string
  output?: string
  error?: string
  revertReason?: string
  value?: string
  calls?: Frame[]
}

describe('debug_traceCall', () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await fixtureClient('ethereum')
  })
  const result = <T,>(method: string, params: unknown[] = []) => rpc.result<T>(method, params)
  const error = async (params: unknown[]) => (await rpc.call('debug_traceCall', params)).error

  it('answers what eth_call answers, traced: an ERC-20 transfer with its log', async () => {
    const call = { from: alice, to: TOKEN, data: `0x${selector('transfer(address,uint256)')}${word(BigInt(bob))}${word(10n ** 18n)}` }
    const frame = await result<Frame & { logs: unknown[] }>('debug_traceCall', [call, 'latest', { tracer: 'callTracer', tracerConfig: { withLog: true } }])
    expect(frame.output).toBe(await result('eth_call', [call, 'latest']))
    expect(frame).toMatchObject({ type: 'CALL', from: alice, to: TOKEN, value: '0x0' })
    expect(frame.logs).toHaveLength(1)
    const struct = await result<{ failed: boolean; returnValue: string; gas: number }>('debug_traceCall', [call, 'latest'])
    expect(struct.failed).toBe(false)
    expect(struct.returnValue).toBe(frame.output)
    expect(BigInt(struct.gas)).toBe(BigInt(frame.gasUsed))
  })

  it('shows a revert’s frame, data and reason', async () => {
    const frame = await result<Frame>('debug_traceCall', [{ from: dave, to: REVERTER, data: '0x5b2dd100' }, 'latest', { tracer: 'callTracer' }])
    expect(frame).toMatchObject({ error: 'execution reverted', revertReason: 'Reverter: always reverts' })
    const estimate = (await rpc.call('eth_estimateGas', [{ from: dave, to: REVERTER, data: '0x5b2dd100' }])).error as { data: string }
    expect(frame.output).toBe(estimate.data)
  })

  it('applies state and block overrides as eth_call does', async () => {
    // NUMBER, then return it: the block number the call sees.
    const code = '0x4360005260206000f3'
    const state = { [CONTRACT]: { code } }
    const frame = await result<Frame>('debug_traceCall', [{ to: CONTRACT }, 'latest', { tracer: 'callTracer', stateOverrides: state, blockOverrides: { number: '0x1234' } }])
    expect(frame.output).toBe(`0x${word(0x1234)}`)
    expect(frame.output).toBe(await result('eth_call', [{ to: CONTRACT }, 'latest', state, { number: '0x1234' }]))
  })

  it('opens geth’s frame for a call the caller cannot afford, and for SELFDESTRUCT', async () => {
    // CALL(gas 0xffff, TARGET, value 1, no data) from a contract with no ether, then STOP.
    const caller = `0x600060006000600060017300${TARGET.slice(4)}61fffff100`
    const frame = await result<Frame>('debug_traceCall', [{ to: CONTRACT }, 'latest', { tracer: 'callTracer', stateOverrides: { [CONTRACT]: { code: caller } } }])
    expect(frame.calls).toEqual([
      { from: CONTRACT, gas: `0x${(0xffff + 2300).toString(16)}`, gasUsed: '0x0', to: TARGET, input: '0x', error: 'insufficient balance for transfer', value: '0x1', type: 'CALL' },
    ])
    // SELFDESTRUCT(TARGET) from a contract holding 5 wei.
    const destroyer = `0x73${TARGET.slice(2)}ff`
    const destroyed = await result<Frame>('debug_traceCall', [{ to: CONTRACT }, 'latest', { tracer: 'callTracer', stateOverrides: { [CONTRACT]: { code: destroyer, balance: '0x5' } } }])
    expect(destroyed.calls).toEqual([{ from: CONTRACT, gas: '0x0', gasUsed: '0x0', to: TARGET, input: '0x', value: '0x5', type: 'SELFDESTRUCT' }])
  })

  it('shows the memory a call’s output area took, as zero words, though the callee returned nothing', async () => {
    // CALL(gas 0xffff, TARGET, no value, no data, output at 0 for 0x40 bytes), POP, STOP: TARGET has no code.
    const code = `0x60406000600060006000${'73' + TARGET.slice(2)}61fffff15000`
    const trace = await result<{ structLogs: { op: string; memory?: string[] }[] }>('debug_traceCall', [{ to: CONTRACT }, 'latest', { enableMemory: true, stateOverrides: { [CONTRACT]: { code } } }])
    const after = trace.structLogs.filter((log) => log.op === 'POP' || log.op === 'STOP')
    expect(after.map((log) => log.op)).toEqual(['POP', 'STOP'])
    for (const log of after) expect(log.memory).toEqual([`0x${word(0)}`, `0x${word(0)}`])
  })

  it('answers geth’s refusals', async () => {
    const call = { from: dave, to: REVERTER, data: '0x5b2dd100' }
    expect(await error([call, 'pending'])).toEqual({ code: -32000, message: 'tracing on top of pending is not supported' })
    expect(await error([call, '0x999'])).toEqual({ code: -32000, message: 'block #2457 not found' })
    expect(await error([call])).toEqual({ code: -32602, message: 'missing value for required argument 1' })
    expect(await error([call, 'latest', { txIndex: '0x0' }])).toEqual({ code: -32602, message: 'txIndex is not supported by this double' })
    expect((await error([{ from: dave, to: REVERTER, value: `0x${'f'.repeat(40)}` }, 'latest']))?.message).toMatch(/^tracing failed: insufficient funds for gas \* price \+ value: address 0x/)
    expect(await error([{ ...call, gasPrice: '0x1', maxFeePerGas: '0x2' }, 'latest'])).toEqual({ code: -32000, message: 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified' })
  })

  it('refuses a struct log past the double’s 32 MiB bound, and cuts one at the caller’s limit', async () => {
    // burn(15000): a loop of about 375,000 steps, some 55 MB of struct log.
    const call = { from: alice, to: REVERTER, data: `0x${selector('burn(uint256)')}${word(15000)}` }
    const refused = await error([call, 'latest', { timeout: '30s' }])
    expect(refused?.code).toBe(-32000)
    expect(refused?.message).toMatch(/^trace result exceeds 33554432 bytes \(the double's bound\)/)
    const small = { ...call, data: `0x${selector('burn(uint256)')}${word(100)}` }
    const cut = await result<{ structLogs: unknown[] }>('debug_traceCall', [small, 'latest', { limit: 1000 }])
    expect(cut.structLogs.length).toBeGreaterThan(0)
    expect(cut.structLogs.length).toBeLessThan(30)
  })
})
