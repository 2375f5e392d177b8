/** The command line: flags, usage errors (exit 2, no stack), the start banner, the bin itself. */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { EXIT_USAGE, main, parseCliArgs, startBanner, USAGE, UsageError } from '../../src/cli.ts'
import { ethereumAccounts, ethereumContracts } from '../../src/fixtures/index.ts'
import { DEFAULT_CONFIG_PATH, loadConfigFile } from '../../src/gateway/config.ts'
import { startServer } from '../../src/http/server.ts'
import { CHAINS, DEV_KEY, fakeRpc, keys } from '../gateway/helpers.ts'
import { BIN, startCli } from '../support/cliProcess.ts'
import { postRpc } from '../support/wire.ts'
import { NEW_SPACE_CAP_BYTES } from '../../bin/youngGeneration.js'


function runBin(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

describe('parseCliArgs', () => {
  it('defaults to 127.0.0.1:8545', () => {
    expect(parseCliArgs([])).toEqual({ port: 8545, host: '127.0.0.1', config: undefined, fixtures: {}, forks: [], offline: false, help: false, version: false })
  })

  it('reads every flag; --fixture repeats', () => {
    expect(
      parseCliArgs(['--port', '0', '--host', '0.0.0.0', '--config', 'c.json', '--fixture', 'a=x/a', '--fixture=b=/y=b']),
    ).toMatchObject({ port: 0, host: '0.0.0.0', config: 'c.json', fixtures: { a: 'x/a', b: '/y=b' } })
    expect(parseCliArgs(['--network-ports', '9545'])).toMatchObject({ port: 8545, networkPorts: 9545 })
    expect(parseCliArgs(['--network-ports=0']).networkPorts).toBe(0)
    expect(() => parseCliArgs(['--network-ports', 'x'])).toThrow('--network-ports: expected a port number 0-65535, got "x"')
  })

  it('refuses bad flags with a UsageError', () => {
    for (const argv of [['--port', '70000'], ['--port', '-1'], ['--nope'], ['extra'], ['--fixture', '=x'], ['--fixture', 'a='], ['--fixture', 'a=1', '--fixture', 'a=2']]) {
      expect(() => parseCliArgs(argv), argv.join(' ')).toThrow(UsageError)
    }
  })

  it('main prints the error, returns 2', async () => {
    const err: string[] = []
    expect(await main(['--port', 'abc'], { stdout: () => {}, stderr: (t) => err.push(t) })).toBe(EXIT_USAGE)
    expect(err.join('')).toBe(`gateway-double: --port: expected a port number 0-65535, got "abc"\nTry 'gateway-double --help'.\n`)
  })

  it('a config error is a usage error naming the field', async () => {
    const err: string[] = []
    const code = await main(['--fixture', 'Bad=x'], { stdout: () => {}, stderr: (t) => err.push(t) })
    expect(code).toBe(EXIT_USAGE)
    expect(err.join('')).toMatch(/^gateway-double: --fixture Bad: network names are lowercase/)
  })
})

describe('start banner', () => {
  it('names each network with URL, chain id and head block, the dev key and a curl command', async () => {
    const server = await startServer({ chains: CHAINS, keys: keys(), rpc: fakeRpc(), port: 0 })
    try {
      const banner = startBanner(server)
      const p = server.port
      expect(banner).toContain(`listening on http://127.0.0.1:${p}`)
      expect(banner).toMatch(new RegExp(`ethereum +1 +21 \\(0x15\\) +http://ethereum-mainnet\\.localhost:${p}/v3/${DEV_KEY}`))
      expect(banner).toMatch(new RegExp(`polygon +137 +7 \\(0x7\\) +http://polygon-mainnet\\.localhost:${p}/v3/${DEV_KEY}`))
      expect(banner).toMatch(new RegExp(`base +8453 +3 \\(0x3\\) +http://base-mainnet\\.localhost:${p}/v3/${DEV_KEY}`))
      expect(banner).toContain(`Dev key: ${DEV_KEY}`)
      // The plain URL comes first: any client uses it as is (a Host naming no network is the first network).
      expect(banner.split('\n').slice(2, 4)).toEqual(['RPC URL (ethereum, chain id 1; any client, no Host needed):', `  http://127.0.0.1:${p}/v3/${DEV_KEY}`])
      expect(banner).toContain(`WebSocket: ws://127.0.0.1:${p}/ws/v3/${DEV_KEY}`)
      expect(banner).toContain(`curl -s http://127.0.0.1:${p}/v3/${DEV_KEY} -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}'`)
      expect(banner).toContain(`cast block-number --rpc-url http://127.0.0.1:${p}/v3/${DEV_KEY}\n`)
      expect(banner).toContain(
        `curl -s http://127.0.0.1:${p}/v3/${DEV_KEY} -H 'Host: ethereum-mainnet.localhost' -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}'`,
      )
    } finally {
      await server.close()
    }
  })

  it('on the default fixtures, lists ethereum’s accounts with their keys, marked as public test keys', async () => {
    const server = await startServer({ config: loadConfigFile(DEFAULT_CONFIG_PATH), port: 0 })
    try {
      const banner = startBanner(server)
      const rows = Object.entries(ethereumAccounts).map(([name, a]) => `  ${name.padEnd(5)}   ${a.address}   ${a.privateKey}`)
      expect(banner).toContain(['Accounts (ethereum; their keys also in gateway-double/fixtures):', ...rows, 'These private keys are public test keys: never use them, or send value to their addresses, on a real network.'].join('\n'))
      expect(rows).toHaveLength(5)
    } finally {
      await server.close()
    }
  })

  it('with per-network ports, lists each network’s own URL', async () => {
    const server = await startServer({ chains: CHAINS, keys: keys(), rpc: fakeRpc(), port: 0, networkPorts: 0 })
    try {
      const banner = startBanner(server)
      const [eth, pol, base] = server.networks.map((n) => n.port)
      expect(banner).toContain(
        [
          'Each also on a port of its own, any Host:',
          `  ethereum   http://127.0.0.1:${eth}/v3/${DEV_KEY}`,
          `  polygon    http://127.0.0.1:${pol}/v3/${DEV_KEY}`,
          `  base       http://127.0.0.1:${base}/v3/${DEV_KEY}`,
        ].join('\n'),
      )
    } finally {
      await server.close()
    }
    const plain = await startServer({ chains: CHAINS, keys: keys(), rpc: fakeRpc(), port: 0 })
    try {
      expect(startBanner(plain)).not.toMatch(/port of its own/)
    } finally {
      await plain.close()
    }
  })
})

describe('bin/gateway-double.js', () => {
  it('--help and --version exit 0', async () => {
    const help = await runBin(['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^Usage: gateway-double/)
    const version = await runBin(['--version'])
    expect(version).toMatchObject({ code: 0, stdout: '0.1.0\n' })
  })

  it('a bad flag exits 2 with one message and no stack', async () => {
    const res = await runBin(['--port', 'eighty'])
    expect(res.code).toBe(2)
    expect(res.stdout).toBe('')
    expect(res.stderr).toBe(`gateway-double: --port: expected a port number 0-65535, got "eighty"\nTry 'gateway-double --help'.\n`)
  })

  it('serves with V8\'s young generation bounded under a load of calls', async () => {
    // Told by a preload at exit: the new space's size (at most the bound; without the bin's
    // setting, V8 had doubled it to 16 MiB by then).
    const probe = join(mkdtempSync(join(tmpdir(), 'gateway-double-cli-')), 'newSpace.cjs')
    writeFileSync(probe, "process.on('exit', () => process.stderr.write(`new space ${require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size}\\n`))\n")
    const { child, origin, exited, stderr } = await startCli(['--port', '0'], ['--require', probe])
    const token = ethereumContracts.token.address
    const key = loadConfigFile(DEFAULT_CONFIG_PATH).keys[0]!.key
    let next = 0
    try {
      // The bench's distinct eth_call: the token's balanceOf of an address never asked before, 8 in flight.
      await Promise.all(Array.from({ length: 8 }, async () => {
        while (next < 400) {
          const who = (next++).toString(16).padStart(40, '0')
          expect((await postRpc(origin, key, { jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: token, data: `0x70a08231${who.padStart(64, '0')}` }, 'latest'] })).status).toBe(200)
        }
      }))
    } finally {
      // Stopped even when a call failed: a server left running outlives the suite.
      child.kill('SIGTERM')
    }
    expect(await exited).toBe(0)
    const newSpace = Number(/new space (\d+)/.exec(stderr())?.[1])
    expect(newSpace).toBeLessThanOrEqual(NEW_SPACE_CAP_BYTES)
  }, 120_000)
})

describe('docs/configuration.md, CLI', () => {
  const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8')
  const synopsis = /\n## CLI\n\n```\n([\s\S]*?)```/.exec(page)?.[1]?.trimEnd().split('\n') ?? []

  it('its synopsis names the options --help describes, and --help’s commands as written', () => {
    expect(synopsis).toHaveLength(5)
    const [start, ...commands] = synopsis
    const documented = [...start!.matchAll(/\[(--[a-z-]+)/g)].map((m) => m[1]).sort()
    const described = [...USAGE.matchAll(/^ {2}(?:-\w, )?(--[a-z-]+)/gm)].map((m) => m[1]).sort()
    expect(documented).toEqual(described)
    for (const line of commands) expect(USAGE).toContain(`       ${line}\n`)
  })
})
