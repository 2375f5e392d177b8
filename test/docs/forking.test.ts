/**
 * docs/forking.md's examples as written: the config block validates as a fork network, the
 * command lines parse into the same forks (the key stays in the URL the fork uses, never in a
 * message), and the error a read the cache lacks gets is the page's, word for word, from an
 * offline fork source; the README's quick start shows the first command line. test/e2e/fork.test.ts runs forks against a real node.
 */
import { readFileSync } from 'node:fs'
import { createAddressFromString } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { ForkJournal } from '../../src/chain/loading/fork/forkCache.ts'
import { ForkSource } from '../../src/chain/loading/fork/forkSource.ts'
import { redactUrl } from '../../src/chain/loading/fork/upstream.ts'
import { parseCliArgs } from '../../src/cli.ts'
import { parseConfig, withForks } from '../../src/gateway/config.ts'
import { toErrorObject } from '../../src/rpc/dispatch.ts'

const PAGE = readFileSync(new URL('../../docs/forking.md', import.meta.url), 'utf8')
const blocks = (lang: string) => [...PAGE.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!)

describe('docs/forking.md', () => {
  it('its config file validates, a fork at block 19000000 with its headers', () => {
    const [json] = blocks('json')
    const config = parseConfig(JSON.parse(json!), '/')
    expect(config.networks.mainnet).toEqual({ fork: { url: 'https://mainnet.example/v3/<your-key>', block: 19000000n, headers: { 'x-team': 'ci' } } })
  })

  it('its command lines parse into the same fork, the second offline', () => {
    const lines = blocks('sh')[0]!.trim().split('\n')
    expect(lines).toHaveLength(2)
    const base = parseConfig({ networks: {}, keys: [{ key: 'deadbeefdeadbeefdeadbeefdeadbeef', networks: [] }] }, '/')
    const [online, offline] = lines.map((line) => {
      const opts = parseCliArgs(line.split(' ').slice(1))
      return withForks(base, opts.forks, opts.offline).networks.mainnet
    })
    expect(online).toEqual({ fork: { url: 'https://mainnet.example/v3/<your-key>', block: 19000000n } })
    expect(offline).toEqual({ fork: { url: 'https://mainnet.example/v3/<your-key>', block: 19000000n, offline: true } })
    // The README's quick start shows the first.
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
    expect(readme).toContain(`\`\`\`sh\nnpx ${lines[0]}\n\`\`\``)
  })

  it('a read the offline cache lacks answers the error the page shows', async () => {
    const source = new ForkSource({ client: undefined, journal: new ForkJournal(undefined), block: 19000000n, hash: '0x00', chainId: 1n, upstream: redactUrl('https://mainnet.example/v3/0123456789abcdef0123456789abcdef') })
    const err = await source.account(createAddressFromString('0x00000000000000000000000000000000deadbeef')).catch((e: unknown) => e)
    const [shown] = blocks('text')
    expect(toErrorObject(err)).toEqual(JSON.parse(shown!))
  })
})
