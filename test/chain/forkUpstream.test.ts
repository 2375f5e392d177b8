/**
 * A faulty upstream (issue 20, step 3), from a small local JSON-RPC server that answers 429, 500
 * or nothing on demand: reads are retried with backoff (at least three attempts, `retry-after`
 * honoured); a read that still fails is a -32000 error on the request that needed it, through the
 * wire, never a crash and never kept (the next request reads again and gets the answer); the
 * URL's key appears in no message and no cached file. An upstream that does not answer at all
 * at start, with a cache of the fork, is waited for briefly and the cache serves.
 */
import { createServer } from 'node:http'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAddressFromString } from '@ethereumjs/util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openFork } from '../../src/chain/loading/fork/openFork.ts'
import { Upstream, UpstreamError } from '../../src/chain/loading/fork/upstream.ts'
import { startServer } from '../../src/http/server.ts'

const SECRET = '0123456789abcdef0123456789abcdef'
/** Anvil 1.7's block 1 (Osaka rules), as eth_getBlockByNumber answers it. */
const HEADER = {
  hash: '0x6e396abbd527558ba952927f03f5902790451edc6bd66fd22be9d347da7ea6db',
  parentHash: '0x9a9a16d071952b069a852c0e59f9d69a3e6a7f6e3903d73bc2f7b33b89c12b9a',
  sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
  miner: '0x0000000000000000000000000000000000000000',
  stateRoot: '0x2df65c184734cc60d19007f1f73b34b754ed54dd15f4ed20eab929d10bdaf013',
  transactionsRoot: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
  receiptsRoot: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
  logsBloom: `0x${'00'.repeat(256)}`,
  difficulty: '0x0',
  number: '0x1',
  gasLimit: '0x1c9c380',
  gasUsed: '0x0',
  timestamp: '0x6b0885d3',
  extraData: '0x',
  mixHash: '0x4de50f83b0d14b39af770c35c109b4d922153b09465ba8fbbc4f22dd5b800aed',
  nonce: '0x0000000000000000',
  baseFeePerGas: '0x3b9aca00',
  withdrawalsRoot: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
  blobGasUsed: '0x0',
  excessBlobGas: '0x0',
  parentBeaconBlockRoot: `0x${'00'.repeat(32)}`,
  requestsHash: '0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  transactions: [],
}
const ALICE = '0x00000000000000000000000000000000000a11ce'

/** What the fake upstream does with the next requests: answer, or fail so many times. */
const faults: ('429' | '500' | 'hang')[] = []
const seen: string[] = []
let upstream: Server
let url: string
let cacheDir: string

beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), 'gd-fork-faults-'))
  upstream = createServer((req, res) => {
    let body = ''
    req.on('data', (d: Buffer) => (body += d.toString()))
    req.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string }
      seen.push(method)
      const fault = method === 'eth_getProof' ? faults.shift() : undefined
      if (fault === 'hang') return // never answers: the client's attempt times out
      if (fault === '429') {
        res.writeHead(429, { 'retry-after': '0' }).end('too many requests')
        return
      }
      if (fault === '500') {
        res.writeHead(500).end('oops')
        return
      }
      const results: Record<string, unknown> = {
        eth_chainId: '0x7a69',
        eth_getBlockByNumber: HEADER,
        eth_getProof: { address: ALICE, balance: '0x2a', nonce: '0x1', codeHash: '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470', storageHash: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', accountProof: [], storageProof: [] },
      }
      const answer = method in results ? { result: results[method] } : { error: { code: -32601, message: `method ${method} not found` } }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, ...answer }))
    })
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v3/${SECRET}`
})

afterAll(async () => {
  upstream.closeAllConnections()
  if (upstream.listening) await new Promise((resolve) => upstream.close(resolve))
  rmSync(cacheDir, { recursive: true, force: true })
})

/** Short retries for the tests (a loaded machine still answers a live request within an attempt). */
const patient = { attemptTimeoutMs: 2_000, budgetMs: 20_000, backoffMs: 5 }
const quick = { attemptTimeoutMs: 600, budgetMs: 1_500, backoffMs: 5 }

describe('a faulty fork upstream', () => {
  it('retries 429s (retry-after honoured) and 500s until an answer comes', async () => {
    const client = new Upstream({ url, ...patient })
    faults.push('429', '500', 'hang')
    const proof = await client.call<{ balance: string }>('eth_getProof', [ALICE, [], '0x1'])
    expect(proof.balance).toBe('0x2a')
    expect(client.requests).toBe(4)
  })

  it('gives up after at least three attempts within its budget, naming the method and the node without its key', async () => {
    const client = new Upstream({ url, attemptTimeoutMs: 2_000, budgetMs: 300, backoffMs: 5 })
    faults.push('500', '500', '500', '500', '500', '500', '500', '500', '500', '500')
    const err = await client.call('eth_getProof', [ALICE, [], '0x1']).catch((e: unknown) => e)
    faults.length = 0
    expect(err).toBeInstanceOf(UpstreamError)
    expect((err as Error).message).toMatch(/^fork upstream http:\/\/127\.0\.0\.1:\d+\/v3\/\*\*\*: eth_getProof: HTTP 500 \(\d+ attempts in [\d.]+ s\)$/)
    expect(client.requests).toBeGreaterThanOrEqual(3)
  })

  it('answers a failed read with a -32000 error on that request, keeps nothing of it, and reads again next time', async () => {
    const chain = await openFork({ url, block: 1n }, { name: 'up', cache: cacheDir, upstream: quick })
    const server = await startServer({ chains: { up: chain }, keys: [{ key: 'f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0', networks: ['up'] }], port: 0 })
    try {
      const balance = () =>
        fetch(server.url!, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [ALICE, 'latest'] }), headers: { 'content-type': 'application/json' } }).then(
          (r) => r.json() as Promise<{ result?: string; error?: { code: number; message: string } }>,
        )
      faults.push(...Array<'hang'>(20).fill('hang'))
      const failed = await balance()
      faults.length = 0
      expect(failed.error?.code).toBe(-32000)
      expect(failed.error?.message).toMatch(/^cannot read account 0x0+a11ce at block 1: fork upstream http:\/\/127\.0\.0\.1:\d+\/v3\/\*\*\*: eth_getProof: no answer within 600 ms/)
      expect((await balance()).result).toBe('0x2a')
      // A read inside an execution fails the same way.
      faults.push(...Array<'hang'>(20).fill('hang'))
      const call = (await fetch(server.url!, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_call', params: [{ from: ALICE, to: '0x00000000000000000000000000000000000000b0' }, 'latest'] }), headers: { 'content-type': 'application/json' } }).then((r) => r.json())) as { error?: { code: number; message: string } }
      faults.length = 0
      expect(call.error?.code).toBe(-32000)
      expect(call.error?.message).toMatch(/^cannot read account 0x0+b0 at block 1: .*no answer within 600 ms/)
      const files = readdirSync(cacheDir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile())
      for (const f of files) expect(readFileSync(join(f.parentPath, f.name), 'utf8')).not.toContain(SECRET)
      expect(files.length).toBe(2)
    } finally {
      await server.close()
    }
  })

  it('starts from its cache when the upstream does not answer at all, as offline', async () => {
    upstream.closeAllConnections()
    await new Promise((resolve) => upstream.close(resolve))
    const chain = await openFork({ url, block: 1n }, { name: 'up', cache: cacheDir, upstream: quick })
    expect(chain.upstream?.offline).toBe(true)
    expect(chain.head.hash).toBe(HEADER.hash)
    const state = await chain.stateAt(chain.head)
    expect((await state.getAccount(createAddressFromString(ALICE)))?.balance).toBe(42n)
  })
})
