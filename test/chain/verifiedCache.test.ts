/**
 * A verified chain is kept and read back: the second load of the same fixture comes from the
 * cache and answers exactly as the replayed one; other bytes are a different key, so a changed or
 * tampered chain is replayed (and refused) whatever is cached.
 */
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bytesToHex, createAddressFromString } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { CACHE_DIR_ENV, defaultCacheDir, readCache, writeCache } from '../../src/chain/loading/verifiedCache.ts'
import type { CachedChain } from '../../src/chain/loading/verifiedCache.ts'
import type { Chain } from '../../src/chain/chain.ts'
import { fixtureBook } from '../support/fixtureBook.ts'

const ETHEREUM = new URL('../../fixtures/ethereum', import.meta.url).pathname
const book = fixtureBook('ethereum')

async function snapshot(chain: Chain) {
  const blocks = []
  for (let n = 0n; n <= chain.head.number; n++) {
    const r = chain.byNumber(n)!
    const state = await chain.stateAt(r)
    const account = await state.getAccount(createAddressFromString(book.address('alice')))
    const slot0 = await state.getStorage(createAddressFromString(book.address('token')), new Uint8Array(32))
    // The header's number and time too: a record read back builds its block only when asked (the genesis's too).
    blocks.push({ hash: r.hash, number: r.number, timestamp: r.timestamp, header: r.block.header.toJSON(), transactions: r.transactions, receipts: r.receipts, balance: account?.balance, slot0 })
  }
  return { head: chain.head.hash, safe: chain.safeNumber, finalized: chain.finalizedNumber, blocks }
}

describe('verified chain cache', () => {
  it('replays the first load, reads the second back, and both answer the same', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'gd-cache-'))
    const first = await loadFixture(ETHEREUM, { name: 'ethereum', cache })
    const second = await loadFixture(ETHEREUM, { name: 'ethereum', cache })
    expect(first.verifiedBy).toBe('replay')
    expect(second.verifiedBy).toBe('cache')
    expect(await snapshot(second)).toStrictEqual(await snapshot(first))
    // The genesis hash read back from the cache is its block's.
    const genesis = second.byNumber(0n)!
    expect(genesis.hash).toBe(bytesToHex(genesis.block.hash()))
  })

  it('replays a fixture whose bytes changed, and refuses it when it no longer verifies', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'gd-cache-'))
    const dir = mkdtempSync(join(tmpdir(), 'gd-fixture-'))
    cpSync(ETHEREUM, dir, { recursive: true })
    expect((await loadFixture(dir, { name: 'copy', cache })).verifiedBy).toBe('replay')
    expect((await loadFixture(dir, { name: 'copy', cache })).verifiedBy).toBe('cache')
    // Another genesis (its extraData changed): another key, a replay, and block 1's parent hash
    // no longer matches, so the load is refused although the original is cached.
    const genesis = JSON.parse(readFileSync(join(dir, 'genesis.json'), 'utf8'))
    genesis.extraData = '0x01'
    writeFileSync(join(dir, 'genesis.json'), JSON.stringify(genesis))
    await expect(loadFixture(dir, { name: 'copy', cache })).rejects.toThrow(/block 1: parentHash/)
  })

  it('verifies every time with cache: false', async () => {
    expect((await loadFixture(ETHEREUM, { name: 'ethereum', cache: false })).verifiedBy).toBe('replay')
  })
})

