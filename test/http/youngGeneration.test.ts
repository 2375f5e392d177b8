/**
 * bin/youngGeneration.js in a real V8 (a child node process, as the command's own process runs it):
 * its bound holds the new space at 8 MiB, and a new space that V8 shrank (at a GC that reduces
 * memory: a heap snapshot's here, the first scavenge after an idle pause in a server) grows back
 * to the bound under the next load. Before session 15 the growth stayed stopped once the bound had
 * been reached, and a shrunk new space stayed at 1-2 MiB for the rest of the process.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { NEW_SPACE_CAP_BYTES } from '../../bin/youngGeneration.js'

const MODULE = fileURLToPath(new URL('../../bin/youngGeneration.js', import.meta.url))

// Allocates with survivors (V8 grows the young generation when enough of a scavenge survives),
// yielding as a server does so that the bound's `gc` observer runs; prints the new space's size
// after a load, after a heap snapshot, and after a second load.
const CHILD = `
const v8 = require('node:v8')
require(process.argv[1]).capYoungGeneration()
const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size
let keep = []
const load = async (ms) => {
  const end = Date.now() + ms
  while (Date.now() < end) {
    for (let i = 0; i < 2000; i++) { keep.push({ a: [1, 2, 3], s: 'x' + Math.random() }); if (keep.length > 100000) keep = [] }
    await new Promise((r) => setImmediate(r))
  }
}
;(async () => {
  const sizes = []
  await load(1500); sizes.push(newSpace())
  v8.getHeapSnapshot().resume()
  await new Promise((r) => setTimeout(r, 50)); sizes.push(newSpace())
  await load(1500); sizes.push(newSpace())
  console.log(JSON.stringify(sizes))
})()
`

describe('bin/youngGeneration.js', () => {
  it('bounds the new space, and lets a shrunk one grow back to the bound', async () => {
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['-e', CHILD, MODULE], (err, out) => (err ? reject(err) : resolve(out))),
    )
    const [loaded, shrunk, reloaded] = JSON.parse(stdout) as number[]
    expect(loaded).toBe(NEW_SPACE_CAP_BYTES)
    expect(shrunk).toBeLessThan(NEW_SPACE_CAP_BYTES)
    expect(reloaded).toBe(NEW_SPACE_CAP_BYTES)
  }, 30_000)
})
