/**
 * A plain call (src/chain/execution/plainCall.ts) runs through `evm.runCall` with runTx's set-up
 * made by the double; a call with overrides (here empty ones) runs through runTx on a VM of its own.
 * Each call here is executed both ways, traced (as the estimator's first run) and not, at several
 * gas limits, and the outcomes (return or revert data, halt, gas used before and after refunds, the
 * lowest gas a trace decides) or the refusals must be the same. The probes read what runTx's set-up decides:
 * the gas left at the start (the intrinsic gas), which addresses are warm (the coinbase, a
 * precompile, the sender, the target), the sender's code hash after its nonce is raised (a sender
 * that did not exist does afterwards), the origin and the gas price; and a refund, the calldata
 * floor, a revert, out of gas, an invalid opcode, a call from a contract (EIP-3607), a call to an
 * account without code and to a precompile; and a program that writes and reads storage, in frames
 * that revert and succeed, with transient storage and creations (a plain call's writes go to a
 * layer of its own, src/chain/vm/callLayer.ts; runTx's to the block's state manager's caches).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { CallSession } from '../../src/chain/execution/callSession.ts'
import type { CallArgs } from '../../src/chain/execution/callArgs.ts'
import { callType } from '../../src/chain/execution/callTransaction.ts'
import { plainCallOf } from '../../src/chain/execution/plainCall.ts'
import { callsAt } from '../../src/chain/execution/blockCalls.ts'
import { callLayerOver } from '../../src/chain/vm/callLayer.ts'
import { fixtureClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const PROBE = '0x00000000000000000000000000000000000b0b01'
const REFUND = '0x00000000000000000000000000000000000b0b02'
const REVERTS = '0x00000000000000000000000000000000000b0b03'
const LOOPS = '0x00000000000000000000000000000000000b0b04'
const INVALID = '0x00000000000000000000000000000000000b0b05'
const STOPS = '0x00000000000000000000000000000000000b0b06'
const STATEFUL = '0x00000000000000000000000000000000000b0b07'
const NEW_SENDER = '0x00000000000000000000000000000000000c0de5'
const NO_CODE = '0x00000000000000000000000000000000000f00d5'
const SHA256 = '0x0000000000000000000000000000000000000002'

/** The cost of BALANCE of an address pushed by `push`, stored at memory `at`. */
const balanceCost = (push: string, at: string) => `5a${push}31505a900360${at}52`
const PROBE_CODE = `0x${[
  '5a600052', // GAS -> mem[0x00]
  '333f602052', // EXTCODEHASH(CALLER) -> mem[0x20]
  balanceCost('41', '40'), // BALANCE(COINBASE)'s cost -> mem[0x40]
  balanceCost('6001', '60'), // BALANCE(0x01)'s cost -> mem[0x60]
  balanceCost('33', '80'), // BALANCE(CALLER)'s cost -> mem[0x80]
  balanceCost('30', 'a0'), // BALANCE(ADDRESS)'s cost -> mem[0xa0]
  '3260c052', // ORIGIN -> mem[0xc0]
  '3a60e052', // GASPRICE -> mem[0xe0]
  '6101006000f3', // RETURN(0, 0x100)
].join('')}`

const slot0 = `0x${'0'.repeat(64)}`

/**
 * What a plain call's state (src/chain/vm/callLayer.ts) does: storage read, written and read back,
 * frames that revert and succeed, transient storage, and creations (code put, the nonce raised).
 * With calldata 1 it writes slot 2 and reverts, with other calldata it writes slot 3 and stops;
 * without, it returns (0x180 bytes): slot 0 as preset (1), slot 0 after SSTORE(0, 5), the revert
 * path's success flag (0), slot 2 after it (0), the other path's flag (1), slot 3 after it (4),
 * TLOAD(0) after TSTORE(0, 8), a created contract's address, the calldata of the last call (2),
 * the created contract's code hash and size (code 0x00), and a second creation's address.
 */
const STATEFUL_CODE = `0x${[
  '3615601f57', // no calldata: to 0x1f
  '6000356001146014576004600355', // calldata 1: to 0x14; else SSTORE(3, 4)
  '00', // STOP
  '5b600360025560006000fd', // 0x14: SSTORE(2, 3), REVERT
  '5b600054600052', // 0x1f: SLOAD(0) -> mem[0x00]
  '6005600055600054602052', // SSTORE(0, 5), SLOAD(0) -> mem[0x20]
  '6007600155', // SSTORE(1, 7)
  '6001610100526000600060206101006000305af1604052', // CALL(self, 1) -> mem[0x40]
  '6002546060526002610100526000600060206101006000305af1608052', // SLOAD(2) -> mem[0x60]; CALL(self, 2) -> mem[0x80]
  '60035460a052', // SLOAD(3) -> mem[0xa0]
  '600860005d60005c60c052', // TSTORE(0, 8), TLOAD(0) -> mem[0xc0]
  '69600060005360016000f361020052', // the init code (returns 0x00) at mem[0x216]
  '600a6102166000f08060e052803f610120523b61014052', // CREATE -> mem[0xe0], its code hash -> mem[0x120], size -> mem[0x140]
  '600a6102166000f0610160526101806000f3', // CREATE -> mem[0x160]; RETURN(0, 0x180)
].join('')}`

