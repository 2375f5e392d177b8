/**
 * eth_call on the hive chain, for what its fixtures do not pin: revert data of every kind, geth's
 * wording for halts and for calls refused before execution, the gas a call gets, historical
 * blocks, and bad params.
 */
import { toChecksumAddress } from '@ethereumjs/util'
import { beforeAll, describe, expect, it } from 'vitest'
import { hasSharedFixtures } from '../support/hive.ts'
import { GAS_CAP_MULTIPLIER } from '../../src/rpc/methods/eth_estimateGas.ts'
import { hiveClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const ZERO = '0x0000000000000000000000000000000000000000'
/** hive's callrevert contract: input 0x01 reverts with Error("user error"), 0x00 with Panic(1). */
const CALLREVERT = '0x0ee3ab1371c93e7c0c281cc0c2107cdebc8b1930'
/** hive's callme contract: answers 0xffee to 0xff01, reverts with raw text otherwise. */
const CALLME = '0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667'
/** hive's callenv contract: echoes the EVM environment, first word the block number. */
const CALLENV = '0x9344b07175800259691961298ca11c824e65032d'
const UNFUNDED = '0xc1cadaffffffffffffffffffffffffffffffffff'
/** EIP-7825's cap: the hive chain's head is Osaka. */
const OSAKA_CAP = 16_777_216

describe.skipIf(!hasSharedFixtures)('eth_call', () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await hiveClient()
  })
  const call = (tx: Record<string, unknown>, ...rest: unknown[]) => rpc.call('eth_call', [{ from: ZERO, ...tx }, ...rest])
  /** The service's gas cap, eth_call's gas when the call names none: 10x the head's gas limit. */
  const gasCap = () => rpc.chain.head.block.header.gasLimit * GAS_CAP_MULTIPLIER

  describe('reverts: code 3, geth message, the revert bytes as data', () => {
    it('Error(string) gives its reason', async () => {
      const res = await call({ to: CALLREVERT, input: '0x01' })
      expect(res.error).toEqual({
        code: 3,
        message: 'execution reverted: user error',
        data: '0x08c379a00000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000000a75736572206572726f72',
      })
    })

    it('Panic(uint256) gives geth’s text for the code', async () => {
      const res = await call({ to: CALLREVERT, input: '0x00' })
      expect(res.error).toEqual({
        code: 3,
        message: 'execution reverted: assert(false)',
        data: '0x4e487b710000000000000000000000000000000000000000000000000000000000000001',
      })
    })

    it('data that is not an ABI error gives plain "execution reverted" with the raw bytes', async () => {
      const res = await call({ to: CALLME, input: '0x01' })
      expect(res.error).toEqual({
        code: 3,
        message: 'execution reverted',
        data: `0x${Buffer.from('wrong-calldatasize').toString('hex')}`,
      })
    })

    it('a revert without data answers data "0x"', async () => {
      // init code: REVERT(0, 0)
      const res = await call({ input: '0x60006000fd' })
      expect(res.error).toEqual({ code: 3, message: 'execution reverted', data: '0x' })
    })
  })

  describe('other halts: -32000 with geth’s name, no data', () => {
    it('out of gas', async () => {
      // JUMPDEST PUSH1 0 JUMP: loops until the gas runs out
      const res = await call({ input: '0x5b600056', gas: '0x30000' })
      expect(res.error).toEqual({ code: -32000, message: 'out of gas' })
    })

    it('invalid jump destination', async () => {
      const res = await call({ input: '0x600056' })
      expect(res.error).toEqual({ code: -32000, message: 'invalid jump destination' })
    })

    it('invalid opcode, named as geth names it', async () => {
      expect((await call({ input: '0xfe' })).error).toEqual({ code: -32000, message: 'invalid opcode: INVALID' })
      expect((await call({ input: '0x0c' })).error).toEqual({ code: -32000, message: 'invalid opcode: opcode 0xc not defined' })
    })
  })

  describe('refused before execution: geth’s ApplyMessage wording', () => {
    it('insufficient funds names the checksummed sender, its balance and gas * price + value', async () => {
      const res = await call({ from: UNFUNDED, to: CALLME, input: '0xff01', value: '0x1' })
      expect(res.error).toEqual({
        code: -32000,
        message: `err: insufficient funds for gas * price + value: address ${toChecksumAddress(UNFUNDED)} have 0 want 1 (supplied gas ${gasCap()})`,
      })
    })

    it('with a fee, the balance must cover gas * maxFeePerGas + value', async () => {
      const res = await call({ from: UNFUNDED, to: CALLME, input: '0xff01', gas: '0x10000', maxFeePerGas: '0x3b9aca00' })
      expect(res.error?.message).toBe(
        `err: insufficient funds for gas * price + value: address ${toChecksumAddress(UNFUNDED)} have 0 want ${0x10000 * 1e9} (supplied gas 65536)`,
      )
    })

    it('intrinsic gas too low names what the call needs', async () => {
      const res = await call({ to: CALLME, input: '0xff01', gas: '0x5208' })
      // 21000 + 2 non-zero calldata bytes at 16
      expect(res.error).toEqual({ code: -32000, message: 'err: intrinsic gas too low: have 21000, want 21032 (supplied gas 21000)' })
    })

    it('a creation pays 53000 plus its calldata and init code words', async () => {
      const res = await call({ input: '0x6001600155', gas: '0x5300' })
      expect(res.error?.message).toBe('err: intrinsic gas too low: have 21248, want 53082 (supplied gas 21248)')
    })

    it('under Prague the calldata floor (EIP-7623) is checked after the intrinsic gas', async () => {
      // 100 zero bytes: intrinsic 21000 + 400, floor 21000 + 100 * 10
      const res = await call({ to: CALLME, input: `0x${'00'.repeat(100)}`, gas: '0x53fc' })
      expect(res.error?.message).toBe('err: insufficient gas for floor data gas cost: have 21500, want 22000 (supplied gas 21500)')
    })

    it('a fee under the base fee is refused', async () => {
      const res = await call({ to: CALLME, input: '0xff01', gasPrice: '0x1' })
      expect(res.error?.code).toBe(-32000)
      expect(res.error?.message).toMatch(/^err: max fee per gas less than block base fee: address 0x0{40}, maxFeePerGas: 1, baseFee: \d+ \(supplied gas \d+\)$/)
    })

    it('argument conflicts are answered as geth’s CallDefaults words them, unframed', async () => {
      const both = await call({ to: CALLME, gasPrice: '0x1', maxFeePerGas: '0x2' })
      expect(both.error).toEqual({ code: -32000, message: 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified' })
      const chainId = await call({ to: CALLME, chainId: '0x1' })
      expect(chainId.error?.message).toBe(`chainId does not match node's (have=1, want=${rpc.chain.chainId})`)
    })
  })

  describe('gas', () => {
    // init code: GAS, MSTORE at 0, RETURN 32 bytes — answers the gas left after GAS itself
    const GAS_LEFT = '0x5a60005260206000f3'
    // 53000 + 7 non-zero bytes * 16 + 2 zero bytes * 4 + 1 init code word * 2
    const INTRINSIC = 53122
    const gasLeft = async (tx: Record<string, unknown>) => {
      const res = await call({ input: GAS_LEFT, ...tx })
      return Number(BigInt(res.result as string))
    }

    it('without gas, a call gets the gas cap; under Osaka not held to EIP-7825’s 2^24, as geth’s calls are not', async () => {
      expect(gasCap()).toBeGreaterThan(OSAKA_CAP)
      expect(await gasLeft({})).toBe(Number(gasCap()) - INTRINSIC - 2)
    })

    it('a given gas is used as is, above 2^24 too, and held to the cap when above it', async () => {
      expect(await gasLeft({ gas: '0x186a0' })).toBe(100_000 - INTRINSIC - 2)
      expect(await gasLeft({ gas: '0x1000001' })).toBe(OSAKA_CAP + 1 - INTRINSIC - 2)
      expect(await gasLeft({ gas: '0xffffffffffff' })).toBe(Number(gasCap()) - INTRINSIC - 2)
    })

    it('debug_traceCall and eth_createAccessList run above 2^24 as eth_call does; eth_estimateGas stays within it, as geth’s', async () => {
      const trace = await rpc.call('debug_traceCall', [{ input: GAS_LEFT, gas: '0x1000001' }, 'latest', { tracer: 'callTracer' }])
      expect((trace.result as { gas: string }).gas).toBe('0x1000001')
      const list = await rpc.call('eth_createAccessList', [{ input: GAS_LEFT, gas: '0x1000001' }])
      expect(list.error).toBeUndefined()
      const estimate = await rpc.call('eth_estimateGas', [{ input: GAS_LEFT, gas: '0x1000001' }])
      expect(BigInt(estimate.result as string)).toBeLessThanOrEqual(BigInt(OSAKA_CAP))
    })
  })

  describe('blocks', () => {
    it('runs on the state and header of the block asked for', async () => {
      // callenv reads BASEFEE, so it needs a block after London (0x1b)
      const res = await call({ to: CALLENV }, '0x24')
      expect((res.result as string).slice(0, 66)).toBe(`0x${(0x24).toString(16).padStart(64, '0')}`)
      const hash = rpc.chain.byNumber(0x24n)!.hash
      expect((await call({ to: CALLENV }, { blockHash: hash })).result).toBe(res.result)
      // before London (Istanbul rules): callme needs SHR, from Constantinople (0xc)
      expect((await call({ to: CALLME, input: '0xff01' }, '0x12')).result).toBe('0xffee')
    })

    it('runs a fee-less call on the London fork block, whose base fee it zeroes', async () => {
      expect((await call({ to: CALLME, input: '0xff01' }, '0x1b')).result).toBe('0xffee')
      expect((await rpc.call('eth_estimateGas', [{ to: CALLME, input: '0xff01' }, '0x1b'])).result).toMatch(/^0x[0-9a-f]+$/)
    })

    it('answers geth’s errors for a block it does not have', async () => {
      expect((await call({ to: CALLME }, '0x1000')).error).toEqual({ code: -32000, message: 'header not found' })
      expect((await call({ to: CALLME }, `0x${'ab'.repeat(32)}`)).error).toEqual({ code: -32000, message: 'header for hash not found' })
    })

    it('a contract that did not exist yet answers empty', async () => {
      expect((await call({ to: CALLME, input: '0xff01' }, '0x0')).result).toBe('0x')
    })
  })

  describe('params', () => {
    it('bad params answer -32602 with geth’s words', async () => {
      expect((await rpc.call('eth_call', [])).error).toEqual({ code: -32602, message: 'missing value for required argument 0' })
      expect((await call({ to: '0x1234' })).error).toEqual({ code: -32602, message: 'invalid argument 0: hex string has length 4, want 40 for common.Address' })
      expect((await call({ to: CALLME, gas: '100' })).error?.code).toBe(-32602)
      expect((await call({ to: CALLME }, 'newest')).error?.code).toBe(-32602)
      expect((await rpc.call('eth_call', [{ to: CALLME }, 'latest', {}, {}, {}])).error).toEqual({
        code: -32602,
        message: 'too many arguments, want at most 4',
      })
    })

    it('fields are matched in any case, as Go matches a struct’s, the last of two that fold alike winning', async () => {
      expect((await rpc.call('eth_call', [{ FROM: ZERO, To: CALLME, INPUT: '0xff01' }])).result).toBe('0xffee')
      expect((await rpc.call('eth_call', [{ from: ZERO, to: CALLME, Input: '0x01', iNPUT: '0xff01' }])).result).toBe('0xffee')
      expect((await call({ to: CALLME, input: '0xff01', GAS: '0x5208' })).error).toEqual({ code: -32000, message: 'err: intrinsic gas too low: have 21000, want 21032 (supplied gas 21000)' })
    })

    it('empty and null overrides change nothing (the overrides themselves: eth_call.overrides.test.ts)', async () => {
      expect((await call({ to: CALLME, input: '0xff01' }, 'latest', {}, {})).result).toBe('0xffee')
      expect((await call({ to: CALLME, input: '0xff01' }, 'latest', null, null)).result).toBe('0xffee')
    })
  })
})
