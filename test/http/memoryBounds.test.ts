/**
 * What the double keeps of what clients send stays bounded in bytes, through a real server, as heap
 * after GC in this process (the server's), with wide margins.
 *
 * Reads: what a block's state remembers of the reads made on it stays bounded under endless distinct
 * reads (src/chain/vm/blockState.ts): its memos start over past `MEMO_LIMIT` keys, and EthereumJS's
 * caches give back what each call read when the call is rolled back. Under the memos' first bound
 * (100,000 keys of hex strings) the first kept 68 MiB, the second 119 MiB; under 16,384 keys 2.5
 * and 8 MiB; under 4,096 keys 0.3 and 3.
 *
 * Estimates: eth_estimateGas keeps 4,096 answers a chain, keyed by a digest of the call (the call
 * whole before: 1 MiB of data kept 2 MiB a key), and not a revert with more than 1 KiB of data
 * (kept whole before).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { gc } from '../support/heap.ts'
import { postRpc } from '../support/wire.ts'

const heapMiB = async () => {
  // Connections closing and their buffers go first.
  await new Promise((resolve) => setTimeout(resolve, 100))
  gc()
  gc()
  const m = process.memoryUsage()
  // Bytes (Uint8Array) live outside the heap.
  return (m.heapUsed + m.arrayBuffers) / 2 ** 20
}
const KEY = 'feedfacefeedfacefeedfacefeedface'
const TOKEN = '0x7d4c351edf255f0d4532fe1eb8f7b7c5eefcb105'
const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`
const hex4 = (n: number) => n.toString(16).padStart(8, '0')

/**
 * Creation code that reads BALANCE(i) and SLOAD(i) for i from `start` to `start + count - 1`, then
 * stops: `count` distinct accounts and `count` distinct slots (of the account being created).
 */
function readLoop(start: number, count: number): string {
  // PUSH4 start; JUMPDEST; DUP1 BALANCE POP; DUP1 SLOAD POP; PUSH1 1 ADD; DUP1 PUSH4 end GT PUSH1 5 JUMPI; STOP
  return `0x63${hex4(start)}5b8031508054506001018063${hex4(start + count)}1160055700`
}

describe('memory bounds through a real server', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, keys: [{ key: KEY, networks: ['ethereum'], dailyCredits: 1_000_000_000 }] })
  })
  afterAll(() => server?.close())

  async function batch(calls: { method: string; params: unknown[] }[]): Promise<{ result?: string; error?: unknown }[]> {
    const res = await postRpc(server.origin, KEY, calls.map((c, id) => ({ jsonrpc: '2.0', id, ...c })))
    expect(res.status).toBe(200)
    return JSON.parse(res.text)
  }

  it('calls reading 24,000 distinct accounts and 24,000 distinct slots: the heap stays flat', async () => {
    const call = (k: number) => ({ method: 'eth_call', params: [{ data: readLoop(0x1000000 + k * 2000, 2000) }, 'latest'] })
    await batch([call(0)])
    const before = await heapMiB()
    for (let b = 1; b <= 3; b++) {
      const answers = await batch(Array.from({ length: 4 }, (_, i) => call(b * 4 + i)))
      expect(answers.map((a) => a.result)).toEqual(Array(4).fill('0x'))
    }
    expect((await heapMiB()) - before).toBeLessThan(24)
  })

  it('eth_getStorageAt of 30,000 distinct slots: the heap stays flat', async () => {
    const read = (i: number) => ({ method: 'eth_getStorageAt', params: [TOKEN, word(0x100000 + i), 'latest'] })
    await batch([read(0)])
    const before = await heapMiB()
    for (let b = 0; b < 30; b++) {
      const answers = await batch(Array.from({ length: 1000 }, (_, i) => read(1 + b * 1000 + i)))
      expect(answers.every((a) => a.result === word(0))).toBe(true)
    }
    // About 3 MiB with memos of 4,096 keys; 8 MiB under their former bound (16,384 keys).
    expect((await heapMiB()) - before).toBeLessThan(6)
  })

  it('eth_estimateGas of 30 distinct calls with 1 MiB of data: the heap stays flat', async () => {
    const eoa = '0x00000000000000000000000000000000000000aa'
    const call = (k: number) => ({ method: 'eth_estimateGas', params: [{ to: eoa, data: `0x${'00'.repeat(2 ** 20 - 4)}${hex4(k)}` }] })
    await batch([call(0)])
    const before = await heapMiB()
    // One a request: two would be over the 5 MiB body limit.
    for (let k = 1; k <= 30; k++) expect((await batch([call(k)]))[0]!.result).toMatch(/^0x/)
    expect((await heapMiB()) - before).toBeLessThan(24)
  })

  it('eth_estimateGas of 40 distinct calls reverting with 1 MiB of data: the heap stays flat', async () => {
    // PUSH3 0x100000 PUSH1 0 REVERT, then bytes that make each creation code distinct.
    const call = (k: number) => ({ method: 'eth_estimateGas', params: [{ data: `0x621000006000fd${hex4(k)}` }] })
    const first = await batch([call(0)])
    expect(first[0]!.error).toMatchObject({ code: 3, message: 'execution reverted' })
    const before = await heapMiB()
    for (let b = 0; b < 8; b++) {
      const answers = await batch(Array.from({ length: 5 }, (_, i) => call(1 + b * 5 + i)))
      expect(answers.every((a) => (a.error as { code: number }).code === 3)).toBe(true)
    }
    expect((await heapMiB()) - before).toBeLessThan(24)
  })
})
