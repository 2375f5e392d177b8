/**
 * The vitest recipe of docs/test-runners.md, proven by running it: a real `vitest run` of
 * test/e2e/recipe/vitest.config.ts in a child process, whose globalSetup is
 * `gateway-double/testing/vitest` (the package name, aliased to the sources) and whose spec files
 * reach the server it started. Its JSON report must show every spec passing and the run must
 * exit 0.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../', import.meta.url))
const vitestBin = join(root, 'node_modules', '.bin', 'vitest')
const out = mkdtempSync(join(tmpdir(), 'gateway-double-recipe-'))

afterAll(() => rmSync(out, { recursive: true, force: true }))

interface JsonReport {
  success: boolean
  numTotalTests: number
  numPassedTests: number
  numFailedTests: number
  testResults: { name: string; status: string; assertionResults: { title: string; status: string; failureMessages: string[] }[] }[]
}

function runRecipe(env: Record<string, string>): Promise<{ code: number | null; report: JsonReport | undefined; output: string }> {
  const report = join(out, `report-${Date.now()}.json`)
  return new Promise((resolve, reject) => {
    execFile(
      vitestBin,
      ['run', '--config', 'test/e2e/recipe/vitest.config.ts', '--reporter=json', `--outputFile=${report}`],
      { cwd: root, env: { ...process.env, ...env, VITEST_POOL_ID: '', VITEST_WORKER_ID: '' }, timeout: 180_000 },
      (err, stdout, stderr) => {
        if (err !== null && typeof err.code !== 'number') {
          reject(new Error(`the recipe run did not finish: ${err.message}\n${stdout}${stderr}`))
          return
        }
        let parsed: JsonReport | undefined
        try {
          parsed = JSON.parse(readFileSync(report, 'utf8')) as JsonReport
        } catch {
          parsed = undefined
        }
        resolve({ code: err === null ? 0 : (err.code as number), report: parsed, output: stdout + stderr })
      },
    )
  })
}

describe('vitest recipe (globalSetup + setupFiles + inject)', () => {
  it('runs a suite against one server started by the globalSetup', async () => {
    const { code, report, output } = await runRecipe({})
    if (report === undefined) expect.unreachable(`the recipe run wrote no report:\n${output}`)
    const results = report.testResults.flatMap((f) => f.assertionResults.map((a) => [a.title, a.status, a.failureMessages.join('\n')]))
    expect(results.filter(([, status]) => status === 'failed'), output).toEqual([])
    expect(code).toBe(0)
    expect(report.success).toBe(true)
    expect(report.testResults.map((f) => f.name.split('/').pop()).sort()).toEqual(['isolated.spec.ts', 'shared.spec.ts'])
    // The shared-server spec, the RPC_URL spec, and exactly one of the two isolation specs.
    const passed = results.filter(([, status]) => status === 'passed').map(([title]) => title)
    expect(passed).toContain('serves the three default networks at their heads')
    expect(passed).toContain('RPC_URL answers as ethereum, at the fixture head')
    // Either the server can fork (control API and a chain that forks): the fork specs ran;
    // or it cannot: the spec that checks the refusal ran. Never neither, never both.
    const forked = passed.includes('with the control API: this worker’s fork, one per pool id')
    if (forked) expect(passed).toContain('a transaction on this worker’s fork leaves the shared ethereum as it was')
    else expect(passed).toContain('without the control API: says so, shares only when asked')
    expect(passed).toHaveLength(forked ? 4 : 3)
  })

  it('reports a bad GATEWAY_DOUBLE_PORT as a failed setup, not as failing tests', async () => {
    const { code, output } = await runRecipe({ GATEWAY_DOUBLE_PORT: 'eighty' })
    expect(code).not.toBe(0)
    expect(output).toContain('GATEWAY_DOUBLE_PORT: must be a port number, got "eighty"')
  })
})
