/**
 * `npm run bench -- --profile` (bench/profile.ts): the bench's server profiled over IPC while a
 * tiny eth_blockNumber row loads it, the profile written, read back and summarised as the bench
 * prints it. No figure is judged (speed lives in the bench): the summary's shape is, and a profile
 * that is empty or broken must be refused, not summarised into a table of nothing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BENCH_FIXTURE, BENCH_NETWORK, ROOT } from '../../bench/fixture.ts'
import { GatewayChild } from '../../bench/gatewayChild.ts'
import { runLoad } from '../../bench/load.ts'
import type { Endpoint } from '../../bench/processes.ts'
import { stopAll } from '../../bench/processes.ts'
import type { CpuProfile } from '../../bench/profile.ts'
import { checkProfile, formatProfileSummary, readProfile, summariseProfiles } from '../../bench/profile.ts'

const KEY = 'bec4bec4bec4bec4bec4bec4bec4bec4'
const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })

describe('bench --profile: the server profiled during a row, summarised', () => {
  let dir: string
  let server: GatewayChild
  let file: string
  let answered: number

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-double-profile-test-'))
    const config = join(dir, 'config.json')
    writeFileSync(config, JSON.stringify({ serviceHost: 'localhost', networks: { [BENCH_NETWORK]: { fixture: BENCH_FIXTURE } }, keys: [{ key: KEY, networks: [BENCH_NETWORK], dailyCredits: 1e15 }] }))
    server = await GatewayChild.start(config)
    const endpoint: Endpoint = { name: 'gateway-double', port: server.port, path: `/v3/${KEY}`, host: `${BENCH_NETWORK}-mainnet.localhost` }
    file = join(dir, 'eth_blockNumber.round1.cpuprofile')
    await server.profileStart()
    const load = await runLoad(endpoint, () => BODY, { durationMs: 400, concurrency: 2 })
    await server.profileStop(file)
    answered = load.answered
    expect(load.ok).toBe(load.answered)
  })
  afterAll(async () => {
    await stopAll()
    rmSync(dir, { recursive: true, force: true })
  })

  it('writes DevTools JSON: nodes with call frames, samples of those nodes, time deltas', () => {
    const json = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
    expect(json.nodes.length).toBeGreaterThan(1)
    expect(json.nodes[0]!.callFrame).toMatchObject({ functionName: '(root)' })
    expect(json.samples.length).toBeGreaterThan(0)
    expect(json.timeDeltas.length).toBe(json.samples.length)
    expect(json.endTime).toBeGreaterThan(json.startTime)
  })

  it('summarises the row: shares that add up, time per request, the server code named by its module', () => {
    const s = summariseProfiles([readProfile(file)], answered, ROOT)
    expect(s.operations).toBe(answered)
    expect(s.functions.length).toBeGreaterThan(12)
    const shares = s.functions.reduce((n, f) => n + f.share, 0) + s.gc + s.program + s.idle
    expect(shares).toBeCloseTo(1, 6)
    expect(s.functions.reduce((n, f) => n + f.selfUs, 0) / 1000).toBeLessThanOrEqual(s.sampledMs)
    for (const f of s.functions) expect(f.usPerOperation).toBeCloseTo(f.selfUs / answered, 9)
    // Sorted by self time; the request path's own modules found in the build by esbuild's comments.
    expect(s.functions.map((f) => f.selfUs)).toEqual([...s.functions.map((f) => f.selfUs)].sort((a, b) => b - a))
    expect(s.functions.some((f) => /^src\/\S+\.ts \(dist\/\S+\.js:\d+\)$/.test(f.where))).toBe(true)

    const printed = formatProfileSummary('eth_blockNumber', s, [file]).split('\n')
    expect(printed[0]).toMatch(/^eth_blockNumber: 1 profiled round, [\d,]+ ms sampled \([\d,]+ samples\), [\d,]+ reqs answered: busy [\d.]+% = [\d.]+ us\/req, GC [\d.]+% .*\(idle\) [\d.]+%$/)
    expect(printed[1]).toMatch(/self +us\/req +function +where/)
    const functionLines = printed.slice(2, -1)
    expect(functionLines).toHaveLength(13) // the top 12, then the others summed
    for (const line of functionLines.slice(0, 12)) expect(line).toMatch(/^ +[\d.]+% +[\d.]+ {2}\S.* {2}\S/)
    expect(functionLines[12]).toMatch(/^ +[\d.]+% +[\d.]+ {2}\(\d+ other functions\)$/)
    const printedShare = functionLines.reduce((n, line) => n + Number(/([\d.]+)%/.exec(line)![1]), 0)
    expect(printedShare).toBeCloseTo((1 - s.gc - s.program - s.idle) * 100, 0)
    expect(printed.at(-1)).toBe(`  files: ${file}`)
  })

  it('refuses a profile that is empty, truncated or names nodes it does not hold', () => {
    const good = readProfile(file)
    expect(() => summariseProfiles([], answered, ROOT)).toThrow(/no profile/)
    expect(() => summariseProfiles([{ ...good, samples: [], timeDeltas: [] }], answered, ROOT)).toThrow('profile 1: no sample')
    expect(() => summariseProfiles([{ ...good, samples: [...good.samples.slice(1), 1e9] }], answered, ROOT)).toThrow(/not in its nodes/)
    expect(() => summariseProfiles([{ ...good, timeDeltas: good.timeDeltas.slice(1) }], answered, ROOT)).toThrow(/time deltas/)
    expect(() => checkProfile({ nodes: [] }, 'x')).toThrow(/not a CPU profile/)
    const truncated = join(dir, 'truncated.cpuprofile')
    writeFileSync(truncated, readFileSync(file, 'utf8').slice(0, 200))
    expect(() => readProfile(truncated)).toThrow()
  })
})
