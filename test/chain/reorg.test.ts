/**
 * `Chain.reorg` from the library side: the replaced blocks gone from every lookup, the new branch
 * read as any block, the replaced transactions re-included, returned to the pool or dropped, the
 * tags never moving back, the events in order, and refusals that change nothing.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bytesToUtf8, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Chain, ChainSnapshot } from '../../src/chain/chain.ts'
import type { ChainEvent } from '../../src/chain/events/chainEvents.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { ReorgError } from '../../src/chain/mining/reorg.ts'
import { account, signed1559 } from './txSigning.ts'

const FIXTURE = new URL('../../fixtures/ethereum', import.meta.url).pathname
const COUNTER = '0x00000000000000000000000000000000c0c0c0c0'
const INCREMENT = '0xd09de08a'

async function counterAt(chain: Chain, n: bigint): Promise<bigint> {
  const state = await chain.stateAt(chain.byNumber(n)!)
  const word = await state.getStorage(createAddressFromString(COUNTER), new Uint8Array(32))
  return word.length === 0 ? 0n : BigInt(`0x${Buffer.from(word).toString('hex')}`)
}

function rawIncrement(chain: Chain, from: string, nonce: bigint): Uint8Array {
  return hexToBytes(signed1559(chain, from, { to: COUNTER, data: INCREMENT, gasLimit: 100_000n, nonce }) as `0x${string}`)
}

async function send(chain: Chain, from: string): Promise<string> {
  return chain.sendRawTransaction(rawIncrement(chain, from, await chain.pendingNonce(account(from).address)))
}

async function refusal(promise: Promise<unknown>): Promise<ReorgError> {
  const err = await promise.then(
    () => expect.unreachable('the reorg was made'),
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(ReorgError)
  return err as ReorgError
}

describe('a reorg on the default fixture (safe one block behind the head)', () => {
  let chain: Chain
  let start: ChainSnapshot
  beforeAll(async () => {
    chain = await loadFixture(FIXTURE, { name: 'ethereum', clock: { now: () => 0 }, miningMode: 'manual' })
    start = chain.snapshot()
  })
  beforeEach(() => chain.restore(start))

  it('replaces the head with a block of the same transactions: a new hash, every lookup moved to it', async () => {
    const hash = await send(chain, 'bob')
    const old = await chain.mine()
    const seen: ChainEvent[] = []
    const stop = chain.events.listen((e) => seen.push(e))
    const result = await chain.reorg({ depth: 1 }).finally(stop)
    const now = chain.head
    expect(now.number).toBe(old.number)
    expect(now.hash).not.toBe(old.hash)
    // The clock is frozen: same time, same transactions; the extra data tells the branch apart.
    expect(now.timestamp).toBe(old.timestamp)
    expect(bytesToUtf8(now.block.header.extraData)).toBe('gateway-double reorg 1')
    expect(now.transactions.map((t) => t.hash)).toEqual([hash])
    expect(chain.byHash(old.hash)).toBeUndefined()
    expect(chain.byNumber(old.number)).toBe(now)
    expect(chain.transactionByHash(hash)).toEqual({ record: now, index: 0 })
    expect(now.receipts[0]!.blockHash).toBe(now.hash)
    expect(chain.pending).toEqual([])
    expect(result).toMatchObject({ removed: [old], added: [now], pooled: [], dropped: [] })
    expect(seen.map((e) => e.type)).toEqual(['blocksRemoved', 'blockAdded'])
    expect(seen[0]).toMatchObject({ records: [old], ancestor: chain.byNumber(old.number - 1n), head: now, cause: 'reorg' })
    expect(await counterAt(chain, now.number)).toBe(await counterAt(chain, now.number - 1n) + 1n)
  })

  it('refuses to replace a safe block, and other bad options, changing nothing', async () => {
    const head = chain.head
    expect(await refusal(chain.reorg({ depth: 2 }))).toMatchObject({
      field: 'depth',
      message: `must be an integer from 1 to 1 (head ${head.number}, safe ${chain.safeNumber}: a reorg never replaces a safe or finalized block), got 2`,
    })
    expect((await refusal(chain.reorg({ depth: 0 }))).field).toBe('depth')
    expect((await refusal(chain.reorg({ depth: 1.5 }))).field).toBe('depth')
    expect(await refusal(chain.reorg({ depth: 1, length: 0 }))).toMatchObject({ field: 'length', message: 'must be an integer from 1 to 1024, got 0' })
    expect((await refusal(chain.reorg({ depth: 1, length: 1025 }))).field).toBe('length')
    expect(await refusal(chain.reorg({ depth: 1, drop: [`0x${'ab'.repeat(32)}`] }))).toMatchObject({ field: 'drop[0]' })
    expect(await refusal(chain.reorg({ depth: 1, transactions: [[], []] }))).toMatchObject({ field: 'transactions', message: "gives 2 blocks, more than the branch's 1" })
    expect(await refusal(chain.reorg({ depth: 1, transactions: [[new Uint8Array([1, 2, 3])]] }))).toMatchObject({ field: 'transactions[0][0]' })
    expect(chain.head).toBe(head)
  })
})

describe('deeper reorgs (a copy of the fixture with safe 2 blocks and finalized 1)', () => {
  let dir: string
  let chain: Chain
  let start: ChainSnapshot
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gd-reorg-'))
    cpSync(FIXTURE, dir, { recursive: true })
    writeFileSync(join(dir, 'forkchoice.json'), JSON.stringify({ safe: 2, finalized: 1 }))
    chain = await loadFixture(dir, { name: 'deep', clock: { now: () => 0 }, miningMode: 'manual', cache: false })
    start = chain.snapshot()
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  beforeEach(() => chain.restore(start))

  it('empty blocks, fewer than replaced: the receipts are gone, the transactions pending again, the state as at the ancestor', async () => {
    const a = await send(chain, 'bob')
    await chain.mine()
    const b = await send(chain, 'carol')
    const c = await send(chain, 'bob')
    await chain.mine()
    const ancestor = chain.byNumber(chain.head.number - 2n)!
    const pooled: string[] = []
    const stop = chain.events.listen((e) => {
      if (e.type === 'transactionPooled') pooled.push(e.transaction.hash)
    })
    const result = await chain.reorg({ depth: 2, length: 1, transactions: 'empty' }).finally(stop)
    expect(chain.head.number).toBe(ancestor.number + 1n)
    expect(chain.head.transactions).toEqual([])
    for (const h of [a, b, c]) {
      expect(chain.transactionByHash(h)).toBeUndefined()
      expect(chain.pendingByHash(h)).toBeDefined()
    }
    expect(pooled).toEqual([a, b, c])
    expect(result.pooled.map((p) => p.hash)).toEqual([a, b, c])
    expect(await counterAt(chain, chain.head.number)).toBe(await counterAt(chain, ancestor.number))
    // Mined again, they run in a new block.
    const again = await chain.mine()
    expect(new Set(again.transactions.map((t) => t.hash))).toEqual(new Set([a, b, c]))
  })

  it('the same transactions minus a dropped one: its sender’s later one cannot run and waits in the pool; the dropped one is gone', async () => {
    const first = await send(chain, 'dave')
    const other = await send(chain, 'erin')
    await chain.mine()
    const second = await send(chain, 'dave')
    await chain.mine()
    const result = await chain.reorg({ depth: 2, drop: [first] })
    expect(result.dropped).toEqual([first])
    expect(chain.transactionByHash(other)).toBeDefined()
    expect(chain.transactionByHash(first)).toBeUndefined()
    expect(chain.pendingByHash(first)).toBeUndefined()
    expect(chain.transactionByHash(second)).toBeUndefined()
    expect(chain.pendingByHash(second)).toBeDefined()
    expect(result.pooled.map((p) => p.hash)).toEqual([second])
    expect(chain.head.transactions).toEqual([])
    expect(chain.byNumber(chain.head.number - 1n)!.transactions.map((t) => t.hash)).toEqual([other])
  })

  it('given raw transactions, block by block; a longer branch moves safe and finalized on, never back', async () => {
    const replaced = await send(chain, 'bob')
    await chain.mine()
    const safe = chain.safeNumber
    const finalized = chain.finalizedNumber
    const ancestor = chain.byNumber(chain.head.number - 1n)!
    const erinNonce = await chain.pendingNonce(account('erin').address)
    const given = [rawIncrement(chain, 'erin', erinNonce), rawIncrement(chain, 'erin', erinNonce + 1n)]
    await chain.reorg({ depth: 1, length: 3, transactions: [[given[0]!], [], [given[1]!]] })
    expect(chain.head.number).toBe(ancestor.number + 3n)
    expect(chain.byNumber(ancestor.number + 1n)!.transactions).toHaveLength(1)
    expect(chain.byNumber(ancestor.number + 2n)!.transactions).toHaveLength(0)
    expect(chain.head.transactions).toHaveLength(1)
    expect(chain.pendingByHash(replaced)).toBeDefined()
    expect(chain.safeNumber).toBe(safe + 2n)
    expect(chain.finalizedNumber).toBe(finalized + 2n)
    expect(await counterAt(chain, chain.head.number)).toBe(await counterAt(chain, ancestor.number) + 2n)
  })

  it('refuses a given transaction that cannot run, naming it, and leaves the chain as it was', async () => {
    await send(chain, 'bob')
    const head = await chain.mine()
    const stale = rawIncrement(chain, 'erin', 0n)
    expect(await refusal(chain.reorg({ depth: 1, transactions: [[stale]] }))).toMatchObject({ field: 'transactions[0][0]', message: expect.stringContaining('nonce') })
    expect(chain.head).toBe(head)
    expect(await counterAt(chain, head.number)).toBe(await counterAt(chain, head.number - 1n) + 1n)
    // The chain mines on as before.
    await send(chain, 'carol')
    expect((await chain.mine()).number).toBe(head.number + 1n)
  })
})
