/**
 * HTTP bodies in flight bounded in bytes across a server (src/http/bodyBudget.ts): the budget
 * alone, then through a real server whose requests a scripted latency holds: past 128 MiB of
 * bodies held, the next requests' bodies wait unread until answers give room back, and every
 * request is answered. Unbounded before: each held request kept its 5 MiB.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BodyBudget, MAX_BODIES_IN_FLIGHT_BYTES } from '../../src/http/bodyBudget.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { until } from '../support/socket.ts'
import { postRpc } from '../support/wire.ts'

describe('BodyBudget', () => {
  it('grants while under its bound, then first come first served as bytes are given back', async () => {
    const budget = new BodyBudget(100)
    expect(budget.take(60)).toBeUndefined()
    expect(budget.take(60)).toBeUndefined() // under the bound when asked: passed by one body at most
    const granted: string[] = []
    void budget.take(10)!.then(() => granted.push('a'))
    void budget.take(50)!.then(() => granted.push('b'))
    expect(budget.take(0)).toBeUndefined() // no body: never waits
    expect([budget.used, budget.waiting]).toEqual([120, 2])
    budget.give(60)
    await Promise.resolve()
    // 60 + 10 = 70 < 100: b is granted too (70 + 50 = 120).
    expect(granted).toEqual(['a', 'b'])
    expect([budget.used, budget.waiting]).toEqual([120, 0])
    budget.give(60)
    budget.give(10)
    budget.give(50)
    expect(budget.used).toBe(0)
  })
})

describe('bodies in flight through a real server', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server?.close())

  it('past 128 MiB of held bodies, the next wait unread; all are answered', async () => {
    const size = 5_000_000
    const body = (id: number) => {
      const head = `{"jsonrpc":"2.0","id":${id},"method":"eth_chainId","params":["`
      const tail = '"]}'
      return head + 'x'.repeat(size - head.length - tail.length) + tail
    }
    server.control.addFault({ kind: 'latency', ms: 6000, method: 'eth_chainId' })
    const fired = () => server.control.faults()[0]!.fired
    const answers = Array.from({ length: 30 }, (_, i) => postRpc(server.origin, server.devKey!, body(i)))
    // Granted while under the bound: 27 bodies of 5,000,000 bytes (the 27th passes 128 MiB).
    const granted = Math.ceil(MAX_BODIES_IN_FLIGHT_BYTES / size)
    await until(() => fired() >= granted, 30_000)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(fired()).toBe(granted)
    const done = await Promise.all(answers)
    expect(done.map((a) => JSON.parse(a.text).id).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i))
    expect(fired()).toBe(30)
    server.control.clearFaults()
  }, 60_000)
})
