/**
 * `gateway-double build` and serving a source directly: the command writes the same bytes on
 * every run, a source with a mistake is refused with the file, the entry and the reason (exit 1),
 * and `--fixture name=<source.json>` builds the source at start.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadFixtureOrSource } from '../../src/builder/serveSource.ts'
import { main } from '../../src/cli.ts'
import { clientFor } from '../support/rpcClient.ts'

const SOURCE = 'fixtures/sources/examples/vault.scenario.json'

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) })
  return { code, stdout, stderr }
}

describe('gateway-double build', () => {
  let work: string
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'gd-build-'))
  })
  afterAll(() => rmSync(work, { recursive: true, force: true }))

  it('builds a source into a fixture folder, the same bytes on every run', async () => {
    const a = await run(['build', SOURCE, join(work, 'a')])
    const b = await run(['build', SOURCE, join(work, 'b')])
    expect(a.code).toBe(0)
    expect(a.stdout).toMatch(/^built vault \(chain id 1\): blocks 21000000\.\.21000002, 3 transactions -> /)
    expect(readdirSync(join(work, 'a')).sort()).toEqual(['accounts.json', 'chain.rlp', 'forkchoice.json', 'genesis.json'])
    expect(b.code).toBe(0)
    for (const file of readdirSync(join(work, 'a'))) expect(readFileSync(join(work, 'b', file)).equals(readFileSync(join(work, 'a', file))), file).toBe(true)
  })

  it('refuses a source with a mistake, naming the file, the entry and the reason', async () => {
    const source = JSON.parse(readFileSync(SOURCE, 'utf8')) as { blocks: { transactions: Record<string, unknown>[] }[] }
    source.blocks[1]!.transactions[0]!.call = 'deposit(uint257)'
    const file = join('fixtures/sources/examples', `broken-${process.pid}.scenario.json`)
    writeFileSync(file, JSON.stringify(source))
    try {
      const { code, stderr } = await run(['build', file, join(work, 'broken')])
      expect(code).toBe(1)
      expect(stderr).toMatch(new RegExp(`^gateway-double build: ${file.replace(/[.]/g, '\\.')}: blocks\\[1\\] \\(block 21000002\\)\\.transactions\\[0\\]\\.call: `))
      expect(stderr).toContain('uint257')
    } finally {
      rmSync(file, { force: true })
    }
  })

  it('refuses a transaction that cannot be included, with the reason', async () => {
    const source = JSON.parse(readFileSync(SOURCE, 'utf8')) as { blocks: { transactions: Record<string, unknown>[] }[] }
    source.blocks[0]!.transactions[1]!.value = '20 ether'
    const file = join('fixtures/sources/examples', `poor-${process.pid}.scenario.json`)
    writeFileSync(file, JSON.stringify(source))
    try {
      const { code, stderr } = await run(['build', file, join(work, 'poor')])
      expect(code).toBe(1)
      expect(stderr).toMatch(/blocks\[0\] \(block 21000001\)\.transactions\[1\]: cannot be included \(bob → vault\.deposit\(\) sending 20 ether\): bob has 10 ether, less than the 20 ether it sends/)
    } finally {
      rmSync(file, { force: true })
    }
  })

  it('says how to call it when the arguments are wrong (exit 2)', async () => {
    const { code, stderr } = await run(['build', SOURCE])
    expect(code).toBe(2)
    expect(stderr).toContain('expected <source.json> <outDir>')
  })

  it('serves a source file as a network: built at start', async () => {
    const chain = await loadFixtureOrSource(SOURCE, 'vault')
    const client = clientFor(chain)
    expect((await client.call('eth_blockNumber')).result).toBe('0x1406f42')
  })
})

describe('gateway-double capture', () => {
  it('reports an endpoint it cannot reach with what it was fetching (exit 1)', async () => {
    const { code, stderr } = await run(['capture', '--rpc', 'http://127.0.0.1:9', '--call', '{"from":"0x0000000000000000000000000000000000000001"}', '--out', join(tmpdir(), 'gd-never')])
    expect(code).toBe(1)
    expect(stderr).toMatch(/^gateway-double capture: while fetching the chain id \(eth_chainId\): cannot reach http:\/\/127\.0\.0\.1:9: /)
  })

  it('refuses --tx with --call, and a call without from (exit 2)', async () => {
    expect((await run(['capture', '--rpc', 'http://127.0.0.1:9', '--tx', `0x${'11'.repeat(32)}`, '--call', '{}', '--out', 'x'])).code).toBe(2)
    const noFrom = await run(['capture', '--rpc', 'http://127.0.0.1:9', '--call', '{"to":"0x0000000000000000000000000000000000000001"}', '--out', 'x'])
    expect(noFrom.stderr).toContain('"from" is required')
  })
})
