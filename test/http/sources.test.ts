/**
 * A scenario source wherever a fixture folder goes: a config file's `fixture` read by
 * `startServer({ config })` and by the vitest globalSetup, and the CLI's `--fixture`. Served, a
 * chain names its contracts as its accounts.json does (the banner, `server.networks`, the control
 * API's network); a path that names nothing is said to be missing.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { startServer } from '../../src/http/server.ts'
import { createGlobalSetup } from '../../src/testing/vitest.ts'
import type { GatewayDoubleContext } from '../../src/testing/vitest.ts'
import { send } from '../support/wire.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const BIN = join(ROOT, 'bin', 'gateway-double.js')
const VAULT = join(ROOT, 'fixtures', 'sources', 'examples', 'vault.scenario.json')
const DEV_KEY = 'deadbeefdeadbeefdeadbeefdeadbeef'
/** Where the builder deploys the example's Vault (alice's first transaction). */
const VAULT_ADDRESS = '0x7d4c351edf255f0d4532fe1eb8f7b7c5eefcb105'

function configFile(networks: Record<string, { fixture: string }>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gd-sources-'))
  const file = join(dir, 'gateway.json')
  writeFileSync(file, JSON.stringify({ networks, keys: [{ key: DEV_KEY, networks: Object.keys(networks) }] }))
  return file
}

function runBin(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

describe('a scenario source as a fixture', () => {
  it('a config file naming a source, through the vitest globalSetup (startServer({ config })): built, served, its contracts named', async () => {
    const config = configFile({ vault: { fixture: VAULT }, ethereum: { fixture: join(ROOT, 'fixtures', 'ethereum') } })
    let provided: GatewayDoubleContext | undefined
    const project = { config: { maxWorkers: 1 }, provide: (_key: string, value: GatewayDoubleContext) => (provided = value) }
    const teardown = await createGlobalSetup({ config, control: true })(project as never)
    try {
      const vault = provided!.networks.find((n) => n.name === 'vault')!
      expect(vault).toMatchObject({ chainId: '1', headNumber: '21000002', contracts: { vault: VAULT_ADDRESS } })
      // Folders name theirs too, from their accounts.json.
      expect(provided!.networks.find((n) => n.name === 'ethereum')!.contracts).toMatchObject({
        token: '0x7d4c351edf255f0d4532fe1eb8f7b7c5eefcb105',
        reverter: '0x7a1ed59eb13421e5838bb1bc284cf07d410cf689',
      })
      const origin = provided!.origin
      const code = await send(origin, `/v3/${DEV_KEY}`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getCode', params: [VAULT_ADDRESS, 'latest'] }), {
        host: 'vault-mainnet.localhost',
      })
      expect((JSON.parse(code.text) as { result: string }).result).toMatch(/^0x6080/)
      const info = await send(origin, '/_double/networks/vault', undefined, { method: 'GET' })
      expect(JSON.parse(info.text)).toMatchObject({ name: 'vault', headNumber: 21000002, contracts: { vault: VAULT_ADDRESS } })
    } finally {
      await teardown()
    }
  })

  it('the CLI serves a source given by --fixture and prints its contracts', async () => {
    const server = execFile(process.execPath, [BIN, '--port', '0', '--config', configFile({ polygon: { fixture: join(ROOT, 'fixtures', 'polygon') } }), '--fixture', `vault=${VAULT}`])
    try {
      const banner = await new Promise<string>((resolve, reject) => {
        let out = ''
        server.stdout!.on('data', (d: Buffer) => {
          out += d.toString()
          if (out.includes('Press Ctrl+C to stop.')) resolve(out)
        })
        server.on('exit', (code) => reject(new Error(`exited (${code}): ${out}`)))
      })
      expect(banner).toContain(`Contracts (from accounts.json):\n`)
      expect(banner).toMatch(new RegExp(`\\n {2}vault +vault +${VAULT_ADDRESS}\\n`))
    } finally {
      server.kill('SIGTERM')
    }
  })

  it('a path that names nothing is said to be missing, for sources and folders alike', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gd-missing-'))
    const missing = join(dir, 'bank.scenario.json')
    await expect(startServer({ port: 0, config: configFile({ bank: { fixture: missing } }) })).rejects.toThrow(`fixture bank: no such file or folder: ${missing}`)
    await expect(startServer({ port: 0, config: configFile({ bank: { fixture: join(dir, 'bank') } }) })).rejects.toThrow(`fixture bank: no such folder: ${join(dir, 'bank')}`)
    const genesis = join(ROOT, 'fixtures', 'ethereum', 'genesis.json')
    await expect(startServer({ port: 0, config: configFile({ eth: { fixture: genesis } }) })).rejects.toThrow(
      `fixture eth: ${genesis} is a file: expected a fixture folder (genesis.json, chain.rlp) or a source .json file`,
    )
    const rlp = join(ROOT, 'fixtures', 'ethereum', 'chain.rlp')
    await expect(startServer({ port: 0, config: configFile({ eth: { fixture: rlp } }) })).rejects.toThrow(`fixture eth: ${rlp} is a file, not a fixture folder`)
    const cli = await runBin(['--port', '0', '--fixture', 'bank=no/such/bank.scenario.json'])
    expect(cli.code).toBe(1)
    expect(cli.stderr).toBe(`gateway-double: fixture bank: no such file or folder: ${join(process.cwd(), 'no/such/bank.scenario.json')}\n`)
  })

  it('a malformed accounts.json is refused naming the file and field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gd-accounts-'))
    for (const f of ['genesis.json', 'chain.rlp', 'forkchoice.json']) writeFileSync(join(dir, f), readFileSync(join(ROOT, 'fixtures', 'base', f)))
    writeFileSync(join(dir, 'accounts.json'), JSON.stringify({ contracts: [{ name: 'x', address: '0x12' }] }))
    await expect(startServer({ port: 0, config: configFile({ base: { fixture: dir } }) })).rejects.toThrow(
      `fixture base: ${join(dir, 'accounts.json')}: contracts[0].address: must be a 20-byte hex address`,
    )
  })
})
