/**
 * A command line run as a user runs it from their shell: `bash -c`, none of this test run's npm
 * script or vitest variables, in a process group of its own, so that whatever it starts (servers,
 * Anvil) can be found and stopped when it is done, and a command that leaves a process behind is
 * told apart from one that does not.
 */
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

/**
 * The environment of a user's shell: none of this run's npm script or vitest variables (a nested
 * vitest would take VITEST_POOL_ID for its own, npm the outer script's package settings).
 */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(VITEST|npm_package_|npm_lifecycle_|npm_command$|npm_config_local_prefix$|INIT_CWD$|NODE_ENV$|TEST$)/.test(name)) continue
    env[name] = value
  }
  return { ...env, NO_COLOR: '1', ...extra }
}

export interface ShellRun {
  line: string
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  ms: number
  /** Processes of the command's group still running once it exited (stopped by now), as `pid command`. */
  leftBehind: string[]
}

/** The processes whose process group is `pgid`, as `pid command line`. */
function processGroup(pgid: number): string[] {
  const found: string[] = []
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[2]) !== pgid || fields[0] === 'Z') continue
      found.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()}`)
    } catch {
      // Gone meanwhile.
    }
  }
  return found
}

const show = (r: ShellRun) => `$ ${r.line}\nexit ${r.code ?? r.signal} after ${Math.round(r.ms)} ms\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr.slice(-6000)}`

/** What a failed expectation about a run prints: the command, its exit and its output. */
export const describeRun = show

/**
 * Runs `line` through bash in `cwd`. Resolves (never rejects) once bash has exited: with what is
 * left of its process group, which is then stopped (SIGTERM, SIGKILL a second later). After
 * `timeoutMs` the whole group is stopped.
 */
export function runShell(line: string, cwd: string, { timeoutMs = 240_000, env = userEnv() }: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<ShellRun> {
  const started = performance.now()
  const child = spawn('bash', ['-c', line], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  const pgid = child.pid!
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const kill = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pgid, signal)
    } catch {
      // The group is empty.
    }
  }
  const timer = setTimeout(() => {
    stderr += `\n(runShell: no exit within ${timeoutMs} ms: stopped)`
    kill('SIGTERM')
    setTimeout(() => kill('SIGKILL'), 2000).unref()
  }, timeoutMs)
  // 'exit', not 'close': a process left behind may hold bash's stdout open, and 'close' waits for it.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  return exited.then(async ({ code, signal }) => {
    clearTimeout(timer)
    const leftBehind = processGroup(pgid)
    if (leftBehind.length > 0) {
      kill('SIGTERM')
      await Promise.race([closed, new Promise((r) => setTimeout(r, 2000))])
      kill('SIGKILL')
    }
    await closed
    return { line, code, signal, stdout, stderr, ms: performance.now() - started, leftBehind }
  })
}
