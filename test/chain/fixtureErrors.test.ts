/**
 * A malformed fixture file is refused with a `FixtureError` that names the fixture, the file and
 * what is wrong, whatever the malformation; through the command line too (exit 1, one line).
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { FixtureError, loadFixture } from '../../src/chain/loading/loadFixture.ts'

const GOOD = JSON.parse(readFileSync(new URL('../../fixtures/ethereum/genesis.json', import.meta.url), 'utf8')) as Record<string, unknown>
const CONFIG = GOOD.config as Record<string, unknown>
const BIN = fileURLToPath(new URL('../../bin/gateway-double.js', import.meta.url))
const dirs: string[] = []

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gd-fixture-'))
  dirs.push(dir)
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

async function refusal(files: Record<string, string>): Promise<{ message: string; dir: string }> {
  const dir = folder(files)
  const err = await loadFixture(dir, { name: 'mynet', cache: false }).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(FixtureError)
  return { message: (err as Error).message, dir }
}

describe('genesis.json', () => {
  const cases: [string, unknown, string][] = [
    ['an array', [], 'must be a geth genesis (a JSON object with config and alloc), got an array'],
    ['an empty object', {}, 'config: must be an object (the chain id and fork schedule), got nothing'],
    ['a string', 'x', 'must be a geth genesis (a JSON object with config and alloc), got a string "x"'],
    ['null', null, 'must be a geth genesis (a JSON object with config and alloc), got null'],
    ['no config', { ...GOOD, config: undefined }, 'config: must be an object (the chain id and fork schedule), got nothing'],
    ['config an array', { ...GOOD, config: [] }, 'config: must be an object (the chain id and fork schedule), got an array'],
    ['no chain id', { ...GOOD, config: { ...CONFIG, chainId: undefined } }, 'config.chainId: must be a positive integer, got nothing'],
    ['a negative chain id', { ...GOOD, config: { ...CONFIG, chainId: -1 } }, 'config.chainId: must be a positive integer, got number -1'],
    ['a fork time that is text', { ...GOOD, config: { ...CONFIG, cancunTime: 'soon' } }, 'config.cancunTime: must be a number (a block number or a timestamp), got a string "soon"'],
    ['no alloc', { ...GOOD, alloc: undefined }, 'alloc: must be an object of accounts by address, got nothing'],
    ['alloc an array', { ...GOOD, alloc: [] }, 'alloc: must be an object of accounts by address, got an array'],
    ['an alloc key that is no address', { ...GOOD, alloc: { zz: {} } }, 'alloc: "zz" is not an address'],
    ['an account that is no object', { ...GOOD, alloc: { '0x0000000000000000000000000000000000000001': 5 } }, 'alloc.0x0000000000000000000000000000000000000001: must be an object (balance, nonce, code, storage), got number 5'],
    ['a header field that is an object', { ...GOOD, number: {} }, 'number: must be a hex string, got an object'],
    ['a balance EthereumJS cannot read', { ...GOOD, alloc: { '0x0000000000000000000000000000000000000001': { balance: 'lots' } } }, 'Cannot convert lots to a BigInt'],
    ['a gas limit EthereumJS cannot read', { ...GOOD, gasLimit: 'x' }, 'A string must be provided with a 0x-prefix, given: x'],
  ]
  it.each(cases)('%s: refused naming the fixture, the file and the field', async (_, genesis, problem) => {
    const { message, dir } = await refusal({ 'genesis.json': JSON.stringify(genesis) })
    expect(message).toBe(`fixture mynet: ${join(dir, 'genesis.json')}: ${problem}`)
  })

  it('not JSON, or missing', async () => {
    const bad = await refusal({ 'genesis.json': '{"config":' })
    expect(bad.message).toMatch(/^fixture mynet: .*\/genesis\.json is not valid JSON \(/)
    const missing = await refusal({})
    expect(missing.message).toBe(`fixture mynet: cannot read ${join(missing.dir, 'genesis.json')}`)
  })
})

describe('forkchoice.json and headfcu.json', () => {
  const genesis = JSON.stringify(GOOD)
  const cases: [string, string, string, string][] = [
    ['forkchoice.json', '[]', 'forkchoice.json', 'must be an object like {"safe": 5, "finalized": 4}, got an array'],
    ['forkchoice.json', '"x"', 'forkchoice.json', 'must be an object like {"safe": 5, "finalized": 4}, got a string "x"'],
    ['forkchoice.json', '{"safe":true}', 'forkchoice.json', 'safe: must be a block number or hash, got boolean true'],
    ['forkchoice.json', '{"safe":-1}', 'forkchoice.json', 'safe: must be a block number of at least 0 or a block hash, got -1'],
    ['forkchoice.json', '{"finalized":1.5}', 'forkchoice.json', 'finalized: must be a block number of at least 0 or a block hash, got 1.5'],
    ['forkchoice.json', '{"head":1}', 'forkchoice.json', 'head: unknown field (allowed: safe, finalized)'],
    ['headfcu.json', 'null', 'headfcu.json', 'must be an engine_forkchoiceUpdated request, got null'],
    ['headfcu.json', '{"params":5}', 'headfcu.json', 'params: must be an array, got number 5'],
    ['headfcu.json', '{"params":[null]}', 'headfcu.json', 'params[0]: must be an object (the forkchoice state), got null'],
    ['headfcu.json', '{"params":[{"safeBlockHash":5}]}', 'headfcu.json', 'params[0].safeBlockHash: must be a block hash, got number 5'],
  ]
  it.each(cases)('%s of %s: refused naming the file', async (file, text, named, problem) => {
    const { message, dir } = await refusal({ 'genesis.json': genesis, [file]: text })
    expect(message).toBe(`fixture mynet: ${join(dir, named)}: ${problem}`)
  })
})

describe('the command line', () => {
  it('exits 1 with one line naming the fixture and the file', async () => {
    const dir = folder({ 'genesis.json': '[]' })
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(process.execPath, [BIN, '--port', '0', '--fixture', `mynet=${dir}`], (err, _stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr })
      })
    })
    expect(code).toBe(1)
    expect(stderr.trim().split('\n')).toHaveLength(1)
    expect(stderr).toContain(`fixture mynet: ${join(dir, 'genesis.json')}: must be a geth genesis (a JSON object with config and alloc), got an array`)
  })
})
