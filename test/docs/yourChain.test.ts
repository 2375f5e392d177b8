/**
 * docs/your-chain.md stays true, example by example, on a real server with the control endpoint:
 * - its method table lists every test method the endpoint serves, under each of its names, and
 *   no other;
 * - every `dev '<request>'` (the test endpoint) and `rpc '<request>'` (the gateway's `/v3/`)
 *   example, sent in the page's order, returns the output the page shows;
 * - the viem test-client example runs as written (its URL pointed at this server's port) and prints
 *   the block number its comment gives;
 * - the `gateway-double export` command writes a folder that the `--fixture` command's loader
 *   serves at the same head;
 * - the `anvil --dump-state` command (with the Anvil of the devDependencies) writes a folder that
 *   the `--fixture` command serves.
 *
 * After a deliberate fixture change, `UPDATE_DOCS=1 npx vitest run test/docs/yourChain.test.ts`
 * rewrites the outputs in the page.
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { parseCliArgs } from '../../src/cli.ts'
import { localhostFetch } from '../../src/http/client.ts'
import { exportCommand } from '../../src/http/exportCommand.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { TEST_METHODS } from '../../src/rpc/devRegistry.ts'
import { anvilBinary, startAnvil } from '../capture/anvil.ts'

const PAGE = new URL('../../docs/your-chain.md', import.meta.url)
const TEXT = readFileSync(PAGE, 'utf8')
const UPDATE = process.env.UPDATE_DOCS === '1'
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)

function examples(): { helper: 'dev' | 'rpc'; request: string; expected: string }[] {
  const re = /```sh\n(dev|rpc) '([^']+)'\n```\n\n```json\n([\s\S]*?)```/g
  return [...TEXT.matchAll(re)].map((m) => ({ helper: m[1] as 'dev' | 'rpc', request: m[2]!, expected: m[3]! }))
}

/** The page's fenced blocks of a language, in order. */
function blocks(lang: string): string[] {
  return [...TEXT.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!)
}

/** The arguments of a documented command line (`npx gateway-double ...`), after the command. */
function argsOf(line: string, command: string): string[] {
  const at = line.indexOf(command)
  return line.slice(at + command.length).split('#')[0]!.trim().split(/\s+/)
}

/**
 * The names in the first column of the method table (`anvil_x` (`hardhat_...`) names both).
 */
function documentedMethods(): string[] {
  const start = TEXT.indexOf('### The methods, and what each maps to')
  const table = TEXT.slice(start).split('\n\n').find((p) => p.startsWith('| method'))!
  const names: string[] = []
  for (const row of table.split('\n').slice(2)) {
    const cell = row.split('|')[1]!
    for (const m of cell.matchAll(/`(\w+)`( \(`hardhat_\.\.\.`\))?/g)) {
      names.push(m[1]!)
      if (m[2]) names.push(m[1]!.replace(/^anvil_/, 'hardhat_'))
    }
  }
  return names
}

let server: RunningServer
let dir: string

beforeAll(async () => {
  server = await startServer({ port: 0, control: true })
  dir = mkdtempSync(join(tmpdir(), 'gd-your-chain-doc-'))
})
afterAll(async () => {
  await server?.close()
  rmSync(dir, { recursive: true, force: true })
})

async function send(helper: 'dev' | 'rpc', request: string): Promise<string> {
  const res =
    helper === 'dev'
      ? await fetch(`${server.controlUrl}/rpc/ethereum`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: request })
      : await localhostFetch(server.urls.ethereum!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: request })
  return res.text()
}

