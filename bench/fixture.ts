/**
 * The bench chain: `fixtures/sources/bench/bench.scenario.json` built by the project's builder into
 * `fixtures/bench/`, and what the bench reads back from it (the blocks' raw signed transactions and
 * header fields, to replay them on Anvil; the names of the accounts).
 *
 * The source sits in its own folder, not next to the default fixtures' sources: the default-fixture
 * tests and `npm run build:fixtures` take every `fixtures/sources/*.scenario.json`, and the bench
 * chain is not a default fixture. Its contract paths are relative to `fixtures/sources` (the
 * builder only reads contracts under the base folder it is given), so it shares the default
 * fixtures' `contracts/Token.sol`.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex } from '@ethereumjs/util'
import { keccak256 } from 'ethereum-cryptography/keccak.js'
import { buildFixtureFromSource, readScenarioFile, writeFixtureFiles } from '../src/builder/buildFixture.ts'

export const ROOT = resolve(import.meta.dirname, '..')
export const BENCH_SOURCE = join(ROOT, 'fixtures/sources/bench/bench.scenario.json')
export const BENCH_SOURCES_BASE = join(ROOT, 'fixtures/sources')
export const BENCH_FIXTURE = join(ROOT, 'fixtures/bench')
export const BENCH_NETWORK = 'bench'

/** Builds `fixtures/bench/` from its source (deterministic: the same bytes every time). */
export async function buildBenchFixture(): Promise<{ ms: number; txs: number[] }> {
  const started = performance.now()
  const { source, file } = readScenarioFile(BENCH_SOURCE)
  const built = await buildFixtureFromSource(source, BENCH_SOURCES_BASE, file)
  writeFixtureFiles(built, BENCH_FIXTURE)
  return { ms: performance.now() - started, txs: built.blocks.map((b) => b.transactions.length) }
}

export function benchFixtureExists(): boolean {
  return ['genesis.json', 'chain.rlp', 'accounts.json'].every((f) => existsSync(join(BENCH_FIXTURE, f)))
}

/** The header fields of a block the replay needs, plus its raw signed transactions. */
export interface FixtureBlock {
  number: bigint
  hash: string
  parentHash: string
  coinbase: string
  stateRoot: string
  transactionsRoot: string
  receiptsRoot: string
  logsBloom: string
  gasLimit: bigint
  gasUsed: bigint
  timestamp: bigint
  extraData: string
  mixHash: string
  baseFeePerGas: bigint
  /** `eth_sendRawTransaction` payloads: typed envelopes as they are, legacy transactions RLP-encoded. */
  rawTransactions: string[]
  /** Each transaction's recipient (undefined for a creation) and calldata. */
  calls: { to: string | undefined; data: string }[]
}

/** `to` and `data` of a transaction as chain.rlp holds it (a legacy list, or a typed envelope). */
function callOf(tx: Uint8Array | Uint8Array[]): { to: string | undefined; data: string } {
  let fields: Uint8Array[]
  let toAt: number
  if (tx instanceof Uint8Array) {
    fields = RLP.decode(tx.subarray(1)) as Uint8Array[]
    // type 1: chainId, nonce, gasPrice, gas, to...; types 2, 3, 4: chainId, nonce, tip, feeCap, gas, to...
    toAt = tx[0] === 1 ? 4 : 5
  } else {
    fields = tx
    toAt = 3
  }
  const to = fields[toAt]!
  return { to: to.length === 0 ? undefined : bytesToHex(to), data: bytesToHex(fields[toAt + 2]!) }
}

const big = (b: Uint8Array) => (b.length === 0 ? 0n : BigInt(bytesToHex(b)))

/** Reads `chain.rlp` (blocks 1..N, concatenated) without the VM: RLP and keccak only. */
export function readFixtureBlocks(dir = BENCH_FIXTURE): FixtureBlock[] {
  let data: Uint8Array = new Uint8Array(readFileSync(join(dir, 'chain.rlp')))
  const blocks: FixtureBlock[] = []
  while (data.length > 0) {
    const { data: decoded, remainder } = RLP.decode(data, true) as unknown as { data: unknown[]; remainder: Uint8Array }
    const header = decoded[0] as Uint8Array[]
    const txs = decoded[1] as (Uint8Array | Uint8Array[])[]
    const f = (i: number) => bytesToHex(header[i]!)
    blocks.push({
      number: big(header[8]!),
      hash: bytesToHex(keccak256(RLP.encode(header))),
      parentHash: f(0),
      coinbase: f(2),
      stateRoot: f(3),
      transactionsRoot: f(4),
      receiptsRoot: f(5),
      logsBloom: f(6),
      gasLimit: big(header[9]!),
      gasUsed: big(header[10]!),
      timestamp: big(header[11]!),
      extraData: f(12),
      mixHash: f(13),
      baseFeePerGas: big(header[15]!),
      rawTransactions: txs.map((t) => (t instanceof Uint8Array ? bytesToHex(t) : bytesToHex(RLP.encode(t)))),
      calls: txs.map(callOf),
    })
    data = remainder
  }
  return blocks
}

export interface FixtureIndex {
  chainId: number
  accounts: { name: string; address: string; privateKey?: string }[]
  contracts: { name: string; contract: string; address: string }[]
  transactions: { block: number; index: number; hash: string; type: number; status: number; summary: string }[]
}

export function readFixtureIndex(dir = BENCH_FIXTURE): FixtureIndex {
  return JSON.parse(readFileSync(join(dir, 'accounts.json'), 'utf8')) as FixtureIndex
}

/** The geth genesis as written by the builder. */
export function readGenesis(dir = BENCH_FIXTURE): { config: { chainId: number }; alloc: Record<string, unknown>; gasLimit: string; timestamp: string } {
  return JSON.parse(readFileSync(join(dir, 'genesis.json'), 'utf8'))
}
