/**
 * The loader refuses a chain whose blocks do not verify, naming the block and the field. Each
 * case rewrites one header field of block 1 of the hive chain (keeping block 1 only).
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { FixtureError, loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { hasSharedFixtures, HIVE_TESTS } from '../support/hive.ts'

/** Header field positions in the RLP list (yellow paper order). */
const HEADER = { stateRoot: 3, receiptTrie: 5, logsBloom: 6, gasUsed: 10, transactionsTrie: 4 } as const

function firstBlocks(count: number): Uint8Array[][][] {
  let rest: Uint8Array = readFileSync(join(HIVE_TESTS, 'chain.rlp'))
  const blocks: Uint8Array[][][] = []
  while (blocks.length < count) {
    const d = RLP.decode(rest, true)
    blocks.push(d.data as unknown as Uint8Array[][][][number])
    rest = d.remainder
  }
  return blocks
}

function fixtureWith(blocks: unknown[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'gd-fixture-'))
  copyFileSync(join(HIVE_TESTS, 'genesis.json'), join(dir, 'genesis.json'))
  writeFileSync(join(dir, 'chain.rlp'), Buffer.concat(blocks.map((b) => RLP.encode(b as Uint8Array[]))))
  return dir
}

function tampered(field: keyof typeof HEADER, value: Uint8Array): string {
  const blocks = firstBlocks(1)
  const header = blocks[0]![0]!
  header[HEADER[field]] = value
  return fixtureWith(blocks)
}

describe.skipIf(!hasSharedFixtures)('loadFixture', () => {
  it('loads a verified prefix of the hive chain with head = safe = finalized', async () => {
    const chain = await loadFixture(fixtureWith(firstBlocks(3)), { name: 'prefix', cache: false })
    expect(chain.verifiedBy).toBe('replay')
    expect(chain.head.number).toBe(3n)
    expect(chain.safeNumber).toBe(3n)
    expect(chain.finalizedNumber).toBe(3n)
  })

  it('takes safe and finalized from headfcu.json (hive) as block 54', async () => {
    const chain = await loadFixture(HIVE_TESTS, { name: 'hive' })
    expect([chain.head.number, chain.safeNumber, chain.finalizedNumber]).toEqual([54n, 54n, 54n])
  })

  const cases: [keyof typeof HEADER, Uint8Array, RegExp][] = [
    ['stateRoot', new Uint8Array(32).fill(1), /block 1: stateRoot mismatch/],
    ['receiptTrie', new Uint8Array(32).fill(2), /block 1: receiptsRoot mismatch/],
    ['logsBloom', new Uint8Array(256).fill(3), /block 1: logsBloom mismatch/],
    ['gasUsed', bigIntToUnpaddedBytes(1n), /block 1: gasUsed mismatch/],
    ['transactionsTrie', new Uint8Array(32).fill(4), /block 1: transactionsRoot does not match/],
  ]
  for (const [field, value, message] of cases) {
    it(`refuses a block whose ${field} does not verify, naming block and field`, async () => {
      const load = loadFixture(tampered(field, value), { name: 'bad', cache: false })
      await expect(load).rejects.toThrow(message)
      await expect(load).rejects.toBeInstanceOf(FixtureError)
    })
  }

  it('refuses a chain.rlp that is not RLP', async () => {
    const dir = fixtureWith([])
    writeFileSync(join(dir, 'chain.rlp'), Buffer.from([0xf9, 0xff]))
    await expect(loadFixture(dir, { name: 'garbage', cache: false })).rejects.toThrow(/chain.rlp item 1 is not valid RLP/)
  })

  it('refuses a missing genesis.json with the path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gd-empty-'))
    await expect(loadFixture(dir, { name: 'empty', cache: false })).rejects.toThrow(/cannot read .*genesis.json/)
  })
})
