/** Provider profiles as data: checked as the config is (errors name the field), the default profile is the service's table. */
import { describe, expect, it } from 'vitest'
import { ConfigError, parseConfig } from '../../src/gateway/config.ts'
import { CREDIT_COSTS, methodCost } from '../../src/gateway/credits.ts'
import { PROFILE_NAMES, builtinProfile, parseProfile, resolveProfile } from '../../src/gateway/profiles/profile.ts'

function errorOf(input: unknown): string {
  try {
    resolveProfile(input as never)
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return (err as Error).message
  }
  throw new Error('expected a ConfigError')
}

describe('provider profiles', () => {
  it('ships every profile it names, each valid', () => {
    for (const name of PROFILE_NAMES) expect(builtinProfile(name).name).toBe(name)
  })

  it('keeps the service prices in the default profile: the table and the families', () => {
    const infura = builtinProfile('infura')
    expect(infura.prices.methods).toEqual(CREDIT_COSTS)
    expect(CREDIT_COSTS.eth_getLogs).toBe(255)
    expect(methodCost('eth_chainId')).toBe(5)
    expect(methodCost('trace_block')).toBe(300)
    expect(methodCost('debug_traceTransaction')).toBe(1000)
    expect(methodCost('eth_gasPrice')).toBe(80)
    expect(infura.prices).toMatchObject({ default: 80, unknownMethod: 160, badRequest: 5, batchEnvelope: 80 })
  })

  it('names the field in its errors', () => {
    expect(errorOf('nope')).toBe('profile: unknown profile "nope" (shipped: infura, alchemy, quicknode, drpc-free, ankr, public)')
    expect(errorOf({ extends: 'alchemy', getLogs: { maxBlockRange: 0, measure: 'blocks' } })).toBe('profile.getLogs.maxBlockRange: must be a positive integer, got 0')
    expect(errorOf({ extends: 'alchemy', getLogs: { maxBlockRange: 5, measure: 'wide' } })).toBe('profile.getLogs.measure: must be "blocks" or "distance", got "wide"')
    expect(errorOf({ extends: 'alchemy', colour: 'red' })).toMatch(/^profile\.colour: unknown field/)
    expect(errorOf({ extends: 'alchemy', url: { host: 'x.{network}', http: '/v2/{key}', ws: '/v2/{key}' } })).toBe('profile.url.host: must start with {network}, got "x.{network}"')
    expect(errorOf({ extends: 'alchemy', refusals: {} })).toBe('profile.refusals.getLogsRange: is required by the rule it refuses for')
    expect(errorOf({ extends: 'infura', prices: { ...builtinProfile('infura').prices, default: -1 } })).toBe('profile.prices.default: must be an integer of at least 0, got -1')
  })

  it('extends a shipped profile, replacing the fields it names', () => {
    const narrow = resolveProfile({ extends: 'quicknode', getLogs: { maxBlockRange: 5, measure: 'distance', methods: ['eth_getLogs'] } })
    expect(narrow.getLogs).toEqual({ maxBlockRange: 5, measure: 'distance', methods: ['eth_getLogs'] })
    expect(narrow.prices).toEqual(builtinProfile('quicknode').prices)
    expect(parseProfile(JSON.parse(JSON.stringify(builtinProfile('alchemy'))))).toEqual(builtinProfile('alchemy'))
  })

  it('is served from a config file\'s profiles, each checked', () => {
    const base = { networks: { ethereum: { fixture: 'eth' } }, keys: [{ key: 'k', networks: ['ethereum'] }] }
    expect(parseConfig({ ...base, profiles: [{ profile: 'alchemy', port: 8546 }, { profile: { extends: 'public' } }] }, '/cfg').profiles).toEqual([{ profile: 'alchemy', port: 8546 }, { profile: { extends: 'public' } }])
    const configError = (profiles: unknown) => {
      try {
        parseConfig({ ...base, profiles }, '/cfg')
      } catch (err) {
        return (err as Error).message
      }
      return 'no error'
    }
    expect(configError([{ profile: 'alchemy', port: 70000 }])).toBe('profiles[0].port: must be a TCP port (0 for a free one), got 70000')
    expect(configError([{ profile: { extends: 'alchemy', batch: { http: 0, ws: 20 } } }])).toBe('profiles[0].profile.batch.http: must be a positive integer, got 0')
  })
})
