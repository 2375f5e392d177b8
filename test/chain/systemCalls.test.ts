/**
 * The EIP-7002 and EIP-7251 system calls answered from the last block's run
 * (src/chain/mining/systemCalls.ts): mined blocks execute them only when what they read changed,
 * and a chain so mined, exported and loaded again, replays with EthereumJS's own runBlock to the
 * same state roots, block for block.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Address, bigIntToAddressBytes, hexToBytes } from '@ethereumjs/util'
import type { EVM } from '@ethereumjs/evm'
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { exportChain, writeFixtureFolder } from '../../src/chain/loading/exportChain.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { signed1559 } from './txSigning.ts'

const FIXTURE = new URL('../../fixtures/ethereum', import.meta.url).pathname
const target = '0x00000000000000000000000000000000000b0b0b'
const dir = mkdtempSync(join(tmpdir(), 'gd-syscalls-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('system calls kept between blocks', () => {
  it('executes them only when what they read changed, with the same roots as a replay', async () => {
    let now = 1_900_000_000_000
    const chain = await loadFixture(FIXTURE, { name: 'ethereum', cache: false, clock: { now: () => (now += 1000) } })
    const vm = await chain.getVm()
    const system = bigIntToAddressBytes(vm.common.param('systemAddress'))
    let executed = 0
    const runCall = vm.evm.runCall.bind(vm.evm)
    ;(vm.evm as EVM).runCall = (opts) => {
      if (opts.caller !== undefined && opts.caller.bytes.every((b, i) => b === system[i])) executed++
      return runCall(opts)
    }
    const queues = ['withdrawalRequestPredeployAddress', 'consolidationRequestPredeployAddress'].map((name) => `0x${(vm.common.param(name) as bigint).toString(16).padStart(40, '0')}`)
    let queueWrites = 0
    // On the state manager's class (the kept runs' recorder sets and deletes its own putStorage on the instance).
    const stateClass = Object.getPrototypeOf(vm.stateManager) as { putStorage(this: unknown, ...args: unknown[]): Promise<void> }
    const putStorage = stateClass.putStorage
    stateClass.putStorage = function (this: unknown, ...args: unknown[]) {
      if (queues.includes(String(args[0]))) queueWrites++
      return putStorage.apply(this, args)
    }
    onTestFinished(() => void (stateClass.putStorage = putStorage))
    await chain.mineBlocks(3)
    const warm = executed
    const warmWrites = queueWrites
    await chain.mineBlocks(5)
    // Nothing they read changed: answered from the kept runs, which store back only what changed (nothing, for empty queues).
    expect(executed).toBe(warm)
    expect(queueWrites).toBe(warmWrites)
    // The withdrawal queue's excess (slot 0) set to 5: its call runs while the excess falls (by
    // the target, 2, a block) and stores what it computes, the consolidation queue's does not run.
    const queue = `0x${(vm.common.param('withdrawalRequestPredeployAddress') as bigint).toString(16).padStart(40, '0')}`
    await chain.editState([{ address: queue, storage: { [`0x${'00'.repeat(32)}`]: `0x${'00'.repeat(31)}05` } }])
    await chain.sendRawTransaction(hexToBytes(signed1559(chain, 'alice', { nonce: 9n, to: target, value: 3n, gasLimit: 60000n }) as `0x${string}`))
    await chain.mineBlocks(4)
    expect(executed).toBe(warm + 4)
    expect(queueWrites).toBeGreaterThan(warmWrites)
    const excess = await (await chain.stateAt(chain.head)).getStorage(new Address(hexToBytes(queue as `0x${string}`)), new Uint8Array(32))
    expect(excess).toEqual(new Uint8Array())

    const folder = join(dir, 'grown')
    writeFixtureFolder(folder, exportChain(chain))
    const replayed = await loadFixture(folder, { name: 'ethereum', cache: false })
    expect(replayed.head.number).toBe(chain.head.number)
    for (let n = chain.head.number - 13n; n <= chain.head.number; n++) {
      expect(replayed.byNumber(n)!.block.header.stateRoot).toEqual(chain.byNumber(n)!.block.header.stateRoot)
    }
  })
})