describe('a plain call and the same call through runTx', () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await fixtureClient('ethereum')
    await rpc.chain.editState([
      { address: PROBE, code: PROBE_CODE },
      // Empties a set slot: a refund.
      { address: REFUND, code: '0x600060005500', storage: { [slot0]: `0x${'0'.repeat(63)}1` } },
      { address: REVERTS, code: '0x60aa60005260206000fd' },
      { address: LOOPS, code: '0x5b600056' },
      { address: INVALID, code: '0xfe' },
      { address: STOPS, code: '0x00' },
      { address: STATEFUL, code: STATEFUL_CODE, storage: { [slot0]: `0x${'0'.repeat(63)}1` } },
    ])
    await rpc.chain.mine()
  })

  const nonZero = (n: number) => new Uint8Array(n).fill(7)
  const calls: [string, CallArgs][] = [
    ['the probe from a sender that does not exist', { from: NEW_SENDER, to: PROBE }],
    ['the probe from no sender', { to: PROBE, data: Uint8Array.of(1, 0, 2) }],
    ['the probe from a contract (EIP-3607 waived)', { from: REFUND, to: PROBE }],
    ['the probe with a gas price of 0', { from: NEW_SENDER, to: PROBE, gasPrice: 0n }],
    ['a refund', { to: REFUND }],
    ['calldata under its floor', { to: STOPS, data: nonZero(3000) }],
    ['a revert with data', { to: REVERTS }],
    ['out of gas', { to: LOOPS }],
    ['an invalid opcode', { to: INVALID }],
    ['an account without code', { to: NO_CODE, data: nonZero(4) }],
    ['a precompile', { to: SHA256, data: nonZero(64) }],
    ['storage, frames, transient storage and creations', { to: STATEFUL }],
    ['the same from a sender that does not exist', { from: NEW_SENDER, to: STATEFUL }],
  ]

  for (const [name, args] of calls) {
    it(name, async () => {
      const chain = rpc.chain
      const head = chain.head
      const calls = await callsAt(chain, head)
      expect(plainCallOf(args, calls.txCommon, callType(args, head.block.header.baseFeePerGas), 0n, 0n)).toBeDefined()
      const plain = await CallSession.open(chain, head, args)
      const viaRunTx = await CallSession.open(chain, head, args, {})
      const outcome = async (session: CallSession, trace: boolean, gas: bigint) => {
        try {
          return await session.execute(gas, { trace })
        } catch (err) {
          return { refused: (err as Error).message }
        }
      }
      const intrinsic = 21000n
      for (const gas of [30_000_000n, 100_000n, 60_000n, intrinsic + 3_000n, intrinsic + 10n, intrinsic, intrinsic - 1n, 70_000n]) {
        for (const trace of [false, true]) {
          const answer = await outcome(plain, trace, gas)
          expect(answer, `gas ${gas}, traced ${trace}`).toEqual(await outcome(viaRunTx, trace, gas))
          // And again (what an execution leaves behind is rolled back).
          expect(await outcome(plain, trace, gas), `gas ${gas}, traced ${trace}, again`).toEqual(answer)
        }
      }
    })
  }

  it('the stateful program does what it says, on a layer of its own', async () => {
    // The plain calls above ran on a layer (src/chain/vm/callLayer.ts) over the block's state.
    const calls = await callsAt(rpc.chain, rpc.chain.head)
    expect(callLayerOver(calls.state, calls.txCommon)).toBeDefined()
    const outcome = await (await CallSession.open(rpc.chain, rpc.chain.head, { to: STATEFUL })).execute(30_000_000n)
    const words = Array.from({ length: 12 }, (_, i) => BigInt(`0x${Buffer.from(outcome.returnValue.subarray(i * 32, i * 32 + 32)).toString('hex')}`))
    expect(words.slice(0, 7)).toEqual([1n, 5n, 0n, 0n, 1n, 4n, 8n])
    expect(words[7]).not.toBe(0n)
    expect(words[9]).toBe(0xbc36789e7a1e281436464229828f817d6612f7b477d66591ff96a9e064bcc98an) // keccak256(0x00)
    expect(words[10]).toBe(1n)
    expect(words[11]).not.toBe(words[7])
  })

  it('a call with a fee, a value, a nonce or an access list goes through runTx', async () => {
    const head = rpc.chain.head
    const { txCommon } = await callsAt(rpc.chain, head)
    const plain = (args: CallArgs, feeCap = 0n) => plainCallOf(args, txCommon, callType(args, head.block.header.baseFeePerGas), feeCap, feeCap)
    expect(plain({ to: PROBE, maxFeePerGas: 1n }, 1n)).toBeUndefined()
    expect(plain({ to: PROBE, value: 1n })).toBeUndefined()
    expect(plain({ to: PROBE, nonce: 3n })).toBeUndefined()
    expect(plain({ to: PROBE, accessList: [{ address: PROBE, storageKeys: [] }] })).toBeUndefined()
    expect(plain({ data: Uint8Array.of(0) })).toBeUndefined()
    expect(plain({ to: PROBE, value: 0n, accessList: [] })).toBeDefined()
  })
})
