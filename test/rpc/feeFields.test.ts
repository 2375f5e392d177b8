/**
 * The fee fields of a call object in every combination, through every method that takes one:
 * geth's checks (`CallDefaults`, then `preCheck` and `buyGas`) answer first and in geth's words,
 * each method framing them its own way (eth_call `err: ... (supplied gas N)`, eth_estimateGas
 * `failed with N gas: ...`, debug_traceCall `tracing failed: ...`, eth_createAccessList
 * `failed to apply transaction: <hash> err: ...`, eth_simulateV1 its codes); never -32603 and never
 * EthereumJS's words ("maxFeePerGas cannot be less than maxPriorityFeePerGas", "cannot exceed
 * MAX_INTEGER"), which EthereumJS gives when it builds the transaction first.
 */
import { toChecksumAddress } from '@ethereumjs/util'
import { beforeAll, describe, expect, it } from 'vitest'
import { ethereumAccounts, ethereumContracts } from '../../src/fixtures/accounts.ts'
import { fixtureClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const alice = ethereumAccounts.alice.address
const ALICE = toChecksumAddress(alice)
const token = ethereumContracts.token.address
const MAX = `0x${'f'.repeat(64)}`
const MAX_DEC = ((1n << 256n) - 1n).toString()
const FEES = [undefined, '0x0', '0x1', MAX]
const BLOB = `0x01${'00'.repeat(31)}`

describe('fee fields of call objects', () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await fixtureClient('ethereum')
  })
  const simulate = (call: Record<string, unknown>, validation = false) =>
    rpc.call('eth_simulateV1', [{ blockStateCalls: [{ calls: [call] }], validation }, 'latest'])

  it('a tip above the fee cap: geth preCheck words in every method, eth_simulateV1 -32602 with or without validation', async () => {
    const call = { from: alice, to: token, maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x2' }
    const words = `max priority fee per gas higher than max fee per gas: address ${ALICE}, maxPriorityFeePerGas: 2, maxFeePerGas: 1`
    expect((await rpc.call('eth_call', [call, 'latest'])).error).toEqual({ code: -32000, message: `err: ${words} (supplied gas 360000000)` })
    expect((await rpc.call('debug_traceCall', [call, 'latest'])).error).toEqual({ code: -32000, message: `tracing failed: ${words}` })
    expect((await simulate(call)).error).toEqual({ code: -32602, message: `err: ${words} (supplied gas 36000000)` })
    expect((await simulate(call, true)).error).toEqual({ code: -32602, message: `err: ${words} (supplied gas 36000000)` })
    // setFeeDefaults refuses it first where the method fills fees in (geth's AccessList).
    expect((await rpc.call('eth_createAccessList', [call])).error).toEqual({ code: -32000, message: 'maxFeePerGas (0x1) < maxPriorityFeePerGas (0x2)' })
  })

  it('a tip alone: the fee cap defaults to 0 (CallDefaults), so the tip is above it', async () => {
    const call = { from: alice, to: token, maxPriorityFeePerGas: '0x1' }
    const words = `max priority fee per gas higher than max fee per gas: address ${ALICE}, maxPriorityFeePerGas: 1, maxFeePerGas: 0`
    expect((await rpc.call('eth_call', [call, 'latest'])).error).toEqual({ code: -32000, message: `err: ${words} (supplied gas 360000000)` })
    const estimate = (await rpc.call('eth_estimateGas', [call])).error!
    expect(estimate.code).toBe(-32000)
    expect(estimate.message).toMatch(new RegExp(`^failed with \\d+ gas: ${words.replace(/[()]/g, '\\$&')}$`))
    expect((await rpc.call('debug_traceCall', [call, 'latest'])).error).toEqual({ code: -32000, message: `tracing failed: ${words}` })
    expect((await simulate(call)).error).toEqual({ code: -32602, message: `err: ${words} (supplied gas 36000000)` })
  })

  it('gas * fee cap past 256 bits: buyGas refuses it ("required balance exceeds 256 bits")', async () => {
    for (const fees of [{ maxFeePerGas: MAX }, { gasPrice: MAX }]) {
      const call = { from: alice, to: token, ...fees }
      const words = `insufficient funds for gas * price + value: address ${ALICE} required balance exceeds 256 bits`
      expect((await rpc.call('eth_call', [call, 'latest'])).error).toEqual({ code: -32000, message: `err: ${words} (supplied gas 360000000)` })
      expect((await rpc.call('debug_traceCall', [call, 'latest'])).error).toEqual({ code: -32000, message: `tracing failed: ${words}` })
      const accessList = (await rpc.call('eth_createAccessList', [call])).error!.message
      expect(accessList.slice(0, 31)).toBe('failed to apply transaction: 0x')
      expect(accessList.slice(95)).toBe(` err: ${words}`)
      expect((await simulate(call)).error).toEqual({ code: -38014, message: `err: ${words} (supplied gas 36000000)` })
    }
  })

  it('a filled-in fee cap past 256 bits (eth_createAccessList: tip + 2 * base fee): preCheck\'s bit length', async () => {
    const error = (await rpc.call('eth_createAccessList', [{ from: alice, to: token, maxPriorityFeePerGas: MAX }])).error!
    expect(error.code).toBe(-32000)
    expect(error.message).toMatch(new RegExp(`err: max fee per gas higher than 2\\^256-1: address ${ALICE}, maxFeePerGas bit length: 257$`))
    expect((await rpc.call('eth_call', [{ from: alice, to: token, maxPriorityFeePerGas: MAX }, 'latest'])).error?.message).toBe(
      `err: max priority fee per gas higher than max fee per gas: address ${ALICE}, maxPriorityFeePerGas: ${MAX_DEC}, maxFeePerGas: 0 (supplied gas 360000000)`,
    )
  })

  it('a blob call naming no blob fee runs as geth runs it (blob base fee 0): nothing charged, even to an unfunded sender', async () => {
    const unfunded = '0x00000000000000000000000000000000000f00d5'
    const call = { from: unfunded, to: token, data: '0x18160ddd', blobVersionedHashes: [BLOB] }
    expect((await rpc.call('eth_call', [call, 'latest'])).result).toMatch(/^0x[0-9a-f]{64}$/)
    expect((await rpc.call('debug_traceCall', [call, 'latest'])).result).toMatchObject({ failed: false })
    const sim = (await simulate({ ...call, maxFeePerBlobGas: '0x0' })).result as { calls: { status: string }[] }[]
    expect(sim[0]!.calls[0]!.status).toBe('0x1')
  })

  it('every combination of gasPrice, maxFeePerGas, maxPriorityFeePerGas and maxFeePerBlobGas: no -32603, no EthereumJS words', async () => {
    const ethereumjsWords = /cannot be less than|cannot exceed MAX_INTEGER|The total must|hf=|baseFeePerGas \(|the sender's account/
    for (const gasPrice of FEES)
      for (const maxFeePerGas of FEES)
        for (const maxPriorityFeePerGas of FEES)
          for (const maxFeePerBlobGas of [undefined, '0x0', '0x1']) {
            const call: Record<string, unknown> = { from: alice, to: token, gasPrice, maxFeePerGas, maxPriorityFeePerGas, maxFeePerBlobGas }
            if (maxFeePerBlobGas !== undefined) call.blobVersionedHashes = [BLOB]
            const answers = await Promise.all([
              rpc.call('eth_call', [call, 'latest']),
              rpc.call('eth_estimateGas', [call]),
              rpc.call('eth_createAccessList', [call]),
              rpc.call('debug_traceCall', [call, 'latest']),
              simulate(call),
              simulate(call, true),
            ])
            for (const { error } of answers) {
              if (error === undefined) continue
              // geth's own -32603s in eth_simulateV1 (txValidationError's default): a blob fee under the blob base fee.
              if (error.code === -32603) expect(error.message, JSON.stringify(call)).toMatch(/^err: max fee per blob gas less than block blob gas fee/)
              expect(error.message, JSON.stringify(call)).not.toMatch(ethereumjsWords)
            }
          }
  }, 300_000)
})