describe('the cache folder is bounded in bytes', () => {
  /** A chain whose file is about `kib` KiB. */
  const chainOf = (kib: number): CachedChain => ({
    genesisStateRoot: `0x${'11'.repeat(32)}`,
    genesisHash: `0x${'22'.repeat(32)}`,
    records: [],
    entries: [[`0x${'33'.repeat(32)}`, new Uint8Array(kib * 512)]],
    book: [],
    edited: [],
  })
  const key = (n: number) => n.toString(16).padStart(32, '0')
  const hoursAgo = (dir: string, name: string, hours: number) => {
    const then = new Date(Date.now() - hours * 3_600_000)
    utimesSync(join(dir, name), then, then)
  }

  it('a write removes the least recently loaded chains past the bound, never the one written, and only chain files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gd-cache-'))
    for (const n of [1, 2, 3]) writeCache(dir, key(n), chainOf(10))
    hoursAgo(dir, `${key(1)}.json`, 3)
    hoursAgo(dir, `${key(2)}.json`, 2)
    hoursAgo(dir, `${key(3)}.json`, 1)
    // Chain 1 is loaded again: now the most recently used of the three.
    expect(readCache(dir, key(1))?.entries[0]![1]).toHaveLength(10 * 512)
    writeFileSync(join(dir, 'cli-abc-v20-x64.v8cache'), 'x'.repeat(100_000))
    writeFileSync(join(dir, `${key(9)}.123.456.tmp`), 'a writer that died')
    hoursAgo(dir, `${key(9)}.123.456.tmp`, 2)
    writeFileSync(join(dir, `${key(8)}.124.457.tmp`), 'a writer still writing')
    const size = statSync(join(dir, `${key(1)}.json`)).size
    // Room for three files of this size: chain 4 (written), chain 1 (loaded), chain 3; chain 2 goes.
    writeCache(dir, key(4), chainOf(10), 3 * size + 100)
    expect([1, 2, 3, 4].map((n) => existsSync(join(dir, `${key(n)}.json`)))).toStrictEqual([true, false, true, true])
    expect(existsSync(join(dir, `${key(9)}.123.456.tmp`))).toBe(false)
    expect(existsSync(join(dir, `${key(8)}.124.457.tmp`))).toBe(true)
    expect(existsSync(join(dir, 'cli-abc-v20-x64.v8cache'))).toBe(true)
    // A chain larger than the bound is kept alone; the next load reads it back.
    writeCache(dir, key(5), chainOf(40), size)
    expect([1, 3, 4, 5].map((n) => existsSync(join(dir, `${key(n)}.json`)))).toStrictEqual([false, false, false, true])
    expect(readCache(dir, key(5))?.genesisHash).toBe(`0x${'22'.repeat(32)}`)
  })
})

describe('where the cache lives by default', () => {
  const fallback = join(tmpdir(), `gateway-double-cache-${process.getuid?.() ?? 'user'}`)

  /** A project folder (package.json), optionally with node_modules, and a subfolder to run in. */
  function project(withModules: boolean): { root: string; sub: string } {
    const root = mkdtempSync(join(tmpdir(), 'gd-project-'))
    writeFileSync(join(root, 'package.json'), '{}')
    if (withModules) mkdirSync(join(root, 'node_modules'))
    const sub = join(root, 'test', 'deep')
    mkdirSync(sub, { recursive: true })
    return { root, sub }
  }

  it("is node_modules/.cache/gateway-double of the project the process runs in, found from a subfolder", () => {
    const { root, sub } = project(true)
    expect(defaultCacheDir(sub, {})).toBe(join(root, 'node_modules', '.cache', 'gateway-double'))
  })

  it('is a per-user folder in the temporary folder without a project or its node_modules', () => {
    expect(defaultCacheDir(project(false).sub, {})).toBe(fallback)
    expect(defaultCacheDir('/', {})).toBe(fallback)
  })

  it.skipIf(process.getuid?.() === 0)('is the temporary folder when the project node_modules is read-only', () => {
    const { root, sub } = project(true)
    chmodSync(join(root, 'node_modules'), 0o555)
    expect(defaultCacheDir(sub, {})).toBe(fallback)
  })

  it(`is ${CACHE_DIR_ENV} when set, relative to the current folder`, () => {
    const { root, sub } = project(true)
    expect(defaultCacheDir(sub, { [CACHE_DIR_ENV]: '/elsewhere/cache' })).toBe('/elsewhere/cache')
    expect(defaultCacheDir(root, { [CACHE_DIR_ENV]: 'my-cache' })).toBe(join(root, 'my-cache'))
  })
})
