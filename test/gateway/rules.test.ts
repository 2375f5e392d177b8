/** Each rule alone, on a hand-built request state. */
import { describe, expect, it } from 'vitest'
import { parseKeys } from '../../src/gateway/config.ts'
import {
  HttpMethodNotAllowedError,
  InvalidProjectIdError,
  InvalidProjectSecretError,
  NetworkNotEnabledError,
  PathNotFoundError,
  ProjectIdRequiredError,
  RejectedBySettingsError,
  UnknownNetworkError,
} from '../../src/gateway/errors.ts'
import type { GatewayRequest, Network, RequestState } from '../../src/gateway/request.ts'
import {
  createContractAddressAllowlistRule,
  createMethodAllowlistRule,
  createOriginAllowlistRule,
  createUserAgentAllowlistRule,
} from '../../src/gateway/rules/allowlist.ts'
import { createApiKeyRule } from '../../src/gateway/rules/apiKey.ts'
import { createHostRule, hostName } from '../../src/gateway/rules/host.ts'
import { createNetworkAccessRule } from '../../src/gateway/rules/networkAccess.ts'
import { createRouteRule } from '../../src/gateway/rules/route.ts'
import { createSecretRule, parseBasicAuth } from '../../src/gateway/rules/secret.ts'
import { CHAINS } from './helpers.ts'

function state(req: Partial<GatewayRequest> = {}, extra: Partial<RequestState> = {}): RequestState {
  return {
    request: { method: 'POST', host: 'ethereum-mainnet.localhost', path: '/v3/k', headers: {}, body: '', ...req },
    secretVerified: false,
    ...extra,
  }
}

const [KEY, SECRET_KEY, LISTED] = parseKeys(
  [
    { key: 'k', networks: ['ethereum'] },
    { key: 's', networks: ['ethereum'], secret: 'pw', allowlists: { methods: ['eth_chainId'], secretBypass: true } },
    {
      key: 'l',
      networks: ['ethereum'],
      allowlists: {
        origins: ['example.com', 'https://*.dapp.io'],
        userAgents: ['wagmi'],
        methods: ['eth_call', 'eth_getLogs'],
        contractAddresses: ['0x00000000000000000000000000000000000000AA'],
      },
    },
  ],
  ['ethereum', 'polygon'],
)

describe('route', () => {
  const route = createRouteRule()
  it('takes the key from /v3/<key>, ignoring the query', () => {
    const s = state({ path: '/v3/abc?x=1' })
    route(s)
    expect(s.apiKey).toBe('abc')
  })
  it('refuses other shapes', () => {
    expect(() => route(state({ path: '/v3/' }))).toThrow(ProjectIdRequiredError)
    expect(() => route(state({ path: '/v3' }))).toThrow(ProjectIdRequiredError)
    expect(() => route(state({ path: '/v30/abc' }))).toThrow(PathNotFoundError)
    expect(() => route(state({ path: '/', method: 'GET' }))).toThrow(PathNotFoundError)
    expect(() => route(state({ method: 'GET' }))).toThrow(HttpMethodNotAllowedError)
  })
  it('decides every path as its expression does: the key is all after /v3/ up to the query, and a line break in it is a 404', () => {
    const expected = (path: string, method: string) => {
      const m = /^(\/ws)?\/v3(?:\/(.*))?$/.exec(path.split('?', 1)[0]!)
      if (!m) return 'PathNotFoundError'
      if (m[1] === undefined && method !== 'POST') return 'HttpMethodNotAllowedError'
      return m[2] === undefined || m[2] === '' ? 'ProjectIdRequiredError' : `${m[1] === undefined ? 'http' : 'ws'} ${m[2]}`
    }
    const paths = ['/v3/abc', '/v3/abc?x=1', '/v3/?x', '/v3/a/b', '/v3/a\nb', '/v3/a\rb?x', '/v3/\u2028', '/v3/a?\n', '/v3//', '/v3/%20', '/ws/v3/abc', '/ws/v3/', '/V3/abc']
    for (const path of paths) {
      for (const method of ['POST', 'GET']) {
        const s = state({ path, method })
        let outcome: string
        try {
          route(s)
          outcome = `${s.websocket ? 'ws' : 'http'} ${s.apiKey}`
        } catch (err) {
          outcome = (err as Error).constructor.name
        }
        expect(outcome, `${method} ${JSON.stringify(path)}`).toBe(expected(path, method))
      }
    }
  })
})

