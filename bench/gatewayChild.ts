/**
 * The gateway-double server the bench measures, as a child process: `root`'s
 * bench/gatewayServer.ts run as ./serverScript.ts says (over the build when there is one), asked
 * over IPC for its port when ready and for a key's credit balance.
 */
import type { FromServer, ToServer } from './gatewayServer.ts'
import type { TrackedChild } from './processes.ts'
import { spawnTracked } from './processes.ts'
import { ROOT } from './fixture.ts'
import { serverArgs } from './serverScript.ts'

/** The gateway-double child: started, asked for balances over IPC. */
export class GatewayChild {
  private constructor(
    readonly process: TrackedChild,
    readonly port: number,
    readonly loadMs: number,
  ) {}

  /** Starts `root`'s bench/gatewayServer.ts (this project's, or the `--before` checkout's). */
  static async start(configPath: string, options: object = {}, root = ROOT, timeoutMs = 180_000): Promise<GatewayChild> {
    const child = spawnTracked(process.execPath, [...(await serverArgs(root)), configPath, JSON.stringify(options)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    })
    const ready = await new Promise<FromServer>((resolveReady, reject) => {
      const timer = setTimeout(() => reject(new Error(`gateway-double: not ready within ${timeoutMs} ms`)), timeoutMs)
      child.child.once('message', (m: FromServer) => {
        clearTimeout(timer)
        resolveReady(m)
      })
      void child.exited.then(({ code, signal }) => {
        clearTimeout(timer)
        reject(new Error(`gateway-double exited (${code ?? signal}) before it was ready:\n${child.output().slice(-3000)}`))
      })
    })
    if (ready.type !== 'ready') throw new Error(`gateway-double failed to start: ${ready.type === 'failed' ? ready.message : JSON.stringify(ready)}`)
    return new GatewayChild(child, ready.port, ready.loadMs)
  }

  /** Starts V8's CPU profiler in the server (./profile.ts). */
  async profileStart(): Promise<void> {
    await this.ask({ type: 'profileStart' }, 'profiling')
  }

  /** Stops the profiler; the server writes the profile (DevTools' .cpuprofile JSON) to `file`. */
  async profileStop(file: string): Promise<void> {
    await this.ask({ type: 'profileStop', file }, 'profiled')
  }

  /** Sends `message` and waits for the answer of type `answer` (or the server's profileFailed). */
  private ask(message: ToServer, answer: FromServer['type'], timeoutMs = 60_000): Promise<FromServer> {
    return new Promise((resolveAnswer, reject) => {
      const timer = setTimeout(() => reject(new Error(`gateway-double: no ${answer} answer over IPC`)), timeoutMs)
      const onMessage = (m: FromServer) => {
        if (m.type !== answer && m.type !== 'profileFailed') return
        clearTimeout(timer)
        this.process.child.off('message', onMessage)
        if (m.type === 'profileFailed') reject(new Error(`gateway-double's profiler: ${m.message}`))
        else resolveAnswer(m)
      }
      this.process.child.on('message', onMessage)
      this.process.child.send(message)
    })
  }

  balance(key: string, timeoutMs = 10_000): Promise<{ balance: number | undefined; utcDay: number }> {
    return new Promise((resolveBalance, reject) => {
      const timer = setTimeout(() => reject(new Error('gateway-double: no balance answer over IPC')), timeoutMs)
      const onMessage = (m: FromServer) => {
        if (m.type !== 'balance' || m.key !== key) return
        clearTimeout(timer)
        this.process.child.off('message', onMessage)
        resolveBalance({ balance: m.balance, utcDay: m.utcDay })
      }
      this.process.child.on('message', onMessage)
      this.process.child.send({ type: 'balance', key } satisfies ToServer)
    })
  }
}

