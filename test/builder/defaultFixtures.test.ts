/**
 * The committed default fixtures: each is what its source builds today (byte for byte), and each
 * replays cleanly through EthereumJS in validating mode.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { bytesToHex, createAddressFromString, hexToBytes, setLengthLeft, bigIntToBytes, concatBytes } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { describe, expect, it } from 'vitest'
import { buildFixture, buildFixtureFromSource } from '../../src/builder/buildFixture.ts'
import { defaultScenarios } from '../../src/builder/defaultFixtures.ts'
import { readFixture, replay } from './replay.ts'

const scenarios = defaultScenarios()

describe('default fixtures', () => {
  it('include ethereum, polygon and base', () => {
    expect(scenarios.map((s) => s.network)).toEqual(['base', 'ethereum', 'polygon'])
  })

  describe.each(scenarios)('$network', ({ sourcePath, outDir: dir }) => {
    const source = JSON.parse(readFileSync(sourcePath, 'utf8'))

    it('rebuilds byte-identical from its source', async () => {
      const built = await buildFixtureFromSource(source, 'fixtures/sources', sourcePath)
      const committed = readFixture(dir)
      expect(built.files['genesis.json']).toBe(committed.genesisText)
      expect(bytesToHex(built.files['chain.rlp'])).toBe(bytesToHex(committed.chainRlp))
      expect(built.files['forkchoice.json']).toBe(readFileSync(join(dir, 'forkchoice.json'), 'utf8'))
      expect(built.files['accounts.json']).toBe(readFileSync(join(dir, 'accounts.json'), 'utf8'))
    })

    it('replays with every block verified and matches its index', async () => {
      const { genesis, chainRlp, forkchoice, accounts } = readFixture(dir)
      const { chain, blocks, runs } = await replay(genesis, chainRlp, source.network)
      expect(chain.common.chainId()).toBe(BigInt(source.chainId))
      expect(chain.common.hardfork()).toBe('osaka')
      expect(blocks.length).toBe(source.blocks.length)
      expect(forkchoice.finalized).toBeLessThanOrEqual(forkchoice.safe)
      expect(forkchoice.safe).toBeLessThan(blocks.length)
      // Timestamps follow the block time exactly.
      for (const [i, b] of blocks.entries()) {
        const prev = i === 0 ? chain.genesisBlock : blocks[i - 1]!
        expect(b.header.timestamp - prev.header.timestamp).toBe(BigInt(source.blockTime))
      }
      // accounts.json names the transactions where they are, with the status the receipts have.
      for (const tx of accounts.transactions) {
        const block = blocks[tx.block - 1]!
        expect(bytesToHex(block.transactions[tx.index]!.hash())).toBe(tx.hash)
        expect(block.transactions[tx.index]!.type).toBe(tx.type)
        expect(runs[tx.block - 1]!.receipts[tx.index]).toMatchObject({ status: tx.status })
      }
      expect(accounts.transactions.length).toBe(blocks.reduce((n, b) => n + b.transactions.length, 0))
    })
  })
})

describe('the ethereum fixture', () => {
  const dir = 'fixtures/ethereum'

  it('has what the gateway tests need', async () => {
    const { genesis, chainRlp, accounts } = readFixture(dir)
    const { chain, blocks, runs } = await replay(genesis, chainRlp, 'ethereum')
    expect(blocks.length).toBeGreaterThanOrEqual(6)
    const types = (n: number) => blocks[n - 1]!.transactions.map((t) => t.type)
    expect(new Set(blocks.flatMap((b) => b.transactions.map((t) => t.type)))).toEqual(new Set([0, 1, 2]))
    expect(blocks.some((b) => [0, 1, 2].every((t) => b.transactions.some((x) => x.type === t)))).toBe(true)
    expect(types(1)).toEqual([2, 2])
    // Failed transactions are mined with status 0.
    expect(runs.flatMap((r) => r.receipts.map((x) => ('status' in x ? x.status : 1))).filter((s) => s === 0).length).toBeGreaterThanOrEqual(3)
    // The token was created by a transaction and keeps balances at slot 0.
    const token = accounts.contracts.find((c) => c.name === 'token')!
    const creation = accounts.transactions.find((t) => t.summary.startsWith('alice deploys Token'))!
    expect(blocks[creation.block - 1]!.transactions[creation.index]!.to).toBeUndefined()
    const bob = accounts.accounts.find((a) => a.name === 'bob')!
    const slot = keccak_256(concatBytes(setLengthLeft(hexToBytes(bob.address as `0x${string}`), 32), setLengthLeft(bigIntToBytes(0n), 32)))
    const stored = await chain.vm.stateManager.getStorage(createAddressFromString(token.address), slot)
    // bob: +1000 (block 2), -100 (block 3), -200 sent from alice's allowance is alice's, not bob's.
    expect(BigInt(bytesToHex(stored))).toBe(900n * 10n ** 18n)
    // Token transfers left Transfer logs.
    const transferTopic = bytesToHex(keccak_256(new TextEncoder().encode('Transfer(address,address,uint256)')))
    const transferLogs = runs.flatMap((r) => r.receipts.flatMap((x) => x.logs)).filter((log) => bytesToHex(log[1][0]!) === transferTopic)
    expect(transferLogs.length).toBeGreaterThanOrEqual(8)
  })
})

describe('buildFixture', () => {
  it('writes the four files into the output folder', async () => {
    const { mkdtempSync, readdirSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const out = mkdtempSync(join(tmpdir(), 'fixture-'))
    const built = await buildFixture('fixtures/sources/polygon.scenario.json', out)
    expect(readdirSync(out).sort()).toEqual(['accounts.json', 'chain.rlp', 'forkchoice.json', 'genesis.json'])
    expect(new Uint8Array(readFileSync(join(out, 'chain.rlp')))).toEqual(built.files['chain.rlp'])
  })
})

describe('the project loader', () => {
  it.each(defaultScenarios())('loads $network', async ({ outDir, network }) => {
    const { loadFixture } = await import('../../src/chain/loading/loadFixture.ts')
    const chain = await loadFixture(outDir, { name: network })
    const { forkchoice, accounts } = readFixture(outDir)
    expect(chain.chainId).toBe(BigInt(accounts.chainId))
    expect(chain.safeNumber).toBe(BigInt(forkchoice.safe))
    expect(chain.finalizedNumber).toBe(BigInt(forkchoice.finalized))
    expect(chain.head.transactions.map((t) => t.hash)).toEqual(accounts.transactions.filter((t) => t.block === Number(chain.head.number)).map((t) => t.hash))
  })
})
