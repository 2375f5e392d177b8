/**
 * Test helper: Foundry's cast from the npm package `@foundry-rs/cast-linux-amd64` (a
 * devDependency, like Anvil's), run as a user runs it: its own process, its own name resolution,
 * no extra flags unless a test gives them.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

export function castBinary(): string | undefined {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined
  try {
    const bin = join(dirname(createRequire(import.meta.url).resolve('@foundry-rs/cast-linux-amd64/package.json')), 'bin', 'cast')
    return existsSync(bin) ? bin : undefined
  } catch {
    return undefined
  }
}

export interface CastResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `cast <args>`; resolves with its exit code and output (never rejects for a failed command). */
export function cast(args: readonly string[], timeout = 60_000): Promise<CastResult> {
  const bin = castBinary()
  if (bin === undefined) throw new Error('@foundry-rs/cast-linux-amd64 is not installed')
  return new Promise((resolve) => {
    // No color, no Foundry config from the user's home: what cast prints is what a test reads.
    const env = { ...process.env, NO_COLOR: '1', FOUNDRY_DISABLE_NIGHTLY_WARNING: '1' }
    execFile(bin, [...args], { timeout, env }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr })
    })
  })
}
