/**
 * Seeded requests for the fuzzer, as careless tests and hostile clients send them: real method
 * calls with mutated params, broken envelopes, batches (empty, 1,001 calls, nested), bodies that are
 * no JSON, nested 10,000 deep or 5 MiB long, other paths, HTTP methods, hosts and keys, and control
 * routes with bad inputs and bad percent-encoding. Control inputs are only ever invalid ones (a
 * valid clock or credit change would move the ledger the fuzzer checks).
 */
import { createPrng } from '../../src/gateway/faults.ts'
import { TEST_METHODS } from '../../src/rpc/devRegistry.ts'
import { METHODS } from '../../src/rpc/registry.ts'

export const FUZZ_KEY = 'f022f022f022f022f022f022f022f022'

export interface FuzzRequest {
  /**
   * `rpc`: to `/v3/<key>` of a network (charged when answered 200 or 400); `dev`: to the test
   * endpoint `/_double/rpc/<network>` (never charged); `http`: anything else over HTTP; `raw`:
   * bytes on a socket.
   */
  kind: 'rpc' | 'dev' | 'http' | 'control' | 'raw'
  method: string
  path: string
  host: string
  headers: Record<string, string>
  body: Buffer | undefined
}

const ADDRESSES = [
  '0x7d4c351edf255f0d4532fe1eb8f7b7c5eefcb105',
  '0x7a1ed59eb13421e5838bb1bc284cf07d410cf689',
  '0x00000000000000000000000000000000c0c0c0c0',
  '0x8f41fd4479ae08632001bc4b1fcbfdc464ed1c49',
  '0x528d811af053700c355a6ee1f941ade7101dbe63',
  '0x000000000000000000000000000000000000dead',
]
const FEES = ['0x0', '0x1', '0x3b9aca00', '0xe8d4a51000', `0x${'f'.repeat(64)}`]
/** The methods that take a call object (eth_simulateV1 a list of them). */
const CALL_METHODS = ['eth_call', 'eth_estimateGas', 'eth_createAccessList', 'debug_traceCall', 'eth_simulateV1', 'eth_fillTransaction']
const HASHES = [
  '0x2578b33f0a375b7c0d28333ad855ae22fed358b3ebd6a20ba4d7d14ee5cf8ade',
  '0x185cd4e60b547b9951d2aa8f441a6a22d70e1a8d8dabb50f3ef5e4edbf01bacd',
  '0x80ab73e1471faa86b54327215be619d0f8d34a3670ddab5b6b4c22dc8ef655db',
  `0x${'00'.repeat(32)}`,
]
const TAGS = ['latest', 'earliest', 'pending', 'safe', 'finalized']
/** Calldata of the default fixtures' contracts: balanceOf, transfer, Reverter's reverts, a short burn. */
const CALLDATA = [
  '0x70a082310000000000000000000000008f41fd4479ae08632001bc4b1fcbfdc464ed1c49',
  '0xa9059cbb000000000000000000000000528d811af053700c355a6ee1f941ade7101dbe630000000000000000000000000000000000000000000000000000000000000001',
  '0x5b2dd100',
  '0x',
  '0xdeadbeef',
]
const NETWORKS = ['ethereum', 'polygon', 'base']
const NOT_JSON = ['', '{', '[', '{"jsonrpc":"2.0",', 'null', 'true', '12', '"x"', 'undefined', '\u0000\u0001', '{"a":1}}', ']', 'NaN', '{"id":1,}', '\ufeff{}']

export class Generator {
  readonly #next: () => number
  readonly #methods = Object.keys(METHODS)
  readonly #testMethods = Object.keys(TEST_METHODS)

  constructor(seed: number) {
    this.#next = createPrng(seed)
  }

