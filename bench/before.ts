/**
 * `npm run bench -- --before <git ref>`: the ref checked out in a temporary git worktree, its
 * dependencies (node_modules linked when its package-lock.json is this one's, `npm ci` otherwise)
 * and its build, so that the bench can start its server beside this code's and alternate the two
 * under the same load (a guard against the next regression, issue 19 item 7).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './fixture.ts'

export interface BeforeCheckout {
  ref: string
  commit: string
  dir: string
  /** How its node_modules came: linked (same lock) or installed. */
  dependencies: 'linked' | 'npm ci'
  remove(): void
}

const git = (args: string[], cwd = ROOT) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()

/** Checks `ref` out in `dir` (which must not exist), installs and builds it. Throws with git's or npm's message. */
export function checkoutBefore(ref: string, dir: string, log: (line: string) => void): BeforeCheckout {
  let commit: string
  try {
    commit = git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])
  } catch {
    throw new Error(`--before: ${JSON.stringify(ref)} names no commit of this repository`)
  }
  log(`--before ${ref}: checking out ${commit.slice(0, 12)} in ${dir}...`)
  git(['worktree', 'add', '--detach', dir, commit])
  const remove = () => {
    try {
      git(['worktree', 'remove', '--force', dir])
    } catch {
      // Already gone.
    }
  }
  try {
    let theirLock: string | undefined
    try {
      theirLock = git(['show', `${commit}:package-lock.json`])
    } catch {
      theirLock = undefined
    }
    const sameLock = theirLock !== undefined && theirLock === readFileSync(join(ROOT, 'package-lock.json'), 'utf8').trim()
    if (sameLock) symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
    else {
      log('  its package-lock.json differs from this one: npm ci (this takes a while)...')
      execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
    }
    if (!existsSync(join(dir, 'bench/gatewayServer.ts'))) throw new Error(`--before: ${ref} has no bench/gatewayServer.ts to start its server with (it predates the bench)`)
    log('  building it...')
    const build = existsSync(join(dir, 'scripts/build.mjs')) ? [process.execPath, ['scripts/build.mjs']] as const : ['npm', ['run', 'build']] as const
    execFileSync(build[0], build[1], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
    return { ref, commit, dir, dependencies: sameLock ? 'linked' : 'npm ci', remove }
  } catch (err) {
    remove()
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().slice(-2000)
    throw new Error(`--before ${ref}: ${(err as Error).message}${stderr ? `\n${stderr}` : ''}`)
  }
}
