/**
 * The README and the docs pages stay true: the README's start command serves the default networks
 * (the bin, spawned as a user would run it), each of its curl examples returns the output it
 * shows, and the worked example of docs/fixtures-and-scenarios.md runs as written.
 *
 * After a deliberate fixture change, `UPDATE_README=1 npx vitest run test/http/readme.test.ts`
 * rewrites the example outputs in README.md (compact up to 300 characters, else indented).
 */
import { execFile, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG_PATH, loadConfigFile } from '../../src/gateway/config.ts'
import { localhostFetch } from '../../src/http/client.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'

/** A page of the manual, by its path from the project folder (README.md, docs/*.md). */
function page(path: string): string {
  return readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')
}

const README = page('README.md')
const UPDATE = process.env.UPDATE_README === '1'
const BIN = fileURLToPath(new URL('../../bin/gateway-double.js', import.meta.url))

function section(title: string, text = README): string {
  const start = text.indexOf(`\n## ${title}\n`)
  expect(start, title).toBeGreaterThan(0)
  const end = text.indexOf('\n## ', start + 1)
  return text.slice(start, end < 0 ? undefined : end)
}

/** `rpc '<request>'` followed by a json block holding the expected output. */
function curlExamples(): { request: string; expected: string }[] {
  const re = /```sh\nrpc '([^']+)'\n```\n\n```json\n([\s\S]*?)```/g
  return [...section('curl examples').matchAll(re)].map((m) => ({ request: m[1]!, expected: m[2]! }))
}

describe('README', () => {
  const devKey = loadConfigFile(DEFAULT_CONFIG_PATH).keys[0]!.key

  it('names the default config dev key', () => {
    expect(README).toContain(`is \`${devKey}\``)
    expect(section('curl examples')).toContain(`KEY=${devKey}`)
  })

  describe('curl examples against the default networks', () => {
    let server: RunningServer
    beforeAll(async () => {
      server = await startServer({ port: 0 })
    })
    afterAll(async () => {
      await server?.close()
    })

    it.runIf(UPDATE)('rewrite the example outputs (UPDATE_README=1)', async () => {
      let text = README
      for (const { request, expected } of curlExamples()) {
        const res = await localhostFetch(server.urls.ethereum!, { method: 'POST', body: request })
        const body = await res.text()
        const shown = body.length <= 300 ? body : JSON.stringify(JSON.parse(body), null, 2)
        text = text.replace(`rpc '${request}'\n\`\`\`\n\n\`\`\`json\n${expected}`, `rpc '${request}'\n\`\`\`\n\n\`\`\`json\n${shown}\n`)
      }
      writeFileSync(new URL('../../README.md', import.meta.url), text)
    })

    it('the rpc helper runs in bash as written (only the port changed) and prints what the README shows', async () => {
      const helper = /```sh\n(KEY=\w+\nrpc\(\) \{[\s\S]*?)```/.exec(section('curl examples'))?.[1]
      expect(helper).toBeDefined()
      const port = new URL(server.urls.ethereum!).port
      const [first] = curlExamples()
      const out = await bash(`${helper!.replace('127.0.0.1:8545', `127.0.0.1:${port}`)}\nrpc '${first!.request}'`, ROOT)
      expect(JSON.parse(out)).toEqual(JSON.parse(first!.expected))
    })

    it('every docs page that uses the rpc helper defines it as the README does', () => {
      const helper = /```sh\n(KEY=\w+\nrpc\(\) \{[\s\S]*?)```/.exec(section('curl examples'))![1]!
      const pages = readdirSync(new URL('../../docs/', import.meta.url)).filter((f) => f.endsWith('.md'))
      const using = pages.filter((f) => page(`docs/${f}`).includes("\nrpc '"))
      expect(using.length).toBeGreaterThan(0)
      for (const f of using) expect(page(`docs/${f}`), f).toContain(helper)
    })

    it('cover the five methods', () => {
      const methods = curlExamples().map((e) => (JSON.parse(e.request) as { method: string }).method)
      expect(new Set(methods)).toEqual(
        new Set(['eth_blockNumber', 'eth_getStorageAt', 'eth_getTransactionByBlockNumberAndIndex', 'eth_getBlockReceipts', 'eth_estimateGas']),
      )
    })

    it.skipIf(UPDATE).each(curlExamples().map((e) => [(JSON.parse(e.request) as { method: string }).method, e] as const))(
      '%s returns what the README shows',
      async (_method, { request, expected }) => {
        const res = await localhostFetch(server.urls.ethereum!, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: request,
        })
        expect(JSON.parse(await res.text())).toEqual(JSON.parse(expected))
      },
    )
  })

  it('the start command serves the default networks and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString()
        if (out.includes('Press Ctrl+C to stop.')) resolve()
      })
      child.on('exit', () => reject(new Error(`exited before listening: ${err}`)))
    })
    const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]
    expect(out).toMatch(/ethereum +1 +\d+ \(0x[0-9a-f]+\) +http:\/\/ethereum-mainnet\.localhost:\d+\/v3\//)
    expect(out).toMatch(/polygon +137 /)
    expect(out).toMatch(/base +8453 /)
    for (const [name, chainId] of [['ethereum', '0x1'], ['polygon', '0x89'], ['base', '0x2105']]) {
      const res = await localhostFetch(`http://${name}-mainnet.localhost:${port}/v3/${devKey}`, {
        method: 'POST',
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      })
      expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: chainId })
    }
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
  })
})

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

