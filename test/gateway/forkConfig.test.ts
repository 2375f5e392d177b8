/**
 * A forked network's settings: `--fork <network>=<url>[@<block>]` split at the last `@` followed by
 * a block number (so `user:pass@host` URLs work), `networks.<name>.fork` checked field by field,
 * and the upstream URL shown without its key (`redactUrl`) in every message.
 */
import { describe, expect, it } from 'vitest'
import { redactUrl } from '../../src/chain/loading/fork/upstream.ts'
import { ConfigError, parseConfig, withForks } from '../../src/gateway/config.ts'
import { parseForkSpec } from '../../src/gateway/forkConfig.ts'

const keys = [{ key: 'k', networks: ['up'] }]

describe('fork settings', () => {
  it('splits --fork at the last @ followed by a block number or quantity', () => {
    expect(parseForkSpec('up=http://user:pass@node.example:8545@19000000')).toEqual({ name: 'up', url: 'http://user:pass@node.example:8545', block: 19000000n })
    expect(parseForkSpec('up=https://node.example/v3/abc@0x10')).toEqual({ name: 'up', url: 'https://node.example/v3/abc', block: 16n })
    expect(parseForkSpec('up=http://user:pass@node.example')).toEqual({ name: 'up', url: 'http://user:pass@node.example' })
  })

  it('refuses what is not a fork, without printing the URL’s key', () => {
    expect(() => parseForkSpec('up')).toThrow(ConfigError)
    expect(() => parseForkSpec('up=ftp://node.example/0123456789abcdef')).toThrow('--fork up: expected an http(s) URL, got ftp://node.example/***')
    const base = { networks: { up: { fork: { url: 'http://node.example', block: 'latest' } } }, keys }
    expect(() => parseConfig(base, '/')).toThrow('networks.up.fork.block: must be a block number (a number or a 0x quantity), got "latest"')
    expect(() => parseConfig({ networks: { up: { fork: { url: 'http://n', nope: 1 } } }, keys }, '/')).toThrow(/networks\.up\.fork/)
    expect(() => parseConfig({ networks: { up: { fixture: 'x', fork: { url: 'http://n' } } }, keys }, '/')).toThrow('a network is a fixture or a fork, not both')
  })

  it('reads networks.<name>.fork and --fork/--offline into the config', () => {
    const config = parseConfig({ networks: { up: { fork: { url: 'http://node.example', block: '0x2a', headers: { 'x-api-key': 's' } } } }, keys }, '/cfg')
    expect(config.networks.up).toEqual({ fork: { url: 'http://node.example', block: 42n, headers: { 'x-api-key': 's' } } })
    const more = withForks(config, ['side=http://other.example@7'], true)
    expect(more.networks.side).toEqual({ fork: { url: 'http://other.example', block: 7n, offline: true } })
    expect(more.networks.up!.fork!.offline).toBe(true)
    expect(more.keys[0]!.networks).toEqual(['up', 'side'])
  })

  it('shows an upstream URL without anything that may be a key', () => {
    expect(redactUrl('https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef')).toBe('https://mainnet.infura.io/v3/***')
    expect(redactUrl('http://user:secret@127.0.0.1:8545/?key=abc')).toBe('http://***@127.0.0.1:8545?***')
    expect(redactUrl('http://127.0.0.1:8545')).toBe('http://127.0.0.1:8545')
  })
})
