/**
 * A chain placed at a real height: the example vault scenario's genesis is block 21,000,000 under
 * Cancun rules. The node answers at that height, contracts read block.number and block.timestamp
 * as they are there, and the fork is the one the source names.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildFixture, buildFixtureFromSource, readScenarioFile } from '../../src/builder/buildFixture.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { clientFor } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const SOURCE = 'fixtures/sources/examples/vault.scenario.json'
const BLOCK_INFO = '0x15cad552' // blockInfo()

describe('a chain at block 21,000,000', () => {
  let dir: string
  let client: RpcClient
  let vault: string
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gd-height-'))
    const built = await buildFixture(SOURCE, dir)
    vault = (JSON.parse(built.files['accounts.json']) as { contracts: { address: string }[] }).contracts[0]!.address
    client = clientFor(await loadFixture(dir, { name: 'vault', cache: false }))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('is read back from the verified cache with the same genesis at its height and the same blocks', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'gd-height-cache-'))
    try {
      const clock = { now: () => 2_000_000_000_000 }
      const replayed = await loadFixture(dir, { name: 'vault', cache, clock })
      const read = await loadFixture(dir, { name: 'vault', cache, clock })
      expect(read.verifiedBy).toBe('cache')
      expect(read.genesis.number).toBe(21_000_000n)
      expect(read.genesis.hash).toBe(replayed.genesis.hash)
      expect(read.genesis.block.header.toJSON()).toStrictEqual(replayed.genesis.block.header.toJSON())
      expect(read.head.hash).toBe(replayed.head.hash)
      // A block mined on the read-back chain links to it as on the replayed one.
      expect((await read.mine()).hash).toBe((await replayed.mine()).hash)
    } finally {
      rmSync(cache, { recursive: true, force: true })
    }
  })

  it('answers eth_blockNumber with the height, and every block by its number', async () => {
    expect((await client.call('eth_blockNumber')).result).toBe('0x1406f42')
    const genesis = (await client.call('eth_getBlockByNumber', ['earliest', false])).result as Record<string, string>
    expect(genesis.number).toBe('0x1406f40')
    const first = (await client.call('eth_getBlockByNumber', ['0x1406f41', false])).result as Record<string, string>
    expect(first.parentHash).toBe(genesis.hash)
    expect((await client.call('eth_getBlockByNumber', ['0x1', false])).result).toBeNull()
    expect((await client.call('eth_getBlockByNumber', ['safe', false])).result).toMatchObject({ number: '0x1406f41' })
    expect((await client.call('eth_getBlockByNumber', ['finalized', false])).result).toMatchObject({ number: '0x1406f40' })
  })

  it('lets contracts read block.number and block.timestamp as they are there', async () => {
    const head = (await client.call('eth_getBlockByNumber', ['latest', false])).result as Record<string, string>
    const out = (await client.call('eth_call', [{ to: vault, data: BLOCK_INFO }, 'latest'])).result as string
    expect(BigInt(`0x${out.slice(2, 66)}`)).toBe(21_000_002n)
    expect(BigInt(`0x${out.slice(66, 130)}`)).toBe(BigInt(head.timestamp!))
  })

  it('runs the fork the source names: Cancun headers, no Prague fields', async () => {
    const head = (await client.call('eth_getBlockByNumber', ['latest', false])).result as Record<string, string>
    expect(head).toHaveProperty('parentBeaconBlockRoot')
    expect(head).toHaveProperty('excessBlobGas')
    expect(head).not.toHaveProperty('requestsHash')
    expect(client.chain.common.hardfork()).toBe('cancun')
  })

  it('refuses a block number that is not the parent + 1, naming the block', async () => {
    const { source, baseDir, file } = readScenarioFile(SOURCE)
    const broken = structuredClone(source) as { blocks: { number?: number }[] }
    broken.blocks[1]!.number = 21000005
    await expect(buildFixtureFromSource(broken, baseDir, file)).rejects.toThrow(
      /vault\.scenario\.json: blocks\[1\] \(block 21000002\)\.number: block number 21000005 is not the parent's \+ 1 \(21000002\)/,
    )
  })

  it('refuses a gas limit that moves more than consensus allows', async () => {
    const { source, baseDir, file } = readScenarioFile(SOURCE)
    const broken = structuredClone(source) as { blocks: { gasLimit?: number }[] }
    broken.blocks[0]!.gasLimit = 40_000_000
    await expect(buildFixtureFromSource(broken, baseDir, file)).rejects.toThrow(/blocks\[0\] \(block 21000001\)\.gasLimit: gas limit 40000000 moves/)
  })
})
