/**
 * scripts/bundledUtil.mjs changes the copies of @ethereumjs/util's bytes.js inside the bundles
 * (patches/README.md, changes 12 and 17), never what they answer: @ethereumjs/util is bundled here
 * through the same esbuild plugin as scripts/build.mjs's, and its bytes-to-hex and bytes-to-number
 * functions are compared with the installed copy's (EthereumJS's own) on every length and offset a
 * key or a word has, and on what they refuse.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import * as util from '@ethereumjs/util'
import * as esbuild from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
// @ts-expect-error: a build script, plain JavaScript without declarations
import { bundledUtilPlugin } from '../../scripts/bundledUtil.mjs'
import { createPrng } from '../../src/gateway/faults.ts'

type Util = typeof util
const ROOT = join(import.meta.dirname, '../..')
let dir: string
let bundleText: string
let bundled: Pick<Util, 'bytesToUnprefixedHex' | 'bytesToHex' | 'bytesToBigInt'>

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-double-bundled-util-'))
  const outfile = join(dir, 'util.mjs')
  await esbuild.build({
    absWorkingDir: ROOT,
    stdin: { contents: "export { bytesToUnprefixedHex, bytesToHex, bytesToBigInt } from '@ethereumjs/util'", resolveDir: ROOT, loader: 'js' },
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    plugins: [
      bundledUtilPlugin((message: string) => {
        throw new Error(message)
      }),
    ],
    logLevel: 'silent',
  })
  bundleText = readFileSync(outfile, 'utf8')
  bundled = (await import(pathToFileURL(outfile).href)) as typeof bundled
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Byte arrays of every length to 70, each also as a view at an offset into a larger buffer and as a Buffer. */
function samples(): Uint8Array[] {
  const random = createPrng(0x17)
  const out: Uint8Array[] = [new Uint8Array(0), Uint8Array.of(0), Uint8Array.of(0xff), Uint8Array.of(0, 0), Uint8Array.of(0xab, 0xcd)]
  for (let length = 0; length <= 70; length++) {
    const bytes = Uint8Array.from({ length }, () => Math.floor(random() * 256))
    const backing = new Uint8Array(length + 9)
    backing.set(bytes, 5)
    out.push(bytes, backing.subarray(5, 5 + length), Buffer.from(bytes))
  }
  return out
}

describe('the bundled @ethereumjs/util (scripts/bundledUtil.mjs)', () => {
  it('is the changed one: change 17 writes hex with Buffer.prototype.hexSlice, change 12 fills the BigInt table when asked', () => {
    expect(bundleText).toContain('hexSlice.call(bytes, 0, bytes.length)')
    expect(bundleText).toContain('bigIntOf(bytes[0] * 256 + bytes[1])')
  })

  it('answers bytesToUnprefixedHex, bytesToHex and bytesToBigInt as EthereumJS does', () => {
    for (const bytes of samples()) {
      const what = `${bytes.constructor.name} of ${bytes.length} at ${bytes.byteOffset}`
      expect(bundled.bytesToUnprefixedHex(bytes), what).toBe(util.bytesToUnprefixedHex(bytes))
      expect(bundled.bytesToHex(bytes), what).toBe(util.bytesToHex(bytes))
      expect(bundled.bytesToBigInt(bytes), what).toBe(util.bytesToBigInt(bytes))
    }
  })

  it('refuses what is not bytes in EthereumJS own words', () => {
    for (const input of [[1, 2], 'ab', undefined, new Uint16Array(2)] as unknown[]) {
      let own: unknown
      try {
        util.bytesToUnprefixedHex(input as Uint8Array)
      } catch (err) {
        own = (err as Error).message
      }
      expect(own, String(input)).toBeDefined()
      expect(() => bundled.bytesToUnprefixedHex(input as Uint8Array), String(input)).toThrow(own as string)
    }
  })
})
