/**
 * eth_call and eth_estimateGas with geth's state and block overrides, and calls from any address,
 * on the hive chain through the wire. Each override is seen by the call that names it and by no
 * other (the next call, the shared block VM, the estimator's kept answers).
 */
import { getContractAddress } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { hasSharedFixtures } from '../support/hive.ts'
import { hiveClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

/** An address with nothing at it, where overrides put code. */
const X = '0x00000000000000000000000000000000000000aa'
const UNFUNDED = '0xc1cadaffffffffffffffffffffffffffffffffff'
/** hive's callme contract (has code). */
const CALLME = '0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667'
/** hive's EIP-7702 account, delegated to a proxy by the chain's type-4 transaction. */
const DELEGATED = '0xeda8645ba6948855e3b3cd596bbb07596d59c603'
const SLOT0 = `0x${'0'.repeat(64)}`
const word = (n: bigint | number) => `0x${BigInt(n).toString(16).padStart(64, '0')}`

/** Runtime code that returns one 32-byte word computed by `ops` (hex opcodes leaving it on the stack). */
const returning = (ops: string) => `0x${ops}60005260206000f3`
const SLOAD0 = returning('600054')
const CALLER_BALANCE = returning('3331')
const BLOCKHASH_PARENT = returning('6001430340')
/** CREATE an empty contract, return its address (which depends on this contract's nonce). */
const CREATE_EMPTY = returning('600060006000f0')
const ECRECOVER_INPUT =
  '0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8000000000000000000000000000000000000000000000000000000000000001cb7cf302145348387b9e69fde82d8e634a0f8761e78da3bfa059efced97cbed0d2a66b69167cafe0ccfc726aec6ee393fea3cf0e4f3f9c394705e0f56d9bfe1c9'
const ECRECOVER_SIGNER = '0x000000000000000000000000b11cad98ad3f8114e0b3a1f6e7228bc8424df48a'

describe.skipIf(!hasSharedFixtures)('eth_call and eth_estimateGas with overrides', () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await hiveClient()
  })
  const call = (tx: Record<string, unknown>, ...rest: unknown[]) => rpc.call('eth_call', [tx, 'latest', ...rest])

  describe('state overrides', () => {
    it('code and stateDiff apply to the call that names them, and to no later call', async () => {
      const res = await call({ to: X }, { [X]: { code: SLOAD0, stateDiff: { [SLOT0]: word(42) } } })
      expect(res.result).toBe(word(42))
      expect((await call({ to: X })).result).toBe('0x')
    })

    it('state replaces the whole storage; stateDiff keeps the other slots', async () => {
      const slot1 = word(1)
      const both = { code: returning('60015460005401') }
      // slot0 + slot1, with slot 1 set beforehand by stateDiff and then wiped by state.
      expect((await call({ to: X }, { [X]: { ...both, stateDiff: { [SLOT0]: word(2), [slot1]: word(3) } } })).result).toBe(word(5))
      expect((await call({ to: X }, { [X]: { ...both, state: { [SLOT0]: word(2) } } })).result).toBe(word(2))
    })

    it('balance lets an unfunded sender pay; without it geth’s insufficient-funds error', async () => {
      const tx = { from: UNFUNDED, to: X, value: '0xde0b6b3a7640000' }
      expect((await call(tx)).error).toEqual({ code: -32000, message: expect.stringMatching(/^err: insufficient funds for gas \* price \+ value/) })
      expect((await call(tx, { [UNFUNDED]: { balance: '0xde0b6b3a7640000' } })).result).toBe('0x')
      expect((await call({ from: UNFUNDED, to: X }, { [X]: { code: CALLER_BALANCE }, [UNFUNDED]: { balance: '0x2a' } })).result).toBe(word(42))
    })

    it('nonce moves where a contract creates', async () => {
      const res = await call({ to: X }, { [X]: { code: CREATE_EMPTY, nonce: '0x7' } })
      expect(res.result).toBe(word(BigInt(getContractAddress({ from: X, nonce: 7n }))))
    })

    it('movePrecompileToAddress moves ecrecover: the new address recovers, the old one is empty', async () => {
      const moved = { '0x0000000000000000000000000000000000000001': { movePrecompileToAddress: '0x0000000000000000000000000000000000123456' } }
      expect((await call({ to: '0x0000000000000000000000000000000000123456', input: ECRECOVER_INPUT }, moved)).result).toBe(ECRECOVER_SIGNER)
      expect((await call({ to: '0x0000000000000000000000000000000000000001', input: ECRECOVER_INPUT }, moved)).result).toBe('0x')
      expect((await call({ to: '0x0000000000000000000000000000000000000001', input: ECRECOVER_INPUT })).result).toBe(ECRECOVER_SIGNER)
    })

    it('geth’s refusals answer -32000 in its words', async () => {
      expect((await call({ to: X }, { [X]: { state: {}, stateDiff: {} } })).error).toEqual({
        code: -32000,
        message: "account 0x00000000000000000000000000000000000000AA has both 'state' and 'stateDiff'",
      })
      expect((await call({ to: X }, { [X]: { movePrecompileToAddress: UNFUNDED } })).error).toEqual({
        code: -32000,
        message: 'account 0x00000000000000000000000000000000000000AA is not a precompile',
      })
      expect((await call({ to: X }, null, { beaconRoot: SLOT0 })).error).toEqual({
        code: -32000,
        message: 'block override "beaconRoot" is not supported for this RPC method',
      })
    })

    it('malformed overrides answer -32602 with Go’s decoding words', async () => {
      expect((await call({ to: X }, { [X]: { balance: '12' } })).error).toEqual({
        code: -32602,
        message: 'invalid argument 2: json: cannot unmarshal hex string without 0x prefix into Go struct field OverrideAccount.balance of type *hexutil.Big',
      })
      expect((await call({ to: X }, { '0x12': {} })).error?.code).toBe(-32602)
      expect((await call({ to: X }, { [X]: { stateDiff: { '0x01': word(1) } } })).error).toEqual({
        code: -32602,
        message: 'invalid argument 2: hex string has length 2, want 64 for common.Hash',
      })
      expect((await call({ to: X }, null, { time: 5 })).error?.code).toBe(-32602)
    })
  })

  describe('block overrides', () => {
    it('number, time, coinbase, prevRandao, gas limit and blob base fee are what the EVM reads', async () => {
      const read = async (op: string, block: Record<string, string>) => (await call({ to: X }, { [X]: { code: returning(op) } }, block)).result
      expect(await read('43', { number: '0x100' })).toBe(word(0x100))
      expect(await read('42', { time: '0x1234' })).toBe(word(0x1234))
      expect(await read('41', { feeRecipient: UNFUNDED })).toBe(word(BigInt(UNFUNDED)))
      expect(await read('44', { prevRandao: word(7) })).toBe(word(7))
      expect(await read('45', { gasLimit: '0x1000000' })).toBe(word(0x1000000))
      expect(await read('4a', { blobBaseFee: '0x99' })).toBe(word(0x99))
    })

    it('BASEFEE reads the overridden base fee for a call that pays fees, 0 for a fee-less one (as geth)', async () => {
      const code = { [X]: { code: returning('48') } }
      expect((await call({ to: X, maxFeePerGas: '0x100' }, code, { baseFeePerGas: '0x64' })).result).toBe(word(0x64))
      expect((await call({ to: X }, code, { baseFeePerGas: '0x64' })).result).toBe(word(0))
    })

    it('BLOCKHASH walks back from the real header: the parent’s hash, and zero past an overridden number', async () => {
      const parent = (await rpc.call('eth_getBlockByNumber', ['latest', false])).result as { parentHash: string }
      const code = { [X]: { code: BLOCKHASH_PARENT } }
      expect((await call({ to: X }, code)).result).toBe(parent.parentHash)
      expect((await call({ to: X }, code, { number: '0x1000' })).result).toBe(word(0))
    })
  })

  describe('eth_estimateGas', () => {
    it('takes the same overrides, and its kept answers never mix overridden and plain calls', async () => {
      const transfer = { from: UNFUNDED, to: X, value: '0xde0b6b3a7640000', maxFeePerGas: '0x3b9aca00' }
      const rich = { [UNFUNDED]: { balance: '0x56bc75e2d63100000' } }
      expect((await rpc.call('eth_estimateGas', [transfer, 'latest', rich])).result).toBe('0x5208')
      expect((await rpc.call('eth_estimateGas', [transfer])).error).toEqual({ code: -32000, message: 'insufficient funds for transfer' })
      expect((await rpc.call('eth_estimateGas', [transfer, 'latest', rich])).result).toBe('0x5208')
      // Code at the target: no longer a plain transfer.
      const withCode = { ...rich, [X]: { code: SLOAD0 } }
      expect(BigInt((await rpc.call('eth_estimateGas', [transfer, 'latest', withCode])).result as string)).toBeGreaterThan(21000n)
    })

    it('the gas limit override bounds the search', async () => {
      const burn = { to: X, input: '0x' }
      // An infinite loop: out of gas at whatever limit the block override allows.
      const res = await rpc.call('eth_estimateGas', [burn, 'latest', { [X]: { code: '0x5b600056' } }, { gasLimit: '0x30d40' }])
      expect(res.error).toEqual({ code: -32000, message: 'gas required exceeds allowance (200000)' })
    })
  })

  describe('calls from any address (geth skips EIP-3607 for calls)', () => {
    it('from a contract: eth_call and eth_estimateGas run, the sender’s code intact', async () => {
      expect((await call({ from: CALLME, to: X })).result).toBe('0x')
      expect((await rpc.call('eth_estimateGas', [{ from: CALLME, to: X }])).result).toBe('0x5208')
      // The sender's code is still there for a call back into it: callme answers 0xffee to 0xff01.
      // mstore(0, 0xff01); call(gas, caller, 0, 30, 2, 0, 32); return(0, returndatasize)
      const callBack = `0x${['61ff01', '6000', '52', '6020', '6000', '6002', '601e', '6000', '33', '5a', 'f1', '50', '3d', '6000', 'f3'].join('')}`
      expect((await call({ from: CALLME, to: X }, { [X]: { code: callBack } })).result).toBe('0xffee')
    })

    it('from an EIP-7702-delegated account, and from an account given code by an override', async () => {
      expect((await call({ from: DELEGATED, to: X })).result).toBe('0x')
      expect((await rpc.call('eth_estimateGas', [{ from: DELEGATED, to: X }])).result).toBe('0x5208')
      expect((await call({ from: UNFUNDED, to: X }, { [UNFUNDED]: { code: SLOAD0 } })).result).toBe('0x')
    })
  })
})
