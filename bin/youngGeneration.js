/**
 * A bound on V8's young generation for the command's own process (bin/gateway-double.js) and the
 * bench's server, which runs as the command does. V8 doubles the young generation whenever
 * enough of it survives a scavenge; under a load of calls (a distinct eth_call allocates ~200
 * KiB, 8 in flight) it reaches its maximum (16 MiB a semi-space, 32 MiB resident) within seconds
 * and gives it back only after a full GC finds the process idle: a fifth of the server's memory
 * after the bench's load (docs/benchmark.md). Kept at its first size (1 MiB) instead, the server
 * scavenged so often that the bench's rows ran at 0.80-0.95x of the build without it; so it grows
 * as V8 likes up to `NEW_SPACE_CAP_BYTES` and stops there.
 *
 * How: `--semi-space-growth-factor=1` set at run time while the new space is at the bound, and
 * V8's 2 again when V8 has shrunk it under the bound (V8 reads the flag again at each growth;
 * given on node's command line it is raised to 2 when the heap is set up, and
 * `--max-semi-space-size` only acts on the command line). The new space's
 * size is read after each GC (a `gc` performance observer, which holds no handle open).
 * A library's `startServer`, run in a user's test process, leaves that process's heap alone.
 */
const v8 = require('node:v8')
const { PerformanceObserver } = require('node:perf_hooks')

/** The new space's size (as `v8.getHeapSpaceStatistics` reports it) at which its growth stops. */
const NEW_SPACE_CAP_BYTES = 8 * 1024 * 1024

function newSpaceBytes() {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size
}

/** Whether the growth is stopped now (the flag changed from V8's default, 2). */
let capped = false

/**
 * Runs `make` (a code cache made) with V8's flags as every start has them: a cache made with the
 * growth stopped was refused by the next start (the flags differ) and written again.
 */
function withFlagsAsAtStart(make) {
  if (!capped) return make()
  v8.setFlagsFromString('--semi-space-growth-factor=2')
  try {
    return make()
  } finally {
    v8.setFlagsFromString('--semi-space-growth-factor=1')
  }
}

/**
 * Stops the young generation's growth while its new space is at `capBytes` or over, and lets it
 * grow again when it is under. The observer stays: V8 shrinks the new space at a scavenge that
 * finds the allocation rate low (the first one after a pause of a few seconds), and with the
 * growth stopped it stayed at 1-2 MiB for the rest of the process: the bench's rows after the
 * first round ran with 4x the scavenges (session 15, a `gc` observer in the bench's server).
 */
function capYoungGeneration(capBytes = NEW_SPACE_CAP_BYTES) {
  const follow = () => {
    const atCap = newSpaceBytes() >= capBytes
    if (atCap === capped) return
    capped = atCap
    v8.setFlagsFromString(`--semi-space-growth-factor=${atCap ? 1 : 2}`)
  }
  follow()
  new PerformanceObserver(follow).observe({ entryTypes: ['gc'] })
}

module.exports = { NEW_SPACE_CAP_BYTES, capYoungGeneration, withFlagsAsAtStart }
