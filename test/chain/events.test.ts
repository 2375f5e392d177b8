/**
 * A chain's events (src/chain/events/): what mining, sending and restoring tell listeners, in
 * which order, with the chain already changed; a listener that throws stops nothing.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Chain } from '../../src/chain/chain.ts'
import type { ChainSnapshot } from '../../src/chain/snapshot.ts'
import type { ChainEvent } from '../../src/chain/events/chainEvents.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { hexToBytes } from '@ethereumjs/util'
import { account, signed1559 } from './txSigning.ts'
import { PRUNE_EVERY, STATE_HISTORY } from '../../src/chain/store/stateHistory.ts'

const FIXTURE = new URL('../../fixtures/ethereum', import.meta.url).pathname
const COUNTER = '0x00000000000000000000000000000000c0c0c0c0'
const INCREMENT = '0xd09de08a'

/** What an event says, short. */
function summary(e: ChainEvent): string {
  switch (e.type) {
    case 'blockAdded':
      return `added ${e.record.number} (${e.cause})`
    case 'blocksRemoved':
      return `removed ${e.records.map((r) => r.number).join(',')} to ${e.ancestor.number} (${e.cause})`
    case 'transactionPooled':
      return `pooled ${e.transaction.hash.slice(0, 10)}`
  }
}

