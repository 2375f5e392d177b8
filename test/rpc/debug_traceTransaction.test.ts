/**
 * debug_traceTransaction, debug_traceBlockByNumber and debug_traceBlockByHash on the default
 * ethereum fixture, through the wire. Each trace is checked against what the chain says
 * otherwise: receipts (gas used, status, revert data), the state before and after (eth_getBalance,
 * eth_getStorageAt at the parent block and the block), the struct logger's own arithmetic (each
 * step's gas is the last one's less its cost), and a block's traces against its transactions'
 * traces one by one. Then the options, geth's errors and the double's bounds.
 */
import { bytesToHex } from '@ethereumjs/util'
import { beforeAll, describe, expect, it } from 'vitest'
import { keccak256 } from '../../src/encoding/keccak.ts'
import { fixtureBook } from '../support/fixtureBook.ts'
import { fixtureClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const book = fixtureBook('ethereum')
const TOKEN = book.address('token')
const tx = (summary: string): { hash: string; block: number; index: number } => {
  const t = book.transactions.find((x) => x.summary === summary)
  if (!t) throw new Error(`no transaction "${summary}"`)
  return t
}
const TRANSFER = tx('bob → token.transfer(carol, 100 ether)')
const SECOND_TRANSFER = tx('carol → token.transfer(dave, 50 ether)')
const REVERTED = tx('dave → reverter.revertWithReason()')
const OUT_OF_GAS = tx('bob → reverter.burn(100000)')
const q = (n: bigint | number) => `0x${n.toString(16)}`
const balanceSlot = (holder: string) => bytesToHex(keccak256(Uint8Array.from(Buffer.from(`${holder.slice(2).padStart(64, '0')}${'00'.repeat(32)}`, 'hex'))))

interface StructLog {
  pc: number
  op: string
  gas: number
  gasCost: number
  depth: number
  error?: string
  stack?: string[]
  memory?: string[]
  storage?: Record<string, string>
  returnData?: string
  refund?: number
}
interface StructResult {
  gas: number
  failed: boolean
  returnValue: string
  structLogs: StructLog[]
}

describe('debug_traceTransaction and debug_traceBlockBy*', () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await fixtureClient('ethereum')
  })
  const result = <T,>(method: string, params: unknown[] = []) => rpc.result<T>(method, params)
  const receipt = (hash: string) => result<{ gasUsed: string; status: string }>('eth_getTransactionReceipt', [hash])

  describe('the struct logger (the default tracer)', () => {
    it('logs every step as geth does: gas as the receipt has it, each step paying for the last', async () => {
      const trace = await result<StructResult>('debug_traceTransaction', [TRANSFER.hash])
      expect(q(trace.gas)).toBe((await receipt(TRANSFER.hash)).gasUsed)
      expect(trace.failed).toBe(false)
      expect(trace.returnValue).toBe(`0x${'00'.repeat(31)}01`)
      const logs = trace.structLogs
      expect(logs[0]).toMatchObject({ pc: 0, depth: 1, stack: [] })
      expect(logs.at(-1)!.op).toBe('RETURN')
      for (let i = 1; i < logs.length; i++) expect(logs[i]!.gas, `step ${i}`).toBe(logs[i - 1]!.gas - logs[i - 1]!.gasCost)
      expect(logs.every((l) => Object.keys(l).every((k) => ['pc', 'op', 'gas', 'gasCost', 'depth', 'stack', 'storage', 'refund'].includes(k)))).toBe(true)
    })

    it('shows the slots an SLOAD read as they were before the transaction, and an SSTORE’s written value', async () => {
      const trace = await result<StructResult>('debug_traceTransaction', [TRANSFER.hash])
      const parent = q(TRANSFER.block - 1)
      const bob = book.address('bob')
      const slot = balanceSlot(bob)
      const sload = trace.structLogs.find((l) => l.op === 'SLOAD' && l.storage?.[slot] !== undefined)!
      expect(sload.storage![slot]).toBe(await result('eth_getStorageAt', [TOKEN, slot, parent]))
      const sstore = trace.structLogs.find((l) => l.op === 'SSTORE' && l.storage?.[slot] !== undefined)!
      const stack = sstore.stack!
      expect(stack.at(-1)).toBe(`0x${BigInt(slot).toString(16)}`)
      expect(BigInt(sstore.storage![slot]!)).toBe(BigInt(stack.at(-2)!))
      // bob's balance stays non-zero (1000 → 900 ether): nothing to refund, and geth leaves a zero
      // counter out (`refund,omitempty`), at that step and every other.
      expect(BigInt(sstore.storage![slot]!)).toBeGreaterThan(0n)
      expect(trace.structLogs.filter((l) => 'refund' in l)).toEqual([])
    })

    // geth logs a step after charging its gas, and SSTORE's gas function is where the refund is
    // counted: the clearing SSTORE itself already shows it.
    it('shows the refund counter: 4800 (EIP-3529) from the SSTORE that clears a slot on, absent before', async () => {
      // bob sends carol his whole token balance: his slot goes from non-zero to zero.
      const bob = book.address('bob')
      const slot = balanceSlot(bob)
      const balance = await result<string>('eth_getStorageAt', [TOKEN, slot, 'latest'])
      expect(BigInt(balance)).toBeGreaterThan(0n)
      const word = (v: string | bigint) => BigInt(v).toString(16).padStart(64, '0')
      const data = `0xa9059cbb${word(book.address('carol'))}${word(balance)}`
      const trace = await result<StructResult>('debug_traceCall', [{ from: bob, to: TOKEN, data }, 'latest', { disableStack: true }])
      expect(trace.failed).toBe(false)
      const logs = trace.structLogs
      const clearing = logs.findIndex((l) => l.op === 'SSTORE' && l.storage?.[slot] === `0x${'00'.repeat(32)}`)
      expect(clearing).toBeGreaterThan(0)
      expect(logs.slice(0, clearing).filter((l) => 'refund' in l)).toEqual([])
      expect(logs.slice(clearing).map((l) => l.refund)).toEqual(logs.slice(clearing).map(() => 4800))
    })

    it('follows its options: disableStack, disableStorage, enableMemory, enableReturnData, limit', async () => {
      const plain = await result<StructResult>('debug_traceTransaction', [TRANSFER.hash])
      const bare = await result<StructResult>('debug_traceTransaction', [TRANSFER.hash, { disableStack: true, disableStorage: true }])
      expect(bare.structLogs).toHaveLength(plain.structLogs.length)
      expect(bare.structLogs.some((l) => 'stack' in l || 'storage' in l)).toBe(false)
      const full = await result<StructResult>('debug_traceTransaction', [TRANSFER.hash, { enableMemory: true, enableReturnData: true }])
      const withMemory = full.structLogs.filter((l) => l.memory !== undefined)
      expect(withMemory.length).toBeGreaterThan(0)
      expect(withMemory.every((l) => l.memory!.every((w) => /^0x[0-9a-f]{64}$/.test(w)))).toBe(true)
      // Memory is logged as it is before the step: the step after an MSTORE of v at 0x80 sees v there.
      const i = full.structLogs.findIndex((l) => l.op === 'MSTORE' && l.stack!.at(-1) === '0x80')
      if (i >= 0) expect(BigInt(full.structLogs[i + 1]!.memory![4]!)).toBe(BigInt(full.structLogs[i]!.stack!.at(-2)!))
      const limited = await result<StructResult>('debug_traceTransaction', [TRANSFER.hash, { limit: 2000 }])
      expect(limited.structLogs.length).toBeGreaterThan(0)
      expect(limited.structLogs.length).toBeLessThan(plain.structLogs.length)
      expect(JSON.stringify(limited.structLogs).length).toBeLessThan(2000 + 1000)
      expect(limited.gas).toBe(plain.gas)
    })

    it('marks a step that runs out of gas with the error, and the trace failed, with no return value', async () => {
      const trace = await result<StructResult>('debug_traceTransaction', [OUT_OF_GAS.hash, { disableStack: true }])
      expect(trace).toMatchObject({ failed: true, returnValue: '0x', gas: 100000 })
      const last = trace.structLogs.at(-1)!
      expect(last.error).toBe('out of gas')
      expect(last.gasCost).toBeGreaterThan(last.gas)
      expect(trace.structLogs.filter((l) => l.error !== undefined)).toHaveLength(1)
    })

    it('answers a revert as failed, with the revert data as the return value', async () => {
      const trace = await result<StructResult>('debug_traceTransaction', [REVERTED.hash])
      expect(trace.failed).toBe(true)
      expect(trace.returnValue).toMatch(/^0x08c379a0/)
      expect(trace.structLogs.at(-1)!.op).toBe('REVERT')
      expect(trace.structLogs.some((l) => l.error !== undefined)).toBe(false)
    })
  })

  describe('callTracer', () => {
    it('shows the frame that reverted, with its data and reason, as the receipt has it', async () => {
      const trace = await result<Record<string, string>>('debug_traceTransaction', [REVERTED.hash, { tracer: 'callTracer' }])
      expect(trace).toMatchObject({
        type: 'CALL',
        from: book.address('dave'),
        to: book.address('reverter'),
        input: '0x5b2dd100',
        error: 'execution reverted',
        revertReason: 'Reverter: always reverts',
        gasUsed: (await receipt(REVERTED.hash)).gasUsed,
        value: '0x0',
      })
      expect(trace.output).toMatch(/^0x08c379a0/)
    })

    it('with withLog, the logs of the frame in block order; onlyTopCall keeps them', async () => {
      const withLog = await result<{ logs: { index: string; address: string; topics: string[] }[] }>('debug_traceTransaction', [SECOND_TRANSFER.hash, { tracer: 'callTracer', tracerConfig: { withLog: true } }])
      const logs = (await rpc.call('eth_getTransactionReceipt', [SECOND_TRANSFER.hash])).result as { logs: { logIndex: string; address: string; topics: string[] }[] }
      expect(withLog.logs.map((l) => [l.index, l.address, l.topics])).toEqual(logs.logs.map((l) => [l.logIndex, l.address, l.topics]))
      const top = await result<{ calls?: unknown }>('debug_traceTransaction', [SECOND_TRANSFER.hash, { tracer: 'callTracer', tracerConfig: { onlyTopCall: true, withLog: true } }])
      expect(top.calls).toBeUndefined()
    })
  })

  describe('prestateTracer', () => {
    it('answers the touched accounts and slots as they were before the transaction (mid-block)', async () => {
      const pre = await result<Record<string, { balance: string; nonce?: number; storage?: Record<string, string> }>>('debug_traceTransaction', [SECOND_TRANSFER.hash, { tracer: 'prestateTracer' }])
      const carol = book.address('carol')
      expect(Object.keys(pre)).toEqual(expect.arrayContaining([carol, TOKEN]))
      // Before this transaction, the one before it in the block (bob sends carol 100) has run.
      const atParent = BigInt(await result<string>('eth_getStorageAt', [TOKEN, balanceSlot(carol), q(SECOND_TRANSFER.block - 1)]))
      expect(BigInt(pre[TOKEN]!.storage![balanceSlot(carol)]!)).toBe(atParent + 100n * 10n ** 18n)
      // geth leaves a zero nonce out.
      expect(pre[carol]!.nonce ?? 0).toBe(Number(await result<string>('eth_getTransactionCount', [carol, q(SECOND_TRANSFER.block - 1)])))
    })

    it('with diffMode, answers what changed: post as the block leaves it, pre as it was', async () => {
      const diff = await result<{ pre: Record<string, { storage?: Record<string, string> }>; post: Record<string, { storage?: Record<string, string>; nonce?: number }> }>('debug_traceTransaction', [
        SECOND_TRANSFER.hash,
        { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
      ])
      const block = q(SECOND_TRANSFER.block)
      for (const holder of ['carol', 'dave']) {
        const slot = balanceSlot(book.address(holder))
        expect(BigInt(diff.post[TOKEN]!.storage![slot]!), holder).toBe(BigInt(await result<string>('eth_getStorageAt', [TOKEN, slot, block])))
      }
      expect(diff.post[book.address('carol')]!.nonce).toBe(Number(await result<string>('eth_getTransactionCount', [book.address('carol'), block])))
    })
  })

  describe('whole blocks', () => {
    it('traces every transaction of a block as tracing each alone does', async () => {
      const hash = ((await rpc.call('eth_getBlockByNumber', [q(4), false])).result as { hash: string; transactions: string[] })
      const byNumber = await result<{ txHash: string; result: unknown }[]>('debug_traceBlockByNumber', [q(4), { tracer: 'callTracer' }])
      const byHash = await result<unknown[]>('debug_traceBlockByHash', [hash.hash, { tracer: 'callTracer' }])
      expect(byHash).toEqual(byNumber)
      expect(byNumber.map((t) => t.txHash)).toEqual(hash.transactions)
      for (const t of byNumber) expect(t.result).toEqual(await result('debug_traceTransaction', [t.txHash, { tracer: 'callTracer' }]))
    })

    it('traces a transaction from the state before it (the replay points) exactly as replaying its block up to it does, with every tracer', async () => {
      const configs = [{}, { disableStack: true, enableReturnData: true }, { tracer: 'prestateTracer' }, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }, { tracer: 'callTracer', tracerConfig: { withLog: true } }]
      for (const n of [2, 3, 5, 6]) {
        for (const config of configs) {
          const block = await result<{ txHash: string; result: unknown }[]>('debug_traceBlockByNumber', [q(n), config])
          expect(block.length).toBeGreaterThan(1)
          // The last first: its trace records the block's points, the others start from them.
          for (const t of [...block].reverse()) expect(await result('debug_traceTransaction', [t.txHash, config]), `block ${n} ${t.txHash} ${JSON.stringify(config)}`).toEqual(t.result)
        }
      }
    })
  })

  describe('errors and bounds', () => {
    const error = async (method: string, params: unknown[]) => (await rpc.call(method, params)).error
    it('answers geth’s errors for what cannot be traced', async () => {
      expect(await error('debug_traceTransaction', [`0x${'00'.repeat(31)}01`])).toEqual({ code: -32000, message: 'transaction not found' })
      expect(await error('debug_traceBlockByNumber', ['0x0'])).toEqual({ code: -32000, message: 'genesis is not traceable' })
      expect(await error('debug_traceBlockByNumber', ['0x99'])).toEqual({ code: -32000, message: 'block #153 not found' })
      expect(await error('debug_traceBlockByHash', [`0x${'00'.repeat(31)}01`])).toEqual({ code: -32000, message: `block 0x${'00'.repeat(31)}01 not found` })
      expect(await error('debug_traceBlockByNumber', ['3'])).toEqual({ code: -32602, message: 'invalid argument 0: hex string without 0x prefix' })
    })

    it('refuses unknown tracers and bad configurations', async () => {
      expect((await error('debug_traceTransaction', [TRANSFER.hash, { tracer: 'fourByteTracer' }]))?.message).toMatch(/^tracer "fourByteTracer" is not supported by this double/)
      expect(await error('debug_traceTransaction', [TRANSFER.hash, { tracer: 'callTracer', tracerConfig: { onlyTopCall: 'yes' } }])).toEqual({
        code: -32000,
        message: 'json: cannot unmarshal string into Go struct field callTracerConfig.onlyTopCall of type bool',
      })
      expect(await error('debug_traceTransaction', [TRANSFER.hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true, includeEmpty: true } }])).toEqual({
        code: -32000,
        message: 'cannot use diffMode with includeEmpty',
      })
      expect(await error('debug_traceTransaction', [TRANSFER.hash, { disableStack: 1 }])).toEqual({
        code: -32602,
        message: 'invalid argument 1: json: cannot unmarshal number into Go struct field TraceConfig.disableStack of type bool',
      })
      expect(await error('debug_traceTransaction', [TRANSFER.hash, { timeout: '5 seconds' }])).toEqual({ code: -32000, message: 'time: unknown unit " seconds" in duration "5 seconds"' })
      expect(await result('debug_traceTransaction', [TRANSFER.hash, { tracer: 'noopTracer' }])).toEqual({})
    })

    it('stops at its timeout with geth’s error', async () => {
      expect(await error('debug_traceTransaction', [TRANSFER.hash, { timeout: '-1s' }])).toEqual({ code: -32000, message: 'execution timeout' })
    })

    it('costs 1000 credits a call, as every debug_* method', async () => {
      const before = rpc.app.gateway.balance('aaaabbbbccccddddeeeeffff00001111')!
      await rpc.call('debug_traceTransaction', [TRANSFER.hash, { tracer: 'noopTracer' }])
      expect(before - rpc.app.gateway.balance('aaaabbbbccccddddeeeeffff00001111')!).toBe(1000)
    })
  })
})
