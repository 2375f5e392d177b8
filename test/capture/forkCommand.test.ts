/**
 * `gateway-double fork freeze`: a fork's cache folder (found by --from, or by --url and --block
 * under the cache) to a fixture folder; usage errors exit 2, a folder that is no fork's cache 1,
 * and the upstream's key is never printed.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { forkCommand } from '../../src/capture/forkCommand.ts'

const dir = mkdtempSync(join(tmpdir(), 'gd-fork-cmd-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function run(args: string[]) {
  let stdout = ''
  let stderr = ''
  return forkCommand(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) }).then((code) => ({ code, stdout, stderr }))
}

describe('gateway-double fork freeze', () => {
  it('says what is wrong with its arguments', async () => {
    expect(await run(['freeze', '--from', dir])).toMatchObject({ code: 2, stderr: expect.stringContaining('--out <dir> is required') })
    expect(await run(['thaw', '--from', dir, '--out', dir])).toMatchObject({ code: 2, stderr: expect.stringContaining('expected the subcommand freeze') })
    expect(await run(['freeze', '--from', dir, '--out', join(dir, 'out')])).toMatchObject({ code: 1, stderr: expect.stringContaining("is not a fork's cache") })
    const missing = await run(['freeze', '--url', 'https://node.example/v3/0123456789abcdef0123', '--cache', dir, '--out', join(dir, 'out')])
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringContaining('no fork of https://node.example/v3/*** cached') })
    expect(missing.stderr).not.toContain('0123456789abcdef')
  })

  it('freezes the cache the URL and block name into a fixture folder', async () => {
    const cache = join(dir, 'cache', 'forks', '1-5-0xab')
    mkdirSync(cache, { recursive: true })
    const manifest = { format: 1, upstream: 'https://node.example/v3/***', chainId: '0x1', block: '0x5', hash: '0xab', header: { stateRoot: `0x${'11'.repeat(32)}` }, hardfork: 'prague' }
    writeFileSync(join(cache, 'fork.json'), JSON.stringify(manifest))
    writeFileSync(join(cache, 'reads.jsonl'), `${JSON.stringify(['eth_getBlockByNumber', ['0x1', false], null])}\n`)
    const out = join(dir, 'frozen')
    const result = await run(['freeze', '--url', 'https://node.example/v3/0123456789abcdef0123', '--block', '5', '--cache', join(dir, 'cache'), '--out', out])
    expect(result).toMatchObject({ code: 0, stdout: expect.stringContaining('froze 1 reads (0 proofs checked') })
    expect(JSON.parse(readFileSync(join(out, 'fork.json'), 'utf8'))).toEqual(manifest)
  })
})
