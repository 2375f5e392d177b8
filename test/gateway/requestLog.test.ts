/**
 * The request log's bounds: what it keeps of oversized input (a method or key cut, with a marker
 * and its length, in a string that does not keep the original alive), and its byte budget (the
 * oldest entries go first), with the estimate checked against what entries really weigh in V8's heap.
 */
import { describe, expect, it } from 'vitest'
import { LOGGED_TEXT_MAX, RequestLog, entryBytes, loggedText } from '../../src/gateway/requestLog.ts'
import type { LogDraft, RequestLogDraft } from '../../src/gateway/requestLog.ts'
import { heapAfterGc } from '../support/heap.ts'

function draft(methods: string[], key: string | null = 'deadbeefdeadbeefdeadbeefdeadbeef'): RequestLogDraft {
  return {
    time: '2030-01-01T00:00:00.000Z',
    key,
    network: 'ethereum',
    batch: methods.length > 1,
    calls: methods.map((method) => ({ method: loggedText(method), credits: 80, outcome: 'ok' as const })),
    credits: 80 * methods.length,
    fault: null,
    status: 200,
    transport: 'http',
    socket: null,
  }
}

describe('loggedText', () => {
  it('keeps short text as it is and cuts long text with a marker and its length', () => {
    expect(loggedText('eth_blockNumber')).toBe('eth_blockNumber')
    const name = 'x'.repeat(LOGGED_TEXT_MAX)
    expect(loggedText(name)).toBe(name)
    const long = `eth_${'a'.repeat(5 * 1024 * 1024)}`
    expect(loggedText(long)).toBe(`eth_${'a'.repeat(LOGGED_TEXT_MAX - 4)}…(${long.length} characters)`)
    expect(loggedText('é'.repeat(200))).toBe(`${'é'.repeat(LOGGED_TEXT_MAX)}…(200 characters)`)
  })

  it('does not keep the original string alive', () => {
    const before = heapAfterGc()
    const kept: string[] = []
    for (let i = 0; i < 40; i++) kept.push(loggedText(`${i}${'m'.repeat(1024 * 1024)}`))
    const grown = heapAfterGc() - before
    expect(kept).toHaveLength(40)
    // 40 MiB of originals; what stays is 40 short strings.
    expect(grown).toBeLessThan(4 * 1024 * 1024)
  })
})