describe('docs/your-chain.md', () => {
  it('uses the README’s key and helper, and the test endpoint’s URL', () => {
    expect(TEXT).toContain('KEY=deadbeefdeadbeefdeadbeefdeadbeef')
    expect(TEXT).toContain("dev() { curl -s http://127.0.0.1:8545/_double/rpc/ethereum -H 'Content-Type: application/json' -d \"$1\"; echo; }")
    expect(examples().length).toBeGreaterThanOrEqual(10)
  })

  it('its method table lists every test method under each of its names, and no other', () => {
    const documented = documentedMethods()
    expect(new Set(documented).size).toBe(documented.length)
    expect(documented.sort()).toEqual(Object.keys(TEST_METHODS).sort())
  })

  it('every dev/rpc example, in order, returns what the page shows', async () => {
    let text = TEXT
    for (const { helper, request, expected } of examples()) {
      const body = await send(helper, request)
      if (UPDATE) {
        const shown = body.length <= 300 ? body : JSON.stringify(JSON.parse(body), null, 2)
        text = text.replace(`${helper} '${request}'\n\`\`\`\n\n\`\`\`json\n${expected}`, `${helper} '${request}'\n\`\`\`\n\n\`\`\`json\n${shown}\n`)
      } else {
        expect(JSON.parse(body), `${helper} ${request}`).toEqual(JSON.parse(expected))
      }
    }
    if (UPDATE) writeFileSync(PAGE, text)
  })

  it('the viem test-client example runs as written and prints the head its comment gives', async () => {
    const [example] = blocks('ts').filter((b) => b.includes("createTestClient({ mode: 'anvil'"))
    expect(example).toBeDefined()
    // Written inside the project so that `viem` resolves as it does in a user's project.
    const scratch = join(ROOT, 'node_modules', '.cache', 'gateway-double-doc-examples')
    mkdirSync(scratch, { recursive: true })
    const file = join(scratch, `test-client-${process.pid}.mts`)
    writeFileSync(file, example!.replace('http://127.0.0.1:8545', server.origin))
    try {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', file], { cwd: ROOT })
      expect(stdout.trim()).toBe(/console\.log\(.*\) \/\/ (\S+):/.exec(example!)![1])
    } finally {
      rmSync(file, { force: true })
    }
  }, 60_000)

  it('the export command writes a folder the --fixture command serves at the same head', async () => {
    const [exportLine, serveLine] = blocks('sh').find((b) => b.includes('gateway-double export'))!.trim().split('\n')
    const out = join(dir, 'my-chain')
    const args = argsOf(exportLine!, 'gateway-double export').map((a) => (a === 'http://127.0.0.1:8545' ? server.origin : a === './my-chain' ? out : a))
    const io = { text: '', stdout: (t: string) => (io.text += t), stderr: (t: string) => (io.text += t) }
    expect(await exportCommand(args, io), io.text).toBe(0)
    const cli = parseCliArgs(argsOf(serveLine!, 'gateway-double'))
    expect(cli.fixtures).toEqual({ ethereum: './my-chain' })
    const chain = await loadFixture(out, { name: 'ethereum', cache: false })
    expect(chain.head.hash).toBe((await server.gateway.networks.get('ethereum')!.chain.head).hash)
  })

  it.skipIf(anvilBinary() === undefined)('the anvil --dump-state command writes a folder the --fixture command serves', async () => {
    const [anvilLine, serveLine] = blocks('sh').find((b) => b.includes('anvil --dump-state'))!.trim().split('\n')
    expect(anvilLine).toMatch(/^mkdir anvil-state && anvil --dump-state/)
    const anvilArgs = argsOf(anvilLine!, '&& anvil').map((a) => (a === './anvil-state' ? join(dir, 'anvil-state') : a))
    mkdirSync(join(dir, 'anvil-state'))
    const anvil = await startAnvil(anvilArgs)
    const call = (method: string, params: unknown[]) =>
      fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) }).then((r) => r.json())
    await call('anvil_mine', [3])
    expect(await call('eth_blockNumber', [])).toMatchObject({ result: '0x3' })
    await anvil.stop('SIGINT') // Ctrl+C
    expect(existsSync(join(dir, 'anvil-state', 'state.json')), anvil.output()).toBe(true)
    const cli = parseCliArgs(argsOf(serveLine!, 'gateway-double'))
    expect(cli.fixtures).toEqual({ mine: './anvil-state' })
    const chain = await loadFixture(join(dir, 'anvil-state'), { name: 'mine', cache: false })
    expect(chain.head.number).toBe(3n)
    expect(chain.chainId).toBe(31337n)
  })
})
