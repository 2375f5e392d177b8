/**
 * The control facet's parts, each made alone with only the gateway state it needs (as
 * `createControl` makes them): what each changes, and that a refused input changes nothing.
 * Through the wire, the same controls are pinned by test/http/control.test.ts.
 */
import { DEFAULT_CONTROL_LIMITS } from '../../../src/gateway/controlLimits.ts'
import { describe, expect, it } from 'vitest'
import type { Chain } from '../../../src/chain/chain.ts'
import { createControllableClock } from '../../../src/gateway/clock.ts'
import { parseKeys } from '../../../src/gateway/config.ts'
import type { KeySettings } from '../../../src/gateway/config.ts'
import { createClockControls } from '../../../src/gateway/control/clockControls.ts'
import { createFaultControls } from '../../../src/gateway/control/faultControls.ts'
import { createKeyControls } from '../../../src/gateway/control/keyControls.ts'
import { createLogControls } from '../../../src/gateway/control/logControls.ts'
import { createNetworkControls } from '../../../src/gateway/control/networkControls.ts'
import { silentLogger } from '../../../src/gateway/backend.ts'
import { IntervalMining } from '../../../src/gateway/intervalMining.ts'
import { createSnapshotControls } from '../../../src/gateway/control/snapshotControls.ts'
import { ChainFeatureMissingError, ControlInputError, ControlNotFoundError } from '../../../src/gateway/controlError.ts'
import { CreditLedger } from '../../../src/gateway/credits.ts'
import { FaultBook } from '../../../src/gateway/faults.ts'
import type { Network } from '../../../src/gateway/request.ts'
import { RequestLog } from '../../../src/gateway/requestLog.ts'
import { FakeControllableChain } from '../controllableChain.ts'

const KEY = '0123456789abcdef0123456789abcdef'
const MIDNIGHT = Date.parse('2025-01-01T00:00:00Z')

function state() {
  let now = MIDNIGHT
  const clock = createControllableClock({ now: () => now })
  const chain = new FakeControllableChain('ethereum', 1n, 3n)
  const networks = new Map<string, Network>([['ethereum', { name: 'ethereum', host: 'ethereum-mainnet.localhost', chain: chain as unknown as Chain }]])
  const keys = new Map<string, KeySettings>(parseKeys([{ key: KEY, networks: ['ethereum'], dailyCredits: 1000 }], networks.keys()).map((k) => [k.key, k]))
  const ledger = new CreditLedger(clock)
  return { clock, chain, networks, keys, ledger, log: new RequestLog(), faults: new FaultBook(), intervals: new IntervalMining(silentLogger), serviceHost: 'localhost', limits: DEFAULT_CONTROL_LIMITS, tick: (ms: number) => (now += ms) }
}

describe('control parts, each alone', () => {
  it('clock: sets and advances the gateway clock over its base; a refused input moves nothing; reset', () => {
    const s = state()
    const controls = createClockControls(s)
    expect(controls.setClock({ time: '2025-06-01T00:00:00Z', advanceSeconds: 60 }).now).toBe('2025-06-01T00:01:00.000Z')
    s.tick(1000)
    expect(controls.clock().now).toBe('2025-06-01T00:01:01.000Z')
    expect(() => controls.setClock({ time: '2025-06-01T00:00:00' })).toThrow(ControlInputError)
    expect(() => controls.setClock({ advanceSeconds: 1e15 })).toThrow(/advanceSeconds/)
    expect(controls.clock().now).toBe('2025-06-01T00:01:01.000Z')
    expect(controls.resetClock().offsetMs).toBe(0)
  })

  it('keys: sets today’s credits and a network’s access, each key by name; an unknown key is a 404', () => {
    const s = state()
    const controls = createKeyControls(s)
    expect(controls.setCredits(KEY, 7).remaining).toBe(7)
    expect(s.ledger.balance(s.keys.get(KEY)!)).toBe(7)
    expect(controls.setNetworkEnabled(KEY, 'ethereum', false).networks).toEqual([])
    expect(() => controls.setCredits(KEY, -1)).toThrow(/remaining: must be an integer of at least 0, got -1/)
    expect(() => controls.key('nope')).toThrow(ControlNotFoundError)
    expect(controls.addKeys([{ key: 'k2', networks: ['ethereum'] }]).map((k) => k.key)).toEqual(['k2'])
    expect(() => controls.addKeys([{ key: 'k2', networks: ['ethereum'] }])).toThrow(/keys\[0\]\.key: duplicate key/)
  })

  it('snapshots: a restore puts back the chain, the credits spent, the keys and the log position', async () => {
    const s = state()
    const controls = createSnapshotControls(s)
    const snap = await controls.snapshot()
    await s.chain.mine()
    s.ledger.charge(s.keys.get(KEY)!, 100)
    s.keys.delete(KEY)
    expect(s.chain.head.number).toBe(4n)
    await controls.restore(snap.id)
    expect(s.chain.head.number).toBe(3n)
    expect(s.ledger.balance(s.keys.get(KEY)!)).toBe(1000)
    expect(() => controls.deleteSnapshot('99')).toThrow(ControlNotFoundError)
  })

  it('networks: forks a network for the keys that have its source; a chain without a feature is a 501', async () => {
    const s = state()
    const controls = createNetworkControls(s)
    const forked = await controls.fork({ name: 'ethereum-w1', from: 'ethereum' })
    expect(forked).toMatchObject({ name: 'ethereum-w1', host: 'ethereum-w1-mainnet.localhost', headNumber: 3 })
    expect([...s.keys.get(KEY)!.networks]).toEqual(['ethereum', 'ethereum-w1'])
    expect((await controls.mine('ethereum-w1')).number).toBe(4)
    s.networks.set('plain', { name: 'plain', host: 'plain-mainnet.localhost', chain: { chainId: 1n, head: { number: 0n } } as unknown as Chain })
    await expect(controls.mine('plain')).rejects.toThrow(ChainFeatureMissingError)
  })

  it('log and faults: read after a seq, clear; a fault on an unknown network is a 404, one removed is gone', () => {
    const s = state()
    const log = createLogControls(s)
    expect(log.requestLog()).toEqual([])
    expect(() => log.requestLog({ since: -1 })).toThrow(/since: must be an integer of at least 0/)
    const faults = createFaultControls(s)
    expect(() => faults.addFault({ kind: 'drop', network: 'optimism' })).toThrow(ControlNotFoundError)
    const fault = faults.addFault({ kind: 'drop', network: 'ethereum', times: 1 })
    expect(faults.faults().map((f) => f.id)).toEqual([fault.id])
    faults.removeFault(fault.id)
    expect(faults.faults()).toEqual([])
    expect(() => faults.removeFault(fault.id)).toThrow(ControlNotFoundError)
  })
})
