/**
 * Foundry's cast, a client that resolves names through the system and so cannot reach
 * `<network>-mainnet.localhost` where the resolver does not map `*.localhost`, reaches two networks
 * on their own ports (`networkPorts`), with no extra flags: reads, a revert decoded, a signed send
 * and its receipt. Each port is its network whatever the Host cast sends (`127.0.0.1:<port>`).
 * The README's cast example runs as written, on free ports.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { fixtureBook } from '../support/fixtureBook.ts'
import { cast, castBinary } from '../support/cast.ts'

const ethereum = fixtureBook('ethereum')
const polygon = fixtureBook('polygon')
const polygonKeys = JSON.parse(readFileSync(new URL('../../fixtures/polygon/accounts.json', import.meta.url), 'utf8')) as {
  accounts: { name: string; privateKey?: string }[]
}

describe.runIf(castBinary() !== undefined)('cast on per-network ports', () => {
  let server: RunningServer
  let eth: string
  let pol: string
  beforeAll(async () => {
    server = await startServer({ port: 0, networkPorts: 0 })
    eth = server.portUrls.ethereum!
    pol = server.portUrls.polygon!
  })
  afterAll(async () => {
    await server?.close()
  })

  it('gives each network a URL of its own on 127.0.0.1', () => {
    expect(eth).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v3\/deadbeefdeadbeefdeadbeefdeadbeef$/)
    expect(new Set(Object.values(server.portUrls)).size).toBe(3)
  })

  it('block number and chain id, each network its own', async () => {
    for (const [url, head, chainId] of [[eth, '6', '1'], [pol, '4', '137']] as const) {
      expect((await cast(['block-number', '--rpc-url', url])).stdout.trim()).toBe(head)
      expect((await cast(['chain-id', '--rpc-url', url])).stdout.trim()).toBe(chainId)
    }
  })

  it('a storage slot: the Counter count', async () => {
    const r = await cast(['storage', ethereum.address('counter'), '0', '--rpc-url', eth])
    expect(r.stdout.trim(), r.stderr).toBe(`0x${'9'.padStart(64, '0')}`)
  })

  it("block receipts: block 1's deployments", async () => {
    const r = await cast(['rpc', 'eth_getBlockReceipts', '0x1', '--rpc-url', eth])
    const receipts = JSON.parse(r.stdout) as { contractAddress: string | null; status: string }[]
    expect(receipts.map((x) => x.contractAddress)).toEqual([ethereum.address('token'), ethereum.address('reverter')])
    expect(receipts.every((x) => x.status === '0x1')).toBe(true)
  })

  it('an estimate that reverts: cast prints the decoded reason', async () => {
    const r = await cast(['estimate', ethereum.address('reverter'), 'revertWithReason()', '--from', ethereum.address('dave'), '--rpc-url', eth])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('execution reverted: Reverter: always reverts')
  })

  it('cast send with a fixture key, and its receipt; the other network is untouched', async () => {
    const key = polygonKeys.accounts.find((a) => a.name === 'alice')!.privateKey!
    const bob = polygon.address('bob')
    const before = BigInt((await cast(['balance', bob, '--rpc-url', pol])).stdout.trim())
    const sent = await cast(['send', bob, '--value', '1000', '--private-key', key, '--rpc-url', pol])
    expect(sent.code, sent.stderr).toBe(0)
    expect(sent.stdout).toMatch(/status\s+1 \(success\)/)
    const hash = /transactionHash\s+(0x[0-9a-f]{64})/.exec(sent.stdout)?.[1]
    expect(hash).toBeDefined()
    const receipt = JSON.parse((await cast(['receipt', hash!, '--json', '--rpc-url', pol])).stdout) as { status: string; blockNumber: string; from: string; to: string }
    expect(receipt).toMatchObject({ status: '0x1', blockNumber: '0x5', from: polygon.address('alice'), to: bob })
    expect(BigInt((await cast(['balance', bob, '--rpc-url', pol])).stdout.trim())).toBe(before + 1000n)
    expect((await cast(['block-number', '--rpc-url', pol])).stdout.trim()).toBe('5')
    expect((await cast(['block-number', '--rpc-url', eth])).stdout.trim()).toBe('6')
  })
})

describe.runIf(castBinary() !== undefined)("the README's cast example", () => {
  const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  const BIN = fileURLToPath(new URL('../../bin/gateway-double.js', import.meta.url))

  it('runs as written (with free ports for 8545 and 9545 on)', async () => {
    const start = README.indexOf('\n## Reaching a network from cast, forge and other clients\n')
    expect(start).toBeGreaterThan(0)
    const section = README.slice(start, README.indexOf('\n## ', start + 1))
    const blocks = [...section.matchAll(/```(sh)?\n([\s\S]*?)```/g)].map((m) => ({ sh: m[1] === 'sh', body: m[2]! }))
    let server: ReturnType<typeof spawn> | undefined
    /** The README's port (9545, 9546...) to the port the server got for that network. */
    const ports = new Map<string, string>()
    let casts = 0
    try {
      for (const [i, block] of blocks.entries()) {
        if (!block.sh) continue
        for (const line of block.body.split('\n').filter((l) => l.trim() !== '')) {
          if (line.includes(' & ')) {
            const args = line.slice(0, line.indexOf(' & ')).trim().split(/\s+/)
            expect(args.slice(0, 2)).toEqual(['npx', 'gateway-double'])
            const first = Number(args[args.indexOf('--network-ports') + 1])
            const flags = args.slice(2).map((a) => (a === String(first) ? '0' : a))
            server = spawn(process.execPath, [BIN, ...flags, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
            const banner = await new Promise<string>((resolve, reject) => {
              let out = ''
              server!.stdout!.on('data', (d: Buffer) => {
                out += d.toString()
                if (out.includes('Press Ctrl+C to stop.')) resolve(out)
              })
              server!.on('exit', (code) => reject(new Error(`the server exited (${code}): ${out}`)))
            })
            const own = [...banner.matchAll(/^ {2}[a-z]+ +http:\/\/127\.0\.0\.1:(\d+)\/v3\//gm)].map((m) => m[1]!)
            expect(own).toHaveLength(3)
            own.forEach((port, n) => ports.set(String(first + n), port))
            continue
          }
          expect(line.startsWith('cast '), line).toBe(true)
          const args = line.split(/\s+/).slice(1).map((a) => a.replace(/127\.0\.0\.1:(\d+)/, (_, p: string) => `127.0.0.1:${ports.get(p) ?? p}`))
          const r = await cast(args)
          const expected = blocks[i + 1]
          expect(expected?.sh, `output block after ${line}`).toBe(false)
          expect(r.stdout.trim(), `${line}\n${r.stderr}`).toBe(expected!.body.trim())
          casts++
        }
      }
      expect(casts).toBeGreaterThanOrEqual(2)
    } finally {
      if (server !== undefined && server.exitCode === null) {
        const exited = new Promise((resolve) => server!.on('exit', resolve))
        server.kill('SIGTERM')
        await exited
      }
    }
  })
})
