/**
 * A WebSocket session without sockets: a sink that records what the session does, a port that
 * answers as the test says. Backpressure on messages in flight, the send buffer's bound, the
 * idle timer (on fake timers), the daily limit's final frame, and the end of a connection.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { DEFAULT_SOCKET_LIMITS, parseSocketLimits } from '../../src/gateway/sockets/limits.ts'
import type { SocketLimits } from '../../src/gateway/sockets/limits.ts'
import { SocketSession } from '../../src/gateway/sockets/session.ts'
import type { FrameData } from '../../src/gateway/sockets/frames.ts'
import type { MessageOutcome, SessionPort, SocketSink } from '../../src/gateway/sockets/session.ts'
import type { RequestState } from '../../src/gateway/request.ts'

function fakeSink() {
  const events: string[] = []
  const sink: SocketSink & { events: string[]; buffered: number } = {
    events,
    buffered: 0,
    send: (data) => void events.push(`send ${String(data)}`),
    close: (code, reason) => void events.push(`close ${code} ${reason}`),
    terminate: () => void events.push('terminate'),
    get bufferedBytes() {
      return sink.buffered
    },
    pause: () => void events.push('pause'),
    resume: () => void events.push('resume'),
  }
  return sink
}

function fakePort(limits: Partial<SocketLimits> = {}) {
  const answers: ((outcome: MessageOutcome) => void)[] = []
  const gone: SocketSession[] = []
  const port: SessionPort & { answers: typeof answers; gone: SocketSession[] } = {
    limits: parseSocketLimits(limits),
    answers,
    gone,
    message: () => new Promise((resolve) => answers.push(resolve)),
    event: () => ({ kind: 'send' }),
    now: () => 0,
    ended: (session) => void gone.push(session),
    failed: () => {},
  }
  return port
}

const chain = { events: { listen: () => () => {} } }
const state = () => ({ request: { method: 'GET', host: 'h', path: '/ws/v3/k', headers: {}, body: '' }, secretVerified: false, network: { name: 'n', host: 'h', chain } }) as unknown as RequestState
const settle = () => new Promise((r) => setImmediate(r))

afterEach(() => {
  vi.useRealTimers()
})

describe('SocketSession', () => {
  it('stops reading at maxInFlight messages and reads again when answers go out', async () => {
    const sink = fakeSink()
    const port = fakePort({ maxInFlight: 2 })
    const session = new SocketSession(1, state(), sink, port)
    session.receive('a')
    expect(sink.events).toEqual([])
    session.receive('b')
    expect(sink.events).toEqual(['pause'])
    port.answers.shift()!({ kind: 'send', data: 'A' })
    await settle()
    expect(sink.events).toEqual(['pause', 'resume', 'send A'])
    port.answers.shift()!({ kind: 'send', data: undefined })
    await settle()
    expect(sink.events).toEqual(['pause', 'resume', 'send A'])
  })

  it('terminates a client that does not read instead of buffering past maxBufferedBytes', () => {
    const sink = fakeSink()
    const session = new SocketSession(1, state(), sink, fakePort({ maxBufferedBytes: 100 }))
    // One frame larger than the bound goes out when nothing waits (answers are bounded elsewhere).
    expect(session.send('x'.repeat(500))).toBe(true)
    sink.buffered = 60
    expect(session.send('y'.repeat(40))).toBe(true)
    sink.buffered = 100
    expect(session.send('z')).toBe(false)
    expect(sink.events.at(-1)).toBe('terminate')
    expect(session.send('after')).toBe(false)
  })

  it('closes 1000 idle timeout after idleMs with nothing either way; any frame starts the timer again', async () => {
    vi.useFakeTimers()
    const sink = fakeSink()
    const port = fakePort({ idleMs: 1000 })
    const session = new SocketSession(1, state(), sink, port)
    vi.advanceTimersByTime(900)
    session.receive('m')
    vi.advanceTimersByTime(900)
    session.send('out')
    vi.advanceTimersByTime(900)
    expect(sink.events).toEqual(['send out'])
    vi.advanceTimersByTime(100)
    expect(sink.events).toEqual(['send out', 'close 1000 idle timeout'])
    // An answer that comes once the connection is closing is not sent.
    port.answers.shift()!({ kind: 'send', data: 'late' })
    await vi.runAllTimersAsync()
    expect(sink.events).toEqual(['send out', 'close 1000 idle timeout'])
  })

  it('carries out a message\'s outcome: sever (final frame, close 1008), drop, close with a code', async () => {
    for (const [outcome, events] of [
      [{ kind: 'sever', data: '402' }, ['send 402', 'close 1008 daily credit limit reached']],
      [{ kind: 'drop' }, ['terminate']],
      [{ kind: 'close', code: 4000, reason: 'bye' }, ['close 4000 bye']],
      [{ kind: 'none' }, []],
    ] as [MessageOutcome, string[]][]) {
      const sink = fakeSink()
      const port = fakePort()
      const session = new SocketSession(1, state(), sink, port)
      session.receive('m')
      port.answers.shift()!(outcome)
      await settle()
      expect(sink.events).toEqual(events)
      session.ended()
      expect(port.gone).toEqual([session])
      expect(session.signal.aborted).toBe(true)
    }
  })

  it('validates its limits, naming the field', () => {
    expect(parseSocketLimits()).toEqual(DEFAULT_SOCKET_LIMITS)
    expect(() => parseSocketLimits({ idleMs: 0 })).toThrow('sockets.idleMs must be an integer from 1 to 2147483647, got 0')
    expect(() => parseSocketLimits({ maxBufferedBytes: 1.5 })).toThrow('sockets.maxBufferedBytes')
  })
})

describe('notifications', () => {
  const note = (n: number) => ({ subscription: { id: '0x1', type: 'newHeads' as const }, credits: 50, frames: [`h${n}`] })

  it('a stall holds them, in order, until ms pass; what it holds counts toward maxBufferedBytes', async () => {
    vi.useFakeTimers()
    const sink = fakeSink()
    const port = fakePort({ maxBufferedBytes: 10 })
    const outcomes: ('stall' | 'send')[] = ['stall']
    const delivered: [FrameData, boolean][] = []
    port.event = (_s, n, held) => {
      delivered.push([n.frames[0]!, held])
      const kind = outcomes.shift() ?? 'send'
      return kind === 'stall' ? { kind, ms: 100 } : { kind }
    }
    const session = new SocketSession(1, state(), sink, port)
    session.notify(note(1))
    session.notify(note(2))
    expect(sink.events).toEqual([])
    vi.advanceTimersByTime(100)
    expect(sink.events).toEqual(['send h1', 'send h2'])
    expect(delivered).toEqual([['h1', false], ['h1', true], ['h2', true]])
    // Held past the bound: terminated.
    outcomes.push('stall')
    for (let i = 3; i < 10; i++) session.notify(note(i))
    expect(sink.events.at(-1)).toBe('terminate')
  })
})
