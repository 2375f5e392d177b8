/**
 * Cold start to a first answer: the time from `spawn` to the first successful `eth_blockNumber`
 * (HTTP 200 with a result), polling the chosen port every 2 ms with a new connection each time.
 */
import type { Endpoint, TrackedChild } from './processes.ts'
import { postOnce, sleep } from './processes.ts'

const BLOCK_NUMBER = '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}'

export interface ColdStartSample {
  ms: number
  answer: string
}

export async function coldStart(start: () => TrackedChild, endpoint: Endpoint, timeoutMs = 60_000): Promise<ColdStartSample> {
  const t0 = performance.now()
  const child = start()
  try {
    for (;;) {
      if (!child.alive) throw new Error(`${child.label} exited before answering:\n${child.output().slice(-2000)}`)
      if (performance.now() - t0 > timeoutMs) throw new Error(`${child.label}: no answer within ${timeoutMs} ms`)
      try {
        const answer = await postOnce(endpoint, BLOCK_NUMBER, 5_000)
        if (answer.status === 200 && answer.body.includes('"result"')) return { ms: performance.now() - t0, answer: answer.body }
        if (answer.status !== 200 || answer.body.includes('"error"')) {
          throw new Error(`${child.label}: answered HTTP ${answer.status}: ${answer.body.slice(0, 300)}`)
        }
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code
        if (code !== 'ECONNREFUSED' && code !== 'ECONNRESET') throw err
      }
      await sleep(2)
    }
  } finally {
    await child.stop()
  }
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}
