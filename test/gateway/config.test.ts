/** Config validation: clear errors naming the field; relative folders; the default config. */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, DEFAULT_CONFIG_PATH, loadConfigFile, parseConfig, withFixtures } from '../../src/gateway/config.ts'

const base = { networks: { ethereum: { fixture: 'eth' } }, keys: [{ key: 'k', networks: ['ethereum'] }] }

function errorOf(input: unknown): string {
  try {
    parseConfig(input, '/cfg')
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return (err as Error).message
  }
  throw new Error('expected a ConfigError')
}

describe('parseConfig', () => {
  it('resolves fixture folders from the config folder and defaults the rest', () => {
    const config = parseConfig(base, '/cfg')
    expect(config.serviceHost).toBe('localhost')
    expect(config.networks.ethereum!.fixture).toBe('/cfg/eth')
    expect(config.keys).toEqual(base.keys)
  })

  it('names the field in its errors', () => {
    expect(errorOf({ ...base, keys: [{ key: 'k', networks: ['polygon'] }] })).toBe(
      'keys[0].networks[0]: unknown network "polygon" (configured: ethereum)',
    )
    expect(errorOf({ ...base, keys: [{ key: 'k', networks: [], dailyCredits: -1 }] })).toBe(
      'keys[0].dailyCredits: must be a positive integer, got -1',
    )
    expect(errorOf({ ...base, keys: [{ key: 'k', networks: [], dailyCredit: 5 }] })).toMatch(/^keys\[0\]\.dailyCredit: unknown field/)
    expect(errorOf({ ...base, keys: [{ key: 'a/b', networks: [] }] })).toMatch(/^keys\[0\]\.key: must be URL-safe/)
    expect(errorOf({ ...base, keys: [base.keys[0], base.keys[0]] })).toBe('keys[1].key: duplicate key "k"')
    expect(errorOf({ ...base, networks: { Eth: { fixture: 'x' } } })).toMatch(/^networks\.Eth: network names are lowercase/)
    expect(errorOf({ ...base, networks: { eth: {} } })).toBe('networks.eth.fixture: must be a non-empty string, got undefined')
    expect(errorOf({ ...base, serviceHost: 'localhost:80' })).toMatch(/^serviceHost: must be a host name/)
    expect(errorOf({ ...base, keys: [{ key: 'k', networks: [], allowlists: { origins: ['https://a b'] } }] })).toMatch(
      /^keys\[0\]\.allowlists\.origins\[0\]: not an origin pattern/,
    )
    expect(
      errorOf({ ...base, keys: [{ key: 'k', networks: [], allowlists: { methods: Array.from({ length: 31 }, (_, i) => `m${i}`) } }] }),
    ).toBe('keys[0].allowlists.methods: at most 30 entries, got 31')
    expect(errorOf({ ...base, keys: [{ key: 'k', networks: [], allowlists: { contractAddresses: ['0x12'] } }] })).toBe(
      'keys[0].allowlists.contractAddresses[0]: not a 20-byte hex address: "0x12"',
    )
  })

  it("a network's own port: a port number, 0 for a free one, one network per port", () => {
    const two = { networks: { ethereum: { fixture: 'eth', port: 9545 }, polygon: { fixture: 'pol', port: 0 } }, keys: base.keys }
    expect(parseConfig(two, '/cfg').networks).toEqual({ ethereum: { fixture: '/cfg/eth', port: 9545 }, polygon: { fixture: '/cfg/pol', port: 0 } })
    expect(errorOf({ ...base, networks: { ethereum: { fixture: 'eth', port: 70000 } } })).toBe('networks.ethereum.port: must be a port number 0-65535, got 70000')
    expect(errorOf({ ...base, networks: { ethereum: { fixture: 'eth', port: '9545' } } })).toBe('networks.ethereum.port: must be a port number 0-65535, got "9545"')
    expect(errorOf({ ...two, networks: { ...two.networks, polygon: { fixture: 'pol', port: 9545 } } })).toBe(
      'networks.polygon.port: port 9545 is already network "ethereum"\'s',
    )
    // --fixture replacing a network keeps its port.
    expect(withFixtures(parseConfig(two, '/cfg'), { ethereum: 'other' }, '/work').networks.ethereum).toEqual({ fixture: '/work/other', port: 9545 })
  })

  it('loadConfigFile names the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gwcfg-'))
    const file = join(dir, 'c.json')
    writeFileSync(file, JSON.stringify({ ...base, keys: [{ networks: [] }] }))
    expect(() => loadConfigFile(file)).toThrow(`${file}: keys[0].key: must be a non-empty string, got undefined`)
    writeFileSync(file, '{')
    expect(() => loadConfigFile(file)).toThrow(new RegExp(`^${file}: not valid JSON`))
    expect(loadConfigFile.bind(null, join(dir, 'missing.json'))).toThrow(/cannot read config file \(ENOENT\)/)
  })

  it('the default config serves ethereum, polygon and base to one dev key', () => {
    const config = loadConfigFile(DEFAULT_CONFIG_PATH)
    expect(Object.keys(config.networks)).toEqual(['ethereum', 'polygon', 'base'])
    expect(config.keys).toHaveLength(1)
    expect(config.keys[0]!.networks).toEqual(['ethereum', 'polygon', 'base'])
    expect(config.networks.base!.fixture).toMatch(/\/fixtures\/base$/)
  })

  it('withFixtures adds networks and enables them for the first key', () => {
    const config = withFixtures(parseConfig(base, '/cfg'), { hoodi: 'chains/hoodi' }, '/work')
    expect(config.networks.hoodi!.fixture).toBe('/work/chains/hoodi')
    expect(config.keys[0]!.networks).toEqual(['ethereum', 'hoodi'])
    expect(() => withFixtures(config, { 'Bad Name': 'x' })).toThrow(ConfigError)
  })
})

describe('docs/configuration.md', () => {
  it('its configuration example is a valid config', async () => {
    const { readFileSync } = await import('node:fs')
    const readme = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8')
    const section = readme.slice(readme.indexOf('## Configuration'))
    const json = /```json\n([\s\S]*?)```/.exec(section)?.[1]
    expect(json).toBeDefined()
    const config = parseConfig(JSON.parse(json!), '/cfg')
    expect(Object.keys(config.networks)).toEqual(['ethereum', 'hoodi'])
    expect(config.networks.hoodi!.excludeMethods).toEqual(['debug_*', 'txpool_content'])
  })
})