function bash(line: string, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', line], { cwd }, (err, stdout, stderr) => (err ? reject(new Error(`${line}\n${stderr}`)) : resolve(stdout)))
  })
}

/**
 * A user's project folder with this repository installed as its node_modules/gateway-double (a
 * link) and its command in node_modules/.bin: the pages' commands run from there, as from a
 * project that installed the package (test/e2e/package.test.ts runs them from the packed install).
 */
function userProject(dir: string): string {
  const project = join(dir, 'project')
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true })
  symlinkSync(ROOT, join(project, 'node_modules', 'gateway-double'))
  symlinkSync(join(ROOT, 'bin', 'gateway-double.js'), join(project, 'node_modules', '.bin', 'gateway-double'))
  return project
}

/**
 * Runs the ```sh blocks of a page's section in order, through bash from a user's project folder
 * (`userProject`): a line
 * ending in `&` is the server, started in the background (`--port 8546` becomes `--port 0`, and
 * `127.0.0.1:8546` in later lines the port it prints) and stopped whole at the end; `/tmp/vault`
 * becomes a temporary folder; each curl's output must equal the ```json block that follows its
 * block. Lines `skip` matches are run elsewhere. With `update`, the json blocks are rewritten
 * from the outputs instead (indented) and the page written.
 */
async function runShellSection(path: string, title: string, opts: { skip?: (line: string) => boolean; update?: boolean } = {}): Promise<number> {
  const whole = page(path)
  const text = section(title, whole)
  const blocks = [...text.matchAll(/```(sh|json)\n([\s\S]*?)```/g)].map((m) => ({ kind: m[1]!, body: m[2]! }))
  const dir = mkdtempSync(join(tmpdir(), 'gd-readme-'))
  const project = userProject(dir)
  let server: ReturnType<typeof spawn> | undefined
  let port: string | undefined
  let rewritten = text
  let curls = 0
  try {
    for (const [i, block] of blocks.entries()) {
      if (block.kind !== 'sh') continue
      for (const raw of block.body.split('\n').filter((l) => l.trim() !== '')) {
        if (opts.skip?.(raw)) continue
        const line = raw.replaceAll('/tmp/vault', join(dir, 'vault'))
        if (line.trimEnd().endsWith('&')) {
          // The server, in the background: its own process group, so it is stopped whole.
          const command = line.trimEnd().slice(0, -1).replace('--port 8546', '--port 0')
          server = spawn('bash', ['-c', `exec ${command}`], { cwd: project, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
          port = await new Promise<string>((resolve, reject) => {
            let out = ''
            server!.stdout!.on('data', (d: Buffer) => {
              out += d.toString()
              const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)
              if (m) resolve(m[1]!)
            })
            server!.on('exit', () => reject(new Error(`the server exited: ${out}`)))
          })
          continue
        }
        const output = await bash(port === undefined ? line : line.replaceAll('127.0.0.1:8546', `127.0.0.1:${port}`), project)
        if (line.startsWith('curl')) {
          curls++
          const expected = blocks[i + 1]
          expect(expected?.kind, line).toBe('json')
          if (opts.update) rewritten = rewritten.replace(`\`\`\`json\n${expected!.body}\`\`\``, `\`\`\`json\n${JSON.stringify(JSON.parse(output), null, 2)}\n\`\`\``)
          else expect(JSON.parse(output)).toEqual(JSON.parse(expected!.body))
        }
      }
    }
    expect(port).toBeDefined()
    if (opts.update) writeFileSync(new URL(`../../${path}`, import.meta.url), whole.replace(text, rewritten))
    return curls
  } finally {
    if (server?.pid !== undefined && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.on('exit', resolve))
      process.kill(-server.pid, 'SIGTERM')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The worked example of "Revert scenarios" (docs/fixtures-and-scenarios.md), run as written: every
 * ```sh block in order (only the port and the output folder changed), each curl's output the
 * ```json block that follows it.
 */
describe('docs/fixtures-and-scenarios.md worked example (Revert scenarios)', () => {
  it('builds the fixture, serves it and reproduces its revert with curl', async () => {
    expect(await runShellSection('docs/fixtures-and-scenarios.md', 'Revert scenarios')).toBeGreaterThanOrEqual(2)
  }, 120_000)
})

/**
 * The README's "Reproducing a revert": the committed capture served and traced as written, the
 * trace the one the README shows. Its capture command needs a node: test/capture/revertTrace.test.ts
 * runs it against Anvil.
 */
describe('README: Reproducing a revert', () => {
  it('serves the committed capture and traces the reverting call as the README shows', async () => {
    const curls = await runShellSection('README.md', 'Reproducing a revert', { skip: (line) => line.startsWith('npx gateway-double capture '), update: UPDATE })
    expect(curls).toBe(1)
  }, 120_000)
})
