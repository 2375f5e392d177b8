/**
 * The manual holds together: every relative link of README.md, the docs/ pages and the folders'
 * READMEs reaches a file that exists, and every `#anchor` a heading of the page it names (as
 * GitHub makes anchors); every docs page is linked from the README (the contributors' pages the
 * package leaves out, from CONTRIBUTING.md). The examples of the pages are
 * checked where they run: test/http/readme.test.ts (the README's curl examples, the worked example
 * of docs/fixtures-and-scenarios.md), test/gateway/config.test.ts (docs/configuration.md),
 * test/docs/websocket.test.ts (docs/websocket.md), test/docs/yourChain.test.ts (docs/your-chain.md),
 * test/docs/events.test.ts (docs/events.md), test/http/simulationDoc.test.ts and tracingDoc.test.ts,
 * test/e2e/cast.test.ts (the README's cast example), test/e2e/package.test.ts (docs/test-runners.md's
 * recipes), test/docs/snippets.test.ts (the README's Node clients, docs/controls-and-faults.md,
 * docs/sending-and-mining.md).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

function markdownFiles(): string[] {
  const out = ['README.md', 'CONTRIBUTING.md', 'fixtures/README.md']
  for (const name of readdirSync(join(ROOT, 'docs')).sort()) if (name.endsWith('.md')) out.push(`docs/${name}`)
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(ROOT, dir)).sort()) {
      const path = `${dir}/${name}`
      if (statSync(join(ROOT, path)).isDirectory()) walk(path)
      else if (name === 'README.md') out.push(path)
    }
  }
  walk('src')
  return out
}

/** The text outside code fences and inline code, where links are links. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '``')
}

/** GitHub's anchors of a page's headings: lowercase, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const line of text.replace(/^```[\s\S]*?^```/gm, '').split('\n')) {
    const m = /^#{1,6} (.*)$/.exec(line)
    if (!m) continue
    const base = m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, '').replace(/ /g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  return out
}

function links(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/i.test(l))
}

describe('the manual', () => {
  const files = markdownFiles()

  it('is read whole: the README, every docs page, the folders’ READMEs', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'docs/methods.md', 'src/chain/README.md']))
  })

  it('has every relative link reach a file, and every anchor a heading', () => {
    const broken: string[] = []
    for (const file of files) {
      for (const link of links(readFileSync(join(ROOT, file), 'utf8'))) {
        const [path, anchor] = link.split('#') as [string, string | undefined]
        const target = path === '' ? file : relative(ROOT, join(ROOT, dirname(file), path))
        if (!existsSync(join(ROOT, target))) {
          broken.push(`${file}: ${link} (no ${target})`)
          continue
        }
        if (anchor !== undefined && target.endsWith('.md') && !anchors(readFileSync(join(ROOT, target), 'utf8')).has(anchor)) {
          broken.push(`${file}: ${link} (no heading #${anchor} in ${target})`)
        }
      }
    }
    expect(broken).toEqual([])
  })

  it('links every docs page from the README, or the pages the package leaves out from CONTRIBUTING.md', () => {
    const linkedFrom = (page: string) => new Set(links(readFileSync(join(ROOT, page), 'utf8')).map((l) => l.split('#')[0]))
    const fromReadme = linkedFrom('README.md')
    const fromContributing = linkedFrom('CONTRIBUTING.md')
    const leftOut = new Set((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files.filter((f) => f.startsWith('!')).map((f) => f.slice(1)))
    expect(files.filter((f) => f.startsWith('docs/') && !(leftOut.has(f) ? fromContributing : fromReadme).has(f))).toEqual([])
  })

  it('makes anchors as GitHub does', () => {
    expect([...anchors('## Using it in a test suite (vitest / jest)\n### The build, and what `bin/gateway-double.js` runs\n## CLI\n## CLI\n')]).toEqual([
      'using-it-in-a-test-suite-vitest--jest',
      'the-build-and-what-bingateway-doublejs-runs',
      'cli',
      'cli-1',
    ])
  })
})
