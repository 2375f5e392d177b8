/**
 * What a block's state remembers of the reads made on it stays bounded under endless distinct
 * reads (src/chain/vm/blockState.ts): its memos start over past `MEMO_LIMIT` keys, and EthereumJS's
 * caches give back what each call read when the call is rolled back. Through a real server, as heap
 * after GC in this process (the server's), with wide margins: under the memos' former bound
 * (100,000 keys of hex strings) the first kept 68 MiB, the second 119 MiB; now each a few.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { postRpc } from '../support/wire.ts'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const heapMiB = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed / 2 ** 20
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

describe('memory of reads through a real server', () => {
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
    const before = heapMiB()
    for (let b = 1; b <= 3; b++) {
      const answers = await batch(Array.from({ length: 4 }, (_, i) => call(b * 4 + i)))
      expect(answers.map((a) => a.result)).toEqual(Array(4).fill('0x'))
    }
    expect(heapMiB() - before).toBeLessThan(24)
  })

  it('eth_getStorageAt of 30,000 distinct slots: the heap stays flat', async () => {
    const read = (i: number) => ({ method: 'eth_getStorageAt', params: [TOKEN, word(0x100000 + i), 'latest'] })
    await batch([read(0)])
    const before = heapMiB()
    for (let b = 0; b < 30; b++) {
      const answers = await batch(Array.from({ length: 1000 }, (_, i) => read(1 + b * 1000 + i)))
      expect(answers.every((a) => a.result === word(0))).toBe(true)
    }
    expect(heapMiB() - before).toBeLessThan(24)
  })
})
