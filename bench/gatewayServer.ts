/**
 * gateway-double as the bench runs it under load: a child process (`node --import tsx
 * bench/gatewayServer.ts <config.json> [<options.json>]`) that calls `startServer` exactly as the CLI does, and
 * answers the parent over IPC with its port and, on request, a key's credit balance (which the
 * gateway does not expose over HTTP) or its memory after a full GC (bench/memory.ts starts it with
 * --expose-gc). The parent measures this process's resident memory. `npm run bench` runs it compiled over the
 * build, without tsx (./serverScript.ts); the other bench scripts through tsx.
 */
import { capYoungGeneration } from '../bin/youngGeneration.js'
import { Session } from 'node:inspector/promises'
import { writeFileSync } from 'node:fs'
import type { startServer as StartServer } from '../src/http/server.ts'

export type ToServer =
  | { type: 'balance'; key: string }
  | { type: 'watchBlocks'; network: string }
  | { type: 'memory' }
  /** `npm run bench -- --profile` (./profile.ts): start V8's CPU profiler in this process... */
  | { type: 'profileStart' }
  /** ...and stop it, writing the profile (DevTools' .cpuprofile JSON) to `file`. */
  | { type: 'profileStop'; file: string }
export type FromServer =
  | { type: 'ready'; port: number; loadMs: number }
  | { type: 'balance'; key: string; balance: number | undefined; utcDay: number }
  | { type: 'watching' }
  /** After a full GC when the process runs with --expose-gc (`gc` says whether it did): bytes. */
  | { type: 'memory'; gc: boolean; rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number }
  /** A block joined the watched network's chain, at `at` (performance.timeOrigin + now()). */
  | { type: 'block'; number: number; at: number }
  | { type: 'failed'; message: string }
  /** The profiler runs (`profileStart`), or wrote its profile to `file` (`profileStop`), or could not (`message`). */
  | { type: 'profiling' }
  | { type: 'profiled'; file: string }
  | { type: 'profileFailed'; message: string }

const send = (message: FromServer) => process.send?.(message)

const configPath = process.argv[2]
/** Further `startServer` options as JSON (the robustness bench sets the execution limits; the main bench turns control on to mine). */
const extra = JSON.parse(process.argv[3] ?? '{}') as { evmTimeoutMs?: number; evmSliceMs?: number; control?: boolean }
if (configPath === undefined || process.send === undefined) {
  console.error('usage (from the bench, with an IPC channel): node --import tsx bench/gatewayServer.ts <config.json>')
  process.exit(2)
}

// As bin/gateway-double.js does for the command's process (../bin/youngGeneration.js: why), before
// the server's modules load: V8's young generation grows to a bound and no further.
capYoungGeneration()
const { startServer }: { startServer: typeof StartServer } = await import('../src/http/server.ts')

const started = performance.now()
try {
  const server = await startServer({ ...extra, config: configPath, port: 0, logger: { error: (m, e) => console.error(`gateway-double: ${m}:`, e) } })
  send({ type: 'ready', port: server.port, loadMs: performance.now() - started })
  process.on('message', (message: ToServer) => {
    if (message.type === 'balance') {
      send({ type: 'balance', key: message.key, balance: server.gateway.balance(message.key), utcDay: Math.floor(Date.now() / 86_400_000) })
    }
    if (message.type === 'memory') {
      const gc = (globalThis as { gc?: () => void }).gc
      gc?.()
      const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage()
      send({ type: 'memory', gc: gc !== undefined, rss, heapUsed, heapTotal, external, arrayBuffers })
    }
    if (message.type === 'profileStart' || message.type === 'profileStop') {
      profile(message).then(send, (err: unknown) => send({ type: 'profileFailed', message: err instanceof Error ? err.message : String(err) }))
    }
    if (message.type === 'watchBlocks') {
      // The time is read before the subscribers hear of the block (the first listener, added before
      // any socket's), but told after them: an IPC message sent from the listener was written, and
      // woke the bench's process (the subscribers' too), before the notification's frame, on the
      // path the row measures (the server's event-to-frame time, median: 0.8-6.6 ms sent at once,
      // 0.2-0.4 ms told after, on a loaded machine). Anvil's side has no such message.
      server.gateway.networks.get(message.network)?.chain.events.listen((event) => {
        const at = performance.timeOrigin + performance.now()
        if (event.type === 'blockAdded') {
          const number = Number(event.record.number)
          setImmediate(() => send({ type: 'block', number, at }))
        }
      })
      send({ type: 'watching' })
    }
  })
  // The profiler is V8's, reached through node:inspector in this process: no debugging port is
  // opened, and nothing of it runs until the bench asks (the measured lane is unchanged otherwise).
  let session: Session | undefined
  const profile = async (message: { type: 'profileStart' } | { type: 'profileStop'; file: string }): Promise<FromServer> => {
    if (message.type === 'profileStart') {
      if (session === undefined) {
        session = new Session()
        session.connect()
        await session.post('Profiler.enable')
      }
      await session.post('Profiler.start')
      return { type: 'profiling' }
    }
    if (session === undefined) throw new Error('profileStop without profileStart')
    const { profile: taken } = await session.post('Profiler.stop')
    writeFileSync(message.file, JSON.stringify(taken))
    return { type: 'profiled', file: message.file }
  }
  const stop = () => void server.close().finally(() => process.exit(0))
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  // The bench died without stopping us: go too.
  process.once('disconnect', stop)
} catch (err) {
  send({ type: 'failed', message: err instanceof Error ? err.message : String(err) })
  process.exitCode = 1
  process.disconnect()
}