describe('host', () => {
  const networks = new Map<string, Network>([
    ['ethereum', { name: 'ethereum', host: 'ethereum-mainnet.rpc.test', chain: CHAINS.ethereum }],
  ])
  const host = createHostRule({ serviceHost: 'rpc.test', networks })
  it('finds the network, ignoring port, case and a trailing dot', () => {
    for (const h of ['ethereum-mainnet.rpc.test', 'ETHEREUM-mainnet.rpc.test:443', 'ethereum-mainnet.rpc.test.']) {
      const s = state({ host: h })
      host(s)
      expect(s.network?.name).toBe('ethereum')
    }
  })
  it('refuses hosts that name a network not served: a typo never reaches another chain', () => {
    for (const h of ['ethereum-mainnet.localhost', 'polygon-mainnet.rpc.test', 'mainnet.rpc.test', 'ethereum-sepolia.rpc.test', 'x.rpc.test:8545']) {
      expect(() => host(state({ host: h })), h).toThrow(UnknownNetworkError)
    }
  })
  it('gives a Host that names no network the first network served (the plain URL http://127.0.0.1:8545/v3/<key>)', () => {
    const two = new Map<string, Network>([...networks, ['polygon', { name: 'polygon', host: 'polygon-mainnet.rpc.test', chain: CHAINS.ethereum }]])
    const plain = createHostRule({ serviceHost: 'rpc.test', networks: two })
    for (const h of [undefined, '127.0.0.1:8545', 'localhost', 'rpc.test', '[::1]:8545', 'gateway:8545']) {
      const s = state({ host: h })
      plain(s)
      expect(s.network?.name, h).toBe('ethereum')
    }
    const none = createHostRule({ serviceHost: 'rpc.test', networks: new Map() })
    expect(() => none(state({ host: '127.0.0.1' }))).toThrow(UnknownNetworkError)
  })
  it('reads the map live when the same Host comes again: a network replaced, added or not served is seen at once', () => {
    const live = new Map<string, Network>([['ethereum', { name: 'ethereum', host: 'ethereum-mainnet.rpc.test', chain: CHAINS.ethereum }]])
    const rule = createHostRule({ serviceHost: 'rpc.test', networks: live })
    const found = (h: string | undefined, network?: string) => {
      const s = state({ host: h, ...(network ? { network } : {}) })
      rule(s)
      return s.network
    }
    const first = found('ethereum-mainnet.rpc.test')
    expect(found('ethereum-mainnet.rpc.test')).toBe(first)
    const replaced: Network = { name: 'ethereum', host: 'ethereum-mainnet.rpc.test', chain: CHAINS.ethereum }
    live.set('ethereum', replaced)
    expect(found('ethereum-mainnet.rpc.test')).toBe(replaced)
    expect(found('127.0.0.1:8545')).toBe(replaced)
    expect(() => found('polygon-mainnet.rpc.test')).toThrow(UnknownNetworkError)
    const polygon: Network = { name: 'polygon', host: 'polygon-mainnet.rpc.test', chain: CHAINS.ethereum }
    live.set('polygon', polygon)
    expect(found('polygon-mainnet.rpc.test')).toBe(polygon)
    // A network's own port: that network, and a Host naming another is refused, whatever came before.
    expect(found('polygon-mainnet.rpc.test', 'polygon')).toBe(polygon)
    expect(() => found('polygon-mainnet.rpc.test', 'ethereum')).toThrow()
    expect(found('127.0.0.1:8545')).toBe(replaced)
  })
  it('checks its options once', () => {
    expect(() => createHostRule({ serviceHost: 'other.test', networks })).toThrow(TypeError)
  })
  it('hostName strips ports, also of IPv6 literals', () => {
    expect(hostName('[::1]:8545')).toBe('[::1]')
    expect(hostName('A.b:1')).toBe('a.b')
  })
})