  int(n: number): number {
    return Math.floor(this.#next() * n)
  }
  chance(p: number): boolean {
    return this.#next() < p
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!
  }

  /** A value for any param: usually a plausible one, sometimes anything. */
  value(depth = 0): unknown {
    switch (this.int(depth > 2 ? 12 : 16)) {
      case 0:
      case 1:
        return this.pick(ADDRESSES)
      case 2:
        return this.pick(HASHES)
      case 3:
      case 4:
        return this.pick(TAGS)
      case 5:
        return `0x${this.int(2 ** 31).toString(16)}`
      case 6:
        return this.pick(['0x', '0x0', '0x00', '0xz', '1', '-1', '0x' + 'f'.repeat(80), ''])
      case 7:
        return this.pick([null, true, false, 0, -1, 1.5, 1e308, 2 ** 64])
      case 8:
        return this.pick(CALLDATA)
      case 9:
        return 'x'.repeat(this.pick([1, 100, 10_000]))
      case 10:
        return this.int(10)
      case 11:
        return this.pick(['0x1', '0x2', '0x6', '0x7', '0xffffffff'])
      case 12:
      case 13:
        return this.callObject(depth + 1)
      case 14:
        return Array.from({ length: this.int(4) }, () => this.value(depth + 1))
      default:
        return this.filter(depth + 1)
    }
  }

  callObject(depth: number): Record<string, unknown> {
    const o: Record<string, unknown> = {}
    if (this.chance(0.7)) o.to = this.pick(ADDRESSES)
    if (this.chance(0.4)) o.from = this.pick(ADDRESSES)
    if (this.chance(0.6)) o.data = this.pick(CALLDATA)
    if (this.chance(0.2)) o.gas = this.pick(['0x5208', '0x0', '0x1000000', '0xffffffffffffffff'])
    if (this.chance(0.2)) o.value = this.pick(['0x1', '0x0', '0xde0b6b3a7640000'])
    // Fee fields in every combination (a tip above the cap, gasPrice beside the 1559 caps, 2^256-1).
    for (const fee of ['maxFeePerGas', 'maxPriorityFeePerGas', 'gasPrice', 'maxFeePerBlobGas']) {
      if (this.chance(0.15)) o[fee] = this.pick(FEES)
    }
    if (this.chance(0.1)) o[this.pick(['accessList', 'input', 'nonce', 'gasPrice', 'chainId'])] = this.value(depth + 1)
    return o
  }

  filter(depth: number): Record<string, unknown> {
    const o: Record<string, unknown> = {}
    if (this.chance(0.5)) o.fromBlock = this.pick(['0x0', '0x1', 'latest', 'earliest', '0x100'])
    if (this.chance(0.5)) o.toBlock = this.pick(['0x6', 'latest', 'pending'])
    if (this.chance(0.4)) o.address = this.chance(0.5) ? this.pick(ADDRESSES) : [this.pick(ADDRESSES)]
    if (this.chance(0.3)) o.topics = [this.chance(0.5) ? null : this.pick(HASHES)]
    if (this.chance(0.1)) o.blockHash = depth > 3 ? this.pick(HASHES) : this.value(depth + 1)
    return o
  }

  /**
   * A call of a method that takes a call object, its params well placed and its fee fields in any
   * combination (each of geth's fee checks, and EthereumJS's construction checks, meets them).
   */
  callMessage(): unknown {
    const call = this.callObject(0)
    for (const fee of ['gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'maxFeePerBlobGas']) {
      if (this.chance(0.4)) call[fee] = this.pick(FEES)
    }
    if (this.chance(0.15)) call.blobVersionedHashes = this.pick([[], [`0x01${'00'.repeat(31)}`], [HASHES[0]]])
    if (this.chance(0.1)) call.authorizationList = this.pick([[], [{ chainId: '0x1', address: this.pick(ADDRESSES), nonce: '0x0', yParity: '0x0', r: '0x1', s: '0x1' }]])
    const tag = this.pick(TAGS)
    const method = this.pick(CALL_METHODS)
    const params =
      method === 'eth_simulateV1'
        ? [{ blockStateCalls: [{ calls: [call] }], validation: this.chance(0.5), traceTransfers: this.chance(0.3) }, tag]
        : method === 'eth_fillTransaction'
          ? [call]
          : [call, tag]
    return { jsonrpc: '2.0', id: this.id(), method, params }
  }

  /** A JSON-RPC message: a real method with plausible params, mutated now and then. */
  message(): unknown {
    if (this.chance(0.15)) return this.callMessage()
    const m: Record<string, unknown> = { jsonrpc: '2.0', id: this.id(), method: this.methodName(), params: Array.from({ length: this.int(4) }, () => this.value()) }
    if (this.chance(0.1)) delete m.id // a notification
    if (this.chance(0.15)) {
      switch (this.int(6)) {
        case 0:
          m.jsonrpc = this.pick(['1.0', 2, null, ''])
          break
        case 1:
          m.method = this.pick([1, null, ['eth_call'], {}])
          break
        case 2:
          m.params = this.pick([{}, 'x', 1, true])
          break
        case 3:
          m.id = this.pick([{}, [1], true])
          break
        case 4:
          delete m.jsonrpc
          break
        default:
          m.extra = this.value()
      }
    }
    return this.chance(0.03) ? this.pick([1, 'x', null, [], true]) : m
  }

  methodName(): string {
    if (this.chance(0.85)) return this.pick(this.#methods)
    return this.pick(['eth_nope', 'web3_sha3', 'eth_sign', '', 'eth_accounts', '__proto__', 'constructor', 'toString', `eth_${'m'.repeat(this.pick([10, 1000, 100_000]))}`])
  }

  id(): unknown {
    return this.pick([1, 0, -1, 42, 'a', '', 1.5, 2 ** 53 + 2, null, 'id-with-\u00e9'])
  }

  /** The text of a body: JSON of a message or batch, with raw tweaks JSON.stringify cannot make. */
  rpcBody(): string {
    const r = this.int(100)
    if (r < 50) return JSON.stringify(this.message())
    if (r < 65) return JSON.stringify(Array.from({ length: this.int(12) + 1 }, () => this.message()))
    if (r < 67) return '[]'
    if (r < 68) return JSON.stringify(Array.from({ length: 1001 }, () => ({ jsonrpc: '2.0', id: 1, method: 'eth_chainId' })))
    if (r < 75) return this.pick(NOT_JSON)
    if (r < 78) {
      const depth = this.pick([100, 10_000, 100_000])
      return `{"jsonrpc":"2.0","id":1,"method":"${this.pick(this.#methods)}","params":[${'['.repeat(depth)}${']'.repeat(depth)}]}`
    }
    if (r < 82) {
      // Ids as JSON.parse cannot keep them.
      const id = this.pick(['18446744073709551615', '-0', '1.0', '1e400', '1E-7', '"\\u0041"', '"a\\/b"'])
      return `{"jsonrpc":"2.0","id":${id},"method":"${this.pick(this.#methods)}","params":[]}`
    }
    if (r < 84) return `{"jsonrpc":"2.0","id":1,"method":"eth_${'x'.repeat(this.pick([1024, 1024 * 1024]))}","params":[]}`
    if (r < 86) return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: ['y'.repeat(1024 * 1024), 'latest'] })
    if (r < 90) {
      const text = JSON.stringify(this.message())
      const at = this.int(text.length)
      return this.chance(0.5) ? text.slice(0, at) : `${text.slice(0, at)}${this.pick(['"', '{', ']', ',', '\\', '\u0000'])}${text.slice(at)}`
    }
    return JSON.stringify([this.message(), [this.message()], 5, null, this.message()])
  }

  /** One request. */
  request(): FuzzRequest {
    const r = this.int(100)
    const rpcHost = `${this.pick(NETWORKS)}-mainnet.localhost`
    if (r < 72) {
      const body = Buffer.from(this.rpcBody(), 'utf8')
      const headers: Record<string, string> = { 'content-type': this.pick(['application/json', 'text/plain', 'application/x-www-form-urlencoded']) }
      if (this.chance(0.1)) headers.origin = this.pick(['https://app.example.com', 'null', 'x'.repeat(2000)])
      return { kind: 'rpc', method: 'POST', path: `/v3/${FUZZ_KEY}${this.chance(0.05) ? '?x=1' : ''}`, host: rpcHost, headers, body }
    }
    if (r < 74) {
      // Over geth's 5 MiB: 413.
      return { kind: 'rpc', method: 'POST', path: `/v3/${FUZZ_KEY}`, host: rpcHost, headers: {}, body: Buffer.alloc(5 * 1024 * 1024 + 1 + this.int(1000), 0x20) }
    }
    if (r < 84) {
      const path = this.pick(['/', '/v3', '/v3/', `/v3/${FUZZ_KEY}/x`, '/v3/unknownkey', `/v3/${'k'.repeat(5000)}`, '/v2/x', '/%', '/v3/%E0%A4%A', '/..%2f'])
      const method = this.pick(['POST', 'GET', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'HEAD'])
      const host = this.pick([rpcHost, 'optimism-mainnet.localhost', '127.0.0.1', '', 'x'.repeat(300)])
      return { kind: 'http', method, path, host, headers: {}, body: method === 'GET' || method === 'HEAD' ? undefined : Buffer.from(this.rpcBody()) }
    }
    if (r < 91) return this.control()
    if (r < 97) return this.devRpc()
    return { kind: 'raw', method: '', path: '', host: '', headers: {}, body: Buffer.from(this.pick(RAW_HTTP)) }
  }

  /**
   * A body for the test endpoint: mostly a test method (Anvil's, Hardhat's) with careless params,
   * else any body the gateway gets. Valid calls may change the chain (state edits, mining a few
   * blocks, automine, impersonation, a reset): what the fuzzer checks does not depend on it, and
   * nothing here is priced. Never a count of blocks that takes long (10,001 and past are refused).
   */
  devRpc(): FuzzRequest {
    const network = this.chance(0.9) ? this.pick(NETWORKS) : this.pick(['nope', '%E0%A4%A', 'x'.repeat(300)])
    let text: string
    if (this.chance(0.7)) {
      const call = () => ({ jsonrpc: '2.0', id: this.id(), method: this.pick(this.#testMethods), params: Array.from({ length: this.int(4) }, () => this.devValue()) })
      text = JSON.stringify(this.chance(0.15) ? [call(), this.message(), call()] : call())
    } else {
      text = this.rpcBody()
    }
    return { kind: 'dev', method: 'POST', path: `/_double/rpc/${network}`, host: '127.0.0.1', headers: { 'content-type': 'application/json' }, body: Buffer.from(text) }
  }

  /** A param of a test method: any value, or one at a test method's edges. */
  devValue(): unknown {
    if (this.chance(0.6)) return this.value()
    return this.pick([
      '0x2711', // 10,001 blocks
      10_001,
      '0x15181', // 86,401 s of interval mining
      `0x${'ff'.repeat(33)}`,
      { timestamp: this.value(3), blocks: this.value(3) },
      { forking: { jsonRpcUrl: 'http://x.invalid' } },
      '0x1f8b0800',
      { block: null, accounts: { [this.pick(ADDRESSES)]: { balance: this.value(3), nonce: this.value(3), code: this.value(3), storage: this.value(3) } } },
      `0x${'60'.repeat(49 * 1024)}`,
      -1,
    ])
  }

  /** A control request with a bad input: each must be refused (4xx) and change nothing. */
  control(): FuzzRequest {
    const paths: [string, string, () => unknown][] = [
      ['POST', '/clock', () => this.pick([{ time: 8.64e15 }, { advanceSeconds: 1e300 }, { time: -1 }, { time: 'tomorrow' }, { advanceSeconds: 'x' }, {}, { tme: 1 }, [], 'x', new Raw(`{"time":${DEEP}}`)])],
      ['PUT', `/keys/${FUZZ_KEY}/credits`, () => this.pick([{ remaining: -1 }, { remaining: 1.5 }, { remaining: '5' }, {}, { remaining: 2 ** 60 }, new Raw(`{"remaining":${DEEP}}`)])],
      ['POST', '/faults', () => this.pick([{ kind: 'nope' }, { kind: 'latency' }, { kind: 'latency', ms: -1 }, { kind: 'serverError', status: 418 }, { kind: 'drop', probability: 2 }, { kind: 'timeout', ms: 2 ** 40 }, {}, { kind: 'drop', network: 'nope' }, new Raw(`{"kind":${DEEP}}`)])],
      ['POST', '/keys', () => this.pick([{ keys: [{ key: '' }] }, { keys: 'x' }, {}, { keys: [{ key: 'k', networks: ['nope'] }] }, { keys: [{ key: FUZZ_KEY, networks: ['ethereum'] }] }])],
      ['POST', '/networks', () => this.pick([{ name: 'ethereum', from: 'ethereum' }, { name: 'BAD', from: 'ethereum' }, { from: 'nope', name: 'x' }, {}])],
      ['PUT', '/networks/ethereum/mining', () => this.pick([{ mode: 'sometimes' }, {}, { mode: 1 }])],
      ['POST', '/snapshots', () => this.pick([{ networks: ['nope'] }, { networks: 'ethereum' }, { extra: 1 }, { networks: [1] }])],
      ['PUT', `/keys/${FUZZ_KEY}/credits`, () => ({ remaining: 5, extra: 1 })],
      ['PUT', '/networks/ethereum/mining', () => ({ mode: 'auto', extra: true })],
      ['POST', '/snapshots/999999/restore', () => undefined],
      ['DELETE', '/snapshots/nope', () => undefined],
      ['DELETE', '/faults/%E0%A4%A', () => undefined],
      ['GET', '/keys/%E0%A4%A', () => undefined],
      ['GET', `/log?since=${this.pick(['-1', 'x', '1e3', '99999999999999999999'])}`, () => undefined],
      ['GET', '/nope/%ZZ', () => undefined],
      ['PUT', '/keys/nope/networks/ethereum', () => undefined],
    ]
    const [method, path, body] = this.pick(paths)
    const value = body()
    const text = value === undefined ? undefined : this.chance(0.1) ? this.pick(NOT_JSON) : value instanceof Raw ? value.text : JSON.stringify(value)
    return { kind: 'control', method, path: `/_double${path}`, host: '127.0.0.1', headers: { 'content-type': 'application/json' }, body: text === undefined ? undefined : Buffer.from(text) }
  }

}

/** JSON text as it is (nested deeper than `JSON.stringify` can write). */
class Raw {
  constructor(readonly text: string) {}
}
const DEEP = `${'['.repeat(10_000)}${']'.repeat(10_000)}`

/** Malformed HTTP, which Node's parser refuses (400, or 431 for headers past 16 KiB). */
const RAW_HTTP = [
  `POST /v3/${FUZZ_KEY} HTTP/1.1\r\nHost: ethereum-mainnet.localhost\r\nno colon here\r\n\r\n`,
  'GARBAGE\r\n\r\n',
  `POST /v3/${FUZZ_KEY} HTTP/1.1\r\nHost: ethereum-mainnet.localhost\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello`,
  `GET / HTTP/1.1\r\nHost: x\r\nx-big: ${'b'.repeat(20_000)}\r\n\r\n`,
  `POST /v3/${FUZZ_KEY} HTTP/1.1\r\nHost: ethereum-mainnet.localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
  `POST /v3/${FUZZ_KEY} HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}`,
]