describe('the byte budget', () => {
  it('drops the oldest entries while the kept ones weigh more than the budget', () => {
    const one = entryBytes(draft(['eth_call']))
    const log = new RequestLog(10_000, 10 * one)
    for (let i = 0; i < 25; i++) log.record(draft(['eth_call']))
    expect(log.entries()).toHaveLength(10)
    expect(log.entries()[0]!.seq).toBe(16)
    expect(log.bytes).toBe(10 * one)
    // A batch of 1,000 long methods weighs more than the budget alone: it is kept, alone.
    log.record(draft(Array.from({ length: 1000 }, (_, i) => `${i}${'m'.repeat(1000)}`)))
    expect(log.entries().map((e) => e.seq)).toEqual([26])
    log.truncate(20)
    expect(log.entries()).toEqual([])
    expect(log.bytes).toBe(0)
    expect(log.record(draft(['eth_call'])).seq).toBe(21)
  })

  it('keeps the last entries in order across the ring wrapping and growing; truncate and clear', () => {
    const log = new RequestLog(40, Number.MAX_SAFE_INTEGER)
    const one = entryBytes(draft(['eth_call']))
    for (let i = 0; i < 100; i++) log.record(draft(['eth_call']))
    expect(log.entries().map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => 61 + i))
    expect(log.bytes).toBe(40 * one)
    log.truncate(90)
    expect(log.entries().map((e) => e.seq)).toEqual(Array.from({ length: 30 }, (_, i) => 61 + i))
    expect(log.entries(85).map((e) => e.seq)).toEqual([86, 87, 88, 89, 90])
    for (let i = 0; i < 15; i++) log.record(draft(['eth_call']))
    expect(log.entries().map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => 66 + i))
    expect(log.bytes).toBe(40 * one)
    log.clear()
    expect(log.entries()).toEqual([])
    expect(log.bytes).toBe(0)
    expect(log.record(draft(['eth_call'])).seq).toBe(106)
  })

  it('keeps a draft made for the log as the entry, its seq first', () => {
    const log = new RequestLog()
    const made = { seq: 0, ...draft(['eth_call']) }
    const entry = log.record(made)
    expect(entry).toBe(made)
    expect(Object.keys(entry)[0]).toBe('seq')
    expect(entry.seq).toBe(1)
    // Recorded again (or a draft without seq): a copy, seq still first.
    expect(log.record(made)).not.toBe(made)
    expect(Object.keys(log.record(draft(['eth_call'])))[0]).toBe('seq')
    expect(log.entries().map((e) => e.seq)).toEqual([1, 2, 3])
  })

  it('gives back every entry as it was recorded, its fields in the same order, whatever its shape', () => {
    // Most entries are kept as columns of their fields (src/gateway/logRows.ts), the rest as objects.
    const made = (fields: Partial<LogDraft>): LogDraft => ({ seq: 0, ...draft(['eth_blockNumber']), ...fields }) as LogDraft
    const shapes: LogDraft[] = [
      made({}),
      made({ calls: [{ method: 'eth_foo', credits: 80, outcome: -32601 }], status: 400 }),
      made({ key: null, network: null, calls: [], credits: 0, status: 401 }),
      made({ key: 'another0another0another0another0', status: null, fault: 'drop' }),
      made({ fault: 'latency', credits: 0 }),
      made({ calls: [{ method: 'eth_call', credits: 80, outcome: 'ok', to: '0x00000000000000000000000000000000000000aa' }] }),
      made({ calls: [{ method: 'eth_call', credits: 80, outcome: 3, to: '0x00000000000000000000000000000000000000bb' }], status: 200 }),
      made({ calls: [{ method: 'eth_call', credits: 80, outcome: 'ok', to: '0x00000000000000000000000000000000000000bb' }] }),
      made({ calls: [{ method: 'eth_call', credits: 80, outcome: 3, console: ['hello'] }] }),
      made({ calls: [{ method: loggedText('m'.repeat(500)), credits: 80, outcome: -32601 }] }),
      { seq: 0, ...draft(['eth_chainId', 'eth_blockNumber']) } as LogDraft,
      made({ transport: 'ws', socket: { connection: 1, stage: 'message', subscription: null } }),
      made({ calls: [{ method: null, credits: 80, outcome: null }], status: 400 }),
    ]
    for (const limit of [3, 7, 100]) {
      const log = new RequestLog(limit, Number.MAX_SAFE_INTEGER)
      const recorded: string[] = []
      for (let round = 0; round < 3; round++) {
        for (const shape of shapes) recorded.push(JSON.stringify(log.record(structuredClone(shape))))
        expect(log.entries().map((e) => JSON.stringify(e)), `limit ${limit}`).toEqual(recorded.slice(-Math.min(limit, recorded.length)))
      }
      log.truncate(log.position - 2)
      expect(log.entries().map((e) => JSON.stringify(e))).toEqual(recorded.slice(-Math.min(limit, recorded.length)).slice(0, -2))
    }
  })

  it('counts the string a key was cut from', () => {
    const log = new RequestLog(10_000, 1_000_000)
    log.record(draft(['eth_call']), 16 * 1024)
    expect(log.bytes).toBe(entryBytes(draft(['eth_call'])) - 64 + 32 * 1024)
  })

  it('estimates at least what entries weigh in the heap', () => {
    const shapes: [string, () => RequestLogDraft][] = [
      ['one call', () => draft(['eth_blockNumber'])],
      ['a batch of 100 calls', () => draft(Array.from({ length: 100 }, (_, i) => `eth_method${i}`))],
      ['a batch of 20 cut methods', () => draft(Array.from({ length: 20 }, (_, i) => `${i}${'z'.repeat(10_000)}`))],
      ['a cut key', () => draft(['eth_call'], loggedText(`k${'k'.repeat(20_000)}`))],
    ]
    for (const [name, make] of shapes) {
      // Enough entries that what else the worker allocates meanwhile (tens of KiB) is noise per entry.
      const n = name === 'one call' ? 20_000 : name === 'a cut key' ? 5_000 : 500
      const log = new RequestLog(n, Number.MAX_SAFE_INTEGER)
      const before = heapAfterGc()
      for (let i = 0; i < n; i++) log.record(make())
      const perEntry = (heapAfterGc() - before) / n
      expect(log.entries()).toHaveLength(n)
      expect(perEntry, name).toBeLessThanOrEqual(log.bytes / n)
    }
  })

  it("keeps an eth_call's entry with its target as columns, its target shared with the entry before", () => {
    // As a client's eth_calls arrive: each entry its own objects and its own lowercased target string.
    const n = 20_000
    const log = new RequestLog(n, Number.MAX_SAFE_INTEGER)
    const before = heapAfterGc()
    for (let i = 0; i < n; i++) {
      const entry = draft(['eth_call'])
      ;(entry.calls[0] as { to?: string }).to = `0x${'A'.repeat(40)}`.toLowerCase()
      log.record(entry)
    }
    const perEntry = (heapAfterGc() - before) / n
    expect(log.entries().at(-1)!.calls).toEqual([{ method: 'eth_call', credits: 80, outcome: 'ok', to: `0x${'a'.repeat(40)}` }])
    // Kept as their objects, such entries weighed about 400 bytes each.
    expect(perEntry).toBeLessThan(150)
  })
})