describe('key, secret, network', () => {
  const apiKey = createApiKeyRule({ keys: [KEY!, SECRET_KEY!] })
  it('looks the key up', () => {
    const s = state({}, { apiKey: 'k' })
    apiKey(s)
    expect(s.key).toBe(KEY)
    expect(() => apiKey(state({}, { apiKey: 'K' }))).toThrow(InvalidProjectIdError)
  })
  it('refuses duplicate keys at construction', () => {
    expect(() => createApiKeyRule({ keys: [KEY!, KEY!] })).toThrow(TypeError)
  })

  const secret = createSecretRule()
  const basic = (user: string, pw: string) => `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`
  it('requires the secret of a key that has one', () => {
    expect(() => secret(state({}, { key: SECRET_KEY }))).toThrow(RejectedBySettingsError)
    expect(() => secret(state({ headers: { authorization: basic('', 'nope') } }, { key: SECRET_KEY }))).toThrow(InvalidProjectSecretError)
    expect(() => secret(state({ headers: { authorization: basic('x', 'pw') } }, { key: SECRET_KEY }))).toThrow(InvalidProjectSecretError)
    expect(() => secret(state({ headers: { authorization: 'Bearer pw' } }, { key: SECRET_KEY }))).toThrow(InvalidProjectSecretError)
    const s = state({ headers: { authorization: basic('', 'pw') } }, { key: SECRET_KEY })
    secret(s)
    expect(s.secretVerified).toBe(true)
  })
  it('ignores credentials for a key without a secret', () => {
    const s = state({ headers: { authorization: basic('', 'x') } }, { key: KEY })
    secret(s)
    expect(s.secretVerified).toBe(false)
  })
  it('parseBasicAuth keeps colons in the password', () => {
    expect(parseBasicAuth(`Basic ${Buffer.from(':a:b').toString('base64')}`)).toEqual({ user: '', password: 'a:b' })
  })

  it('network must be enabled for the key', () => {
    const access = createNetworkAccessRule()
    const eth: Network = { name: 'ethereum', host: 'ethereum-mainnet.localhost', chain: CHAINS.ethereum }
    const pol: Network = { name: 'polygon', host: 'polygon-mainnet.localhost', chain: CHAINS.polygon }
    expect(() => access(state({}, { key: KEY, network: eth }))).not.toThrow()
    expect(() => access(state({}, { key: KEY, network: pol }))).toThrow(NetworkNotEnabledError)
  })
})

describe('allowlists', () => {
  const origin = createOriginAllowlistRule()
  const ua = createUserAgentAllowlistRule()
  const methods = createMethodAllowlistRule()
  const contracts = createContractAddressAllowlistRule()
  const withHeaders = (headers: Record<string, string>) => state({ headers }, { key: LISTED })

  it('origins: scheme optional, *. matches subdomains only', () => {
    for (const o of ['https://example.com', 'http://example.com:3000', 'https://a.dapp.io', 'https://a.b.dapp.io']) {
      expect(() => origin(withHeaders({ origin: o })), o).not.toThrow()
    }
    for (const o of ['https://dapp.io', 'http://a.dapp.io', 'https://notexample.com', 'https://example.com.evil', 'null']) {
      expect(() => origin(withHeaders({ origin: o })), o).toThrow(RejectedBySettingsError)
    }
    expect(() => origin(withHeaders({}))).toThrow(RejectedBySettingsError)
  })

  it('user agents: substring', () => {
    expect(() => ua(withHeaders({ 'user-agent': 'viem/2 wagmi/2' }))).not.toThrow()
    expect(() => ua(withHeaders({ 'user-agent': 'Wagmi' }))).toThrow(RejectedBySettingsError)
    expect(() => ua(withHeaders({}))).toThrow(RejectedBySettingsError)
  })

  it('methods: exact names', () => {
    expect(() => methods(withHeaders({}), { method: 'eth_call', params: [] })).not.toThrow()
    expect(() => methods(withHeaders({}), { method: 'eth_blockNumber', params: [] })).toThrow(RejectedBySettingsError)
  })

  it('contract addresses: only for the listed methods, every address named must be allowed', () => {
    const s = withHeaders({})
    const aa = '0x00000000000000000000000000000000000000aa'
    const bb = '0x00000000000000000000000000000000000000bb'
    expect(() => contracts(s, { method: 'eth_call', params: [{ to: aa }, 'latest'] })).not.toThrow()
    expect(() => contracts(s, { method: 'eth_getStorageAt', params: [aa.toUpperCase().replace('0X', '0x'), '0x0'] })).not.toThrow()
    expect(() => contracts(s, { method: 'eth_getLogs', params: [{ address: [aa] }] })).not.toThrow()
    expect(() => contracts(s, { method: 'eth_blockNumber', params: [] })).not.toThrow()
    expect(() => contracts(s, { method: 'eth_call', params: [{ to: bb }] })).toThrow(RejectedBySettingsError)
    expect(() => contracts(s, { method: 'eth_estimateGas', params: [{ data: '0x' }] })).toThrow(RejectedBySettingsError)
    expect(() => contracts(s, { method: 'eth_getLogs', params: [{ address: [aa, bb] }] })).toThrow(RejectedBySettingsError)
    expect(() => contracts(s, { method: 'eth_getLogs', params: [{}] })).toThrow(RejectedBySettingsError)
  })

  it('the secret bypasses them when the key says so', () => {
    const s = state({}, { key: SECRET_KEY, secretVerified: true })
    expect(() => methods(s, { method: 'eth_blockNumber', params: [] })).not.toThrow()
    expect(() => methods({ ...s, secretVerified: false }, { method: 'eth_blockNumber', params: [] })).toThrow(RejectedBySettingsError)
  })
})
