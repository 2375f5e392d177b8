/**
 * geth's own tracer test cases (go-ethereum `eth/tracers/internal/tracetest/testdata`): a genesis
 * state, a block context and a signed transaction each, with the callTracer or prestateTracer
 * result geth produces. Each is run through the double's tracers on an EthereumJS VM, as geth's
 * harness runs it (`ApplyMessage` under the tracer), and compared with geth's JSON.
 *
 * The cases are go-ethereum's (LGPL-3.0), not copied here: point GETH_TRACETEST at a checkout's
 * `eth/tracers/internal/tracetest/testdata` to run them. Cases the double knowingly answers
 * otherwise are listed with the reason.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createBlock } from '@ethereumjs/block'
import { createEVM } from '@ethereumjs/evm'
import { MerkleStateManager } from '@ethereumjs/statemanager'
import { createTxFromRLP } from '@ethereumjs/tx'
import { createAccount, createAddressFromString, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { createVM, runTx } from '@ethereumjs/vm'
import { describe, expect, it } from 'vitest'
import { commonFromGenesis } from '../../src/chain/loading/genesis.ts'
import { TraceBudget } from '../../src/chain/tracing/limits.ts'
import { Observer } from '../../src/chain/tracing/observer.ts'
import { tracerFactory } from '../../src/chain/tracing/tracers.ts'

const DIR = process.env.GETH_TRACETEST
const SUITES: [folder: string, tracer: string][] = [
  ['call_tracer', 'callTracer'],
  ['call_tracer_withLog', 'callTracer'],
  ['prestate_tracer', 'prestateTracer'],
  ['prestate_tracer_with_diff_mode', 'prestateTracer'],
]

/** Cases answered otherwise, by folder/name, with the reason. */
const KNOWN: Record<string, string> = {}

interface Case {
  genesis: { alloc: Record<string, { balance?: string; nonce?: string; code?: string; storage?: Record<string, string> }>; config: Record<string, unknown> } & Record<string, unknown>
  context: { number: string; timestamp: string; difficulty?: string; gasLimit: string; miner: string; baseFeePerGas?: string }
  input: string
  tracerConfig?: unknown
  result: unknown
}

const big = (v: string | undefined): bigint => (v === undefined ? 0n : BigInt(v))

async function run(c: Case, tracer: string): Promise<unknown> {
  // geth reads config keys case-insensitively (a case writes "IstanbulBlock"); EthereumJS does not.
  // Clique's signer rules are no business of the EVM: the cases run as proof of work.
  const config = Object.fromEntries(Object.entries(c.genesis.config).filter(([k]) => k !== 'clique').map(([k, v]) => [k[0]!.toLowerCase() + k.slice(1), v]))
  const genesis = { ...c.genesis, config }
  const common = commonFromGenesis(genesis as never, 'tracetest')
  common.setHardforkBy({ blockNumber: big(c.context.number), timestamp: big(c.context.timestamp) })
  const state = new MerkleStateManager({ common })
  for (const [address, a] of Object.entries(c.genesis.alloc)) {
    const at = createAddressFromString(address)
    await state.putAccount(at, createAccount({ balance: big(a.balance), nonce: big(a.nonce) }))
    if (a.code && a.code !== '0x') await state.putCode(at, hexToBytes(a.code as `0x${string}`))
    for (const [k, v] of Object.entries(a.storage ?? {})) await state.putStorage(at, setLengthLeft(hexToBytes(k as `0x${string}`), 32), hexToBytes(v as `0x${string}`))
  }
  const header: Record<string, unknown> = {
    number: big(c.context.number),
    timestamp: big(c.context.timestamp),
    difficulty: big(c.context.difficulty),
    gasLimit: big(c.context.gasLimit),
    coinbase: c.context.miner,
  }
  if (common.isActivatedEIP(1559)) header.baseFeePerGas = big(c.context.baseFeePerGas)
  if (common.isActivatedEIP(4844)) header.excessBlobGas = 0n
  const block = createBlock({ header }, { common, skipConsensusFormatValidation: true })
  const tx = createTxFromRLP(hexToBytes((c.input.startsWith('0x') ? c.input : `0x${c.input}`) as `0x${string}`), { common })
  const evm = await createEVM({ common, stateManager: state })
  const vm = await createVM({ common, stateManager: state, evm })
  const budget = new TraceBudget({ timeoutMs: 30_000 })
  const made = tracerFactory({ tracer, tracerConfig: c.tracerConfig, logger: { disableStack: false, disableStorage: false, enableMemory: false, enableReturnData: false, limit: 0 } })(budget)
  const observer = new Observer(vm, { tracer: made, budget, coinbase: c.context.miner.toLowerCase(), firstLogIndex: 0 })
  try {
    await runTx(vm, { tx, block, skipBlockGasLimitValidation: true, skipHardForkValidation: true })
  } finally {
    observer.detach()
  }
  return JSON.parse(made.result())
}

/** geth's harness reads the expected result into its struct: a log written without `index` has index 0. */
function normalized(result: unknown): unknown {
  if (Array.isArray(result)) return result.map(normalized)
  if (result === null || typeof result !== 'object') return result
  const o = Object.fromEntries(Object.entries(result).map(([k, v]) => [k, normalized(v)]))
  if ('topics' in o && 'position' in o && !('index' in o)) o.index = '0x0'
  return o
}

describe.skipIf(DIR === undefined || !existsSync(DIR))('geth’s tracer test cases (GETH_TRACETEST)', () => {
  for (const [folder, tracer] of SUITES) {
    const files = DIR ? readdirSync(join(DIR, folder)).filter((f) => f.endsWith('.json')).sort() : []
    for (const file of files) {
      const name = `${folder}/${file.replace(/\.json$/, '')}`
      it.skipIf(Object.hasOwn(KNOWN, name))(name, async () => {
        const c = JSON.parse(readFileSync(join(DIR!, folder, file), 'utf8')) as Case
        expect(await run(c, tracer)).toEqual(normalized(c.result))
      })
    }
  }
})

it.runIf(DIR === undefined)('geth’s tracer test cases: skipped, GETH_TRACETEST is not set', () => {
  expect(DIR).toBeUndefined()
})