describe('chain events', () => {
  let chain: Chain
  let start: ChainSnapshot
  let nowMs = 0
  const send = (from: string, nonce: bigint) =>
    chain.sendRawTransaction(hexToBytes(signed1559(chain, from, { to: COUNTER, data: INCREMENT, gasLimit: 100_000n, nonce }) as `0x${string}`))

  beforeAll(async () => {
    chain = await loadFixture(FIXTURE, { name: 'ethereum', clock: { now: () => nowMs }, miningMode: 'manual' })
    start = chain.snapshot()
  })
  beforeEach(async () => {
    await chain.restore(start)
    chain.setMiningMode('manual')
    nowMs = Number(chain.head.timestamp + 100n) * 1000
  })

  it('tells nothing, and builds nothing, when nobody listens', async () => {
    expect(chain.events.listening).toBe(false)
    await chain.mine()
    expect(chain.events.listenerCount).toBe(0)
  })

  it('tells a sent transaction entering the pool, then the block that mined it, with the chain already changed', async () => {
    const seen: string[] = []
    const stop = chain.events.listen((e) => {
      seen.push(summary(e))
      if (e.type === 'blockAdded') {
        expect(chain.head).toBe(e.record)
        expect(chain.pending).toEqual([])
        expect(e.record.receipts[0]!.logs[0]!.address).toBe(COUNTER)
      }
      if (e.type === 'transactionPooled') expect(chain.pendingByHash(e.transaction.hash)).toBe(e.transaction)
    })
    try {
      const hash = await send('bob', await chain.pendingNonce(account('bob').address))
      const head = chain.head.number
      await chain.mine()
      expect(seen).toEqual([`pooled ${hash.slice(0, 10)}`, `added ${head + 1n} (mined)`])
    } finally {
      stop()
    }
  })

  it('tells an auto-mined send as pooled then added', async () => {
    chain.setMiningMode('auto')
    const seen: string[] = []
    const stop = chain.events.listen((e) => seen.push(e.type))
    try {
      await send('carol', await chain.pendingNonce(account('carol').address))
      expect(seen).toEqual(['transactionPooled', 'blockAdded'])
    } finally {
      stop()
    }
  })

  it('tells a restore to an earlier head as the blocks removed, oldest first, down to the restored head', async () => {
    const base = chain.head
    await chain.mine()
    await chain.mine()
    const seen: ChainEvent[] = []
    const stop = chain.events.listen((e) => seen.push(e))
    try {
      await chain.restore(start)
      expect(seen.map(summary)).toEqual([`removed ${base.number + 1n},${base.number + 2n} to ${base.number} (restore)`])
      const removed = seen[0] as Extract<ChainEvent, { type: 'blocksRemoved' }>
      expect(removed.ancestor).toBe(base)
      expect(removed.head).toBe(base)
      expect(chain.head).toBe(base)
      expect(chain.byHash(removed.records[0]!.hash)).toBeUndefined()
    } finally {
      stop()
    }
  })

  it('tells a restore to a later head as the removed blocks, then each block it brings back, and its pool', async () => {
    const base = chain.head.number
    await chain.mine()
    const hash = await send('dave', await chain.pendingNonce(account('dave').address))
    const later = chain.snapshot()
    await chain.restore(start)
    nowMs += 5000
    await chain.mine()
    const seen: string[] = []
    const stop = chain.events.listen((e) => seen.push(summary(e)))
    try {
      await chain.restore(later)
      expect(seen).toEqual([`removed ${base + 1n} to ${base} (restore)`, `added ${base + 1n} (restore)`, `pooled ${hash.slice(0, 10)}`])
    } finally {
      stop()
    }
  })

  it('goes on when a listener throws: the change is made, the other listeners hear it, the thrower’s onError is told', async () => {
    const errors: unknown[] = []
    const heard: string[] = []
    const stopThrower = chain.events.listen(
      () => {
        throw new Error('listener bug')
      },
      { onError: (err) => errors.push(err) },
    )
    const stopQuiet = chain.events.listen(() => {
      throw new Error('no handler')
    })
    const stopOther = chain.events.listen((e) => heard.push(e.type))
    try {
      const before = chain.head.number
      const mined = await chain.mine()
      expect(mined.number).toBe(before + 1n)
      expect(heard).toEqual(['blockAdded'])
      expect(errors).toEqual([new Error('listener bug')])
    } finally {
      stopThrower()
      stopQuiet()
      stopOther()
    }
    expect(chain.events.listening).toBe(false)
  })

  it('stops telling a listener once it stops (twice is harmless), and a listener added during an event hears the next one', async () => {
    const heard: string[] = []
    let late: (() => void) | undefined
    const stop = chain.events.listen(() => {
      heard.push('first')
      late ??= chain.events.listen(() => heard.push('late'))
    })
    await chain.mine()
    expect(heard).toEqual(['first'])
    await chain.mine()
    expect(heard).toEqual(['first', 'first', 'late'])
    stop()
    stop()
    late!()
    await chain.mine()
    expect(heard).toHaveLength(3)
  })

  it('tells a mined block before the pruning it brings: an old state goes after the event, never before it', async () => {
    await chain.mine()
    const first = chain.head
    const store = (chain as unknown as { store: { stateRootOf(record: unknown): Uint8Array } }).store
    const readable = () => {
      try {
        store.stateRootOf(first)
        return true
      } catch {
        return false
      }
    }
    const atEvent: boolean[] = []
    const afterMine: boolean[] = []
    const stop = chain.events.listen((e) => {
      if (e.type === 'blockAdded') atEvent.push(readable())
    })
    try {
      for (let i = 0; i < STATE_HISTORY + 2 * PRUNE_EVERY; i++) {
        await chain.mine()
        afterMine.push(readable())
      }
    } finally {
      stop()
    }
    // The block whose mining pruned the first block's state: still readable at its event.
    const pruning = afterMine.indexOf(false)
    expect(pruning).toBeGreaterThan(0)
    expect(atEvent[pruning]).toBe(true)
    // Nothing is pruned between two blocks: each event sees what the last mine left.
    for (let i = 1; i < atEvent.length; i++) expect(atEvent[i]).toBe(afterMine[i - 1])
  })

  it('gives a fork its own events', async () => {
    const fork = await chain.fork('ethereum-events')
    const heard: string[] = []
    const stop = chain.events.listen(() => heard.push('source'))
    try {
      await fork.mine()
      expect(heard).toEqual([])
      expect(fork.events).not.toBe(chain.events)
    } finally {
      stop()
    }
  })
})
