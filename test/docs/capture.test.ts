/**
 * docs/fixtures-and-scenarios.md's synopsis of `gateway-double capture` against what the command
 * itself prints for `--help` (the bin, as a user runs it): the same usage line, the same options,
 * the same `--prestate` choices.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { CAPTURE_USAGE } from '../../src/capture/captureCommand.ts'

const BIN = fileURLToPath(new URL('../../bin/gateway-double.js', import.meta.url))
const PAGE = readFileSync(new URL('../../docs/fixtures-and-scenarios.md', import.meta.url), 'utf8')

describe('docs/fixtures-and-scenarios.md, capture', () => {
  const synopsis = /\n\*\*Capture\.\*\*\n\n```\n([\s\S]*?)```/.exec(PAGE)?.[1]?.trimEnd().split('\n') ?? []

  it('gateway-double capture --help prints its usage, exit 0', async () => {
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [BIN, 'capture', '--help'], (err, out, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(out))),
    )
    expect(stdout).toBe(CAPTURE_USAGE)
  })

  it('the page’s synopsis is --help’s usage line, then exactly the other options --help describes', () => {
    expect(synopsis).toHaveLength(2)
    const [first, second] = synopsis as [string, string]
    expect(`Usage: ${first}\n`).toBe(CAPTURE_USAGE.slice(0, CAPTURE_USAGE.indexOf('\n') + 1))
    // The continuation line lines up under the command's first option.
    expect(second.indexOf('[')).toBe(first.indexOf('--rpc'))
    const documented = [...synopsis.join(' ').matchAll(/(--[a-z-]+)/g)].map((m) => m[1]).sort()
    const described = [...CAPTURE_USAGE.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]).sort()
    expect(documented).toEqual(described)
    const prestate = /\[--prestate ([a-z|]+)\]/.exec(second)?.[1]?.split('|')
    expect(prestate).toEqual(['auto', 'trace', 'proofs'])
    const help = /^ {2}--prestate <how> +([\s\S]*?)\n {2}--/m.exec(CAPTURE_USAGE)?.[1]
    for (const choice of prestate!) expect(help, choice).toContain(choice)
  })
})
