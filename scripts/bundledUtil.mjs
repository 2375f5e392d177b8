// The build-time changes to the copies of @ethereumjs/util's bytes.js inside the bundles
// (scripts/build.mjs; patches/README.md, changes 12 and 17): an esbuild plugin, kept apart so that
// test/chain/bundledUtil.test.ts bundles @ethereumjs/util through it and compares the result with
// the installed copy. A user's own EthereumJS is theirs and stays as installed. Each change
// replaces exact text of @ethereumjs/util 10.1.3, and the build fails when that text is not there:
// a new version is looked at, not silently left unchanged.
import { readFileSync } from 'node:fs'

/** Change 12: the table of the BigInts 0 to 65535, each made when first asked, not all at load. */
const EAGER_TABLE = 'const BIGINT_CACHE = [];\nfor (let i = 0; i <= 256 * 256 - 1; i++) {\n    BIGINT_CACHE[i] = BigInt(i);\n}\n'
const EAGER_READS = ['return BIGINT_CACHE[bytes[0]];', 'return BIGINT_CACHE[bytes[0] * 256 + bytes[1]];']
const LAZY_TABLE = 'const BIGINT_CACHE = [];\nconst bigIntOf = (i) => BIGINT_CACHE[i] ?? (BIGINT_CACHE[i] = BigInt(i));\n'
const LAZY_READS = ['return bigIntOf(bytes[0]);', 'return bigIntOf(bytes[0] * 256 + bytes[1]);']

/**
 * Change 17: bytes to hex as one flat string. noble's `bytesToHex` (which @ethereumjs/util's
 * `bytesToUnprefixedHex`, `bytesToHex` and `bytesToBigInt` call) appends two characters per byte,
 * and V8 keeps the result as a tree of concatenations (a cons-string node per byte) until
 * something reads it whole: every Map or Set key EthereumJS builds from bytes (the journal's warm
 * addresses and slots, the state caches' keys) is flattened at its first lookup, a copy, and the
 * tree is garbage. Node's `Buffer.prototype.hexSlice` writes the same characters into one string.
 * Anything but a Uint8Array (what noble's check refuses, with its message) goes to noble's.
 */
const NOBLE_HEX = 'export const bytesToUnprefixedHex = bytesToUnprefixedHexNoble;\n'
const FLAT_HEX =
  "const hexSlice = typeof Buffer === 'function' && typeof Buffer.prototype.hexSlice === 'function' ? Buffer.prototype.hexSlice : undefined;\n" +
  'export const bytesToUnprefixedHex = hexSlice === undefined ? bytesToUnprefixedHexNoble : (bytes) => (bytes instanceof Uint8Array ? hexSlice.call(bytes, 0, bytes.length) : bytesToUnprefixedHexNoble(bytes));\n'

/** @ethereumjs/util's bytes.js with changes 12 and 17; `fail` is called (and must throw or exit) when the text they replace is not there. */
export function patchedUtilBytes(text, path, fail) {
  if (!text.includes(EAGER_TABLE) || !EAGER_READS.every((r) => text.includes(r))) fail(`${path}: the BigInt table patches/README.md's change 12 replaces is not there (a new @ethereumjs/util?)`)
  if (!text.includes(NOBLE_HEX)) fail(`${path}: the bytesToUnprefixedHex patches/README.md's change 17 replaces is not there (a new @ethereumjs/util?)`)
  return text.replace(EAGER_TABLE, LAZY_TABLE).replace(EAGER_READS[0], LAZY_READS[0]).replace(EAGER_READS[1], LAZY_READS[1]).replace(NOBLE_HEX, FLAT_HEX)
}

/** The esbuild plugin that loads @ethereumjs/util's bytes.js through `patchedUtilBytes`. */
export function bundledUtilPlugin(fail) {
  return {
    name: 'bundled-ethereumjs-util',
    setup(build) {
      build.onLoad({ filter: /[\\/]@ethereumjs[\\/]util[\\/]dist[\\/]esm[\\/]bytes\.js$/ }, (args) => ({
        contents: patchedUtilBytes(readFileSync(args.path, 'utf8'), args.path, fail),
        loader: 'js',
      }))
    },
  }
}
