/**
 * Loads a fixture chain folder: a geth `genesis.json`, a `chain.rlp` of blocks (what `geth export`
 * writes and hive ships), and optionally the safe and finalized blocks, from our `forkchoice.json`
 * (`{"safe": 5, "finalized": 4}`, numbers or hashes) or hive's `headfcu.json`. Without either, the
 * whole chain is final: safe = finalized = head.
 *
 * Every block is replayed through the VM on its parent's state and must reproduce its header's
 * state root, receipts root, bloom and gas used (and its transactions, uncles and withdrawals
 * roots); a block that does not is refused with an error naming the block and the field. What a
 * successful replay produced is kept (verifiedCache.ts), and later loads of the same fixture with
 * the same code start from it instead of replaying.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createBlockFromBytesArray } from '@ethereumjs/block'
import type { Block, BlockBytes } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigInt, bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util'
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { VM } from '@ethereumjs/vm'
import { Chain } from '../chain.ts'
import type { MiningMode } from '../mining/miner.ts'
import type { BlockRecord } from '../blocks/types.ts'
import type { ChainClock } from '../clock.ts'
import { withoutEthereumJsContext } from '../vm/ethereumjsMessage.ts'
import { checkForkchoice, checkGenesis, checkHeadFcu, FixtureError } from './fixtureFiles.ts'
import type { Forkchoice } from './fixtureFiles.ts'
import { keccakReady } from '../../encoding/keccak.ts'
import { openGenesisChain, openVerifiedGenesis, stateOver } from './genesis.ts'
import { readContractNames } from './accountsFile.ts'
import { cacheKey, defaultCacheDir, readCache, writeCache } from './verifiedCache.ts'
import type { CachedRecord } from './verifiedCache.ts'
import { recordFromExecution, recordOf } from '../blocks/record.ts'
import { loadedVmLibraries } from '../vm/vmLibraries.ts'

export { FixtureError }

export interface LoadOptions {
  /** The network name, used in messages and as the chain's name. Default: the folder's name. */
  name?: string
  /**
   * Where verified chains are kept (see verifiedCache.ts), or false to verify on every load.
   * Default: node_modules/.cache/gateway-double of the project the process runs in, else a folder
   * in the system's temporary folder; `GATEWAY_DOUBLE_CACHE_DIR` names another.
   */
  cache?: string | false
  /** Where blocks mined later take their timestamps from. Default: the system clock (`Date.now`). */
  clock?: ChainClock
  /** `auto` (default): each sent transaction is mined at once; `manual`: they wait for `chain.mine()`. */
  miningMode?: MiningMode
}

export async function loadFixture(folder: string, opts: LoadOptions = {}): Promise<Chain> {
  const dir = resolve(folder)
  const name = opts.name ?? dir.split('/').pop() ?? 'fixture'
  // A mistyped path is said as such, not as a fixture folder without its genesis.json.
  if (!existsSync(dir)) throw new FixtureError(`fixture ${name}: no such folder: ${dir}`)
  if (!statSync(dir).isDirectory()) throw new FixtureError(`fixture ${name}: ${dir} is a file, not a fixture folder (genesis.json, chain.rlp)`)
  try {
    return await load(dir, name, opts)
  } catch (err) {
    // Every failure names the fixture and its folder (the checks below name the file too).
    if (err instanceof FixtureError) throw err
    throw new FixtureError(`fixture ${name} (${dir}): ${withoutEthereumJsContext(err)}`)
  }
}

/** EthereumJS's refusal of a genesis that passed `checkGenesis` (a value it cannot read), naming the file. */
function genesisError(err: unknown, path: string, name: string): FixtureError {
  return err instanceof FixtureError ? err : new FixtureError(`fixture ${name}: ${path}: ${withoutEthereumJsContext(err)}`)
}

async function load(dir: string, name: string, opts: LoadOptions): Promise<Chain> {
  const genesisPath = join(dir, 'genesis.json')
  const genesisBytes = readBytes(genesisPath, name)
  const genesis = checkGenesis(parseJson<unknown>(genesisBytes, genesisPath, name), genesisPath, name)
  const rlpPath = join(dir, 'chain.rlp')
  const encoded = existsSync(rlpPath) ? readFileSync(rlpPath) : new Uint8Array()

  const raws = [...decodeConcatenated(encoded, name)]

  const cacheDir = opts.cache === false ? undefined : (opts.cache ?? defaultCacheDir())
  const key = cacheDir === undefined ? undefined : cacheKey([genesisBytes, encoded])
  const read = cacheDir !== undefined && key !== undefined ? readCache(cacheDir, key) : undefined
  // A cache holds every block of the chain it was made from (its key covers chain.rlp): one that
  // does not is ignored, and the chain replayed.
  const cached = read && read.records.length === raws.length ? read : undefined

  let common: Common
  let state: () => Promise<MerkleStateManager>
  let records: BlockRecord[]
  if (cached) {
    // No blockchain and no VM: a cached load executes nothing (see vmLibraries.ts).
    // Nor a state manager until something reads state.
    let verified: ReturnType<typeof openVerifiedGenesis>
    try {
      verified = openVerifiedGenesis(genesis, name, { genesisStateRoot: hexToBytes(cached.genesisStateRoot as `0x${string}`) })
    } catch (err) {
      throw genesisError(err, genesisPath, name)
    }
    const { genesisBlock, ...open } = verified
    common = open.common
    const entries = cached.entries
    state = () => stateOver(new Map(entries), open.common)
    records = [recordOf(genesisBlock, [], [])]
    // Verified by an earlier load of these very bytes: the records are read back, and each block
    // is decoded into an EthereumJS Block only when something first asks for it (decoding builds a
    // Common per transaction: most of a cached load's time, for blocks most runs never read).
    let number = genesisBlock.header.number
    for (const [i, raw] of raws.entries()) {
      number++
      records.push(lazyRecord(raw, common, number, cached.records[i]!, name))
    }
  } else {
    await keccakReady // the replay hashes every trie node it writes
    const open = await openGenesisChain(genesis, name, { validateBlocks: false }).catch((err: unknown) => {
      throw genesisError(err, genesisPath, name)
    })
    common = open.common
    const { blockchain, vm, genesisBlock, stateEntries, stateManager } = open
    state = () => Promise.resolve(stateManager)
    records = [recordOf(genesisBlock, [], [])]
    let parent = genesisBlock
    for (const raw of raws) {
      const block = decodeBlock(raw, common, name, parent)
      // The blockchain serves BLOCKHASH to the replay (the chain's own VM reads the records).
      await blockchain.putBlock(block)
      await checkStaticRoots(block, name)
      records.push(await replay(vm, block, parent, name))
      parent = block
    }
    if (cacheDir !== undefined && key !== undefined) {
      writeCache(cacheDir, key, {
        genesisStateRoot: bytesToHex(genesisBlock.header.stateRoot),
        records: records.slice(1).map((r) => ({ hash: r.hash, transactions: [...r.transactions], receipts: [...r.receipts] })),
        entries: [...stateEntries],
      })
    }
  }

  const head = records[records.length - 1]!
  const { safe, finalized } = readForkchoice(dir, name, records, head.number)
  return Chain.open({
    name,
    common,
    state,
    records,
    safe,
    finalized,
    verifiedBy: cached ? 'cache' : 'replay',
    clock: opts.clock,
    miningMode: opts.miningMode,
    contracts: readContractNames(dir, name),
  })
}

function readBytes(path: string, name: string): Uint8Array {
  try {
    return readFileSync(path)
  } catch {
    throw new FixtureError(`fixture ${name}: cannot read ${path}`)
  }
}

function parseJson<T>(bytes: Uint8Array, path: string, name: string): T {
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as T
  } catch (err) {
    throw new FixtureError(`fixture ${name}: ${path} is not valid JSON (${(err as Error).message})`)
  }
}

function readJson<T>(path: string, name: string): T {
  return parseJson<T>(readBytes(path, name), path, name)
}

function* decodeConcatenated(bytes: Uint8Array, name: string): Generator<BlockBytes> {
  let rest = bytes
  let index = 0
  while (rest.length > 0) {
    index++
    let decoded
    try {
      decoded = RLP.decode(rest, true)
    } catch (err) {
      throw new FixtureError(`fixture ${name}: chain.rlp item ${index} is not valid RLP (${(err as Error).message})`)
    }
    yield decoded.data as unknown as BlockBytes
    rest = decoded.remainder
  }
}

/** The header's timestamp field (the 12th), read from the block's RLP without decoding the block. */
const TIMESTAMP_FIELD = 11

/** A cached block's record; its `block` is decoded on first use and kept. */
function lazyRecord(raw: BlockBytes, common: Chain['common'], number: bigint, saved: CachedRecord, name: string): BlockRecord {
  let block: Block | undefined
  return {
    get block(): Block {
      if (block === undefined) {
        try {
          block = createBlockFromBytesArray(raw, { common, setHardfork: true })
        } catch (err) {
          throw new FixtureError(`fixture ${name}: block ${number} cannot be decoded (${(err as Error).message})`)
        }
      }
      return block
    },
    number,
    hash: saved.hash,
    timestamp: bytesToBigInt(raw[0][TIMESTAMP_FIELD] as Uint8Array),
    transactions: saved.transactions,
    receipts: saved.receipts,
  }
}

function decodeBlock(raw: BlockBytes, common: Chain['common'], name: string, parent: Block): Block {
  const expected = parent.header.number + 1n
  let block: Block
  try {
    block = createBlockFromBytesArray(raw, { common, setHardfork: true })
  } catch (err) {
    throw new FixtureError(`fixture ${name}: block ${expected} cannot be decoded (${(err as Error).message})`)
  }
  if (block.header.number !== expected) {
    throw new FixtureError(`fixture ${name}: block ${expected}: number is ${block.header.number}, want ${expected}`)
  }
  if (!equalsBytes(block.header.parentHash, parent.hash())) {
    throw new FixtureError(
      `fixture ${name}: block ${expected}: parentHash ${bytesToHex(block.header.parentHash)} is not block ${parent.header.number}'s hash ${bytesToHex(parent.hash())}`,
    )
  }
  return block
}

async function checkStaticRoots(block: Block, name: string): Promise<void> {
  const where = `fixture ${name}: block ${block.header.number}`
  if (!(await block.transactionsTrieIsValid())) throw new FixtureError(`${where}: transactionsRoot does not match its transactions`)
  if (!block.uncleHashIsValid()) throw new FixtureError(`${where}: uncleHash does not match its uncles`)
  if (block.withdrawals && !(await block.withdrawalsTrieIsValid())) {
    throw new FixtureError(`${where}: withdrawalsRoot does not match its withdrawals`)
  }
}

/** Runs `block` on its parent's state and checks what the execution must reproduce. */
async function replay(vm: VM, block: Block, parent: Block, name: string): Promise<BlockRecord> {
  const where = `fixture ${name}: block ${block.header.number}`
  let result
  try {
    result = await loadedVmLibraries().vm.runBlock(vm, {
      block,
      root: parent.header.stateRoot,
      setHardfork: true,
      // `generate` skips runBlock's own root checks: we make them below, with better messages.
      generate: true,
      skipHeaderValidation: true,
    })
  } catch (err) {
    throw new FixtureError(`${where}: execution failed (${withoutEthereumJsContext(err)})`)
  }
  const header = block.header
  const mismatch = (field: string, got: string, want: string): never => {
    throw new FixtureError(`${where}: ${field} mismatch: executing the block gives ${got}, the header says ${want}`)
  }
  if (result.gasUsed !== header.gasUsed) mismatch('gasUsed', `${result.gasUsed}`, `${header.gasUsed}`)
  if (!equalsBytes(result.receiptsRoot, header.receiptTrie)) {
    mismatch('receiptsRoot', bytesToHex(result.receiptsRoot), bytesToHex(header.receiptTrie))
  }
  if (!equalsBytes(result.logsBloom, header.logsBloom)) mismatch('logsBloom', 'another bloom', bytesToHex(header.logsBloom))
  if (header.requestsHash !== undefined && result.requestsHash !== undefined && !equalsBytes(result.requestsHash, header.requestsHash)) {
    mismatch('requestsHash', bytesToHex(result.requestsHash), bytesToHex(header.requestsHash))
  }
  if (!equalsBytes(result.stateRoot, header.stateRoot)) mismatch('stateRoot', bytesToHex(result.stateRoot), bytesToHex(header.stateRoot))

  return recordFromExecution(block, result.receipts)
}

function readForkchoice(dir: string, name: string, records: BlockRecord[], head: bigint): { safe: bigint; finalized: bigint } {
  const ours = join(dir, 'forkchoice.json')
  const hive = join(dir, 'headfcu.json')
  let file: Forkchoice = {}
  const path = existsSync(ours) ? ours : hive
  if (existsSync(ours)) {
    file = checkForkchoice(readJson<unknown>(ours, name), ours, name)
  } else if (existsSync(hive)) {
    file = checkHeadFcu(readJson<unknown>(hive, name), hive, name)
  }
  const find = (field: 'safe' | 'finalized'): bigint => {
    const value = file[field]
    if (value === undefined) return head
    if (typeof value === 'number' && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new FixtureError(`fixture ${name}: ${path}: ${field}: must be a block number of at least 0 or a block hash, got ${value}`)
    }
    if (typeof value === 'number' || /^\d+$/.test(value) || /^0x[0-9a-f]{1,16}$/i.test(value)) {
      const n = BigInt(value)
      if (n <= head) return n
      throw new FixtureError(`fixture ${name}: ${field} block ${n} is beyond the head ${head}`)
    }
    const byHash = records.find((r) => r.hash === value.toLowerCase())
    if (!byHash) throw new FixtureError(`fixture ${name}: ${field} block ${value} is not in the chain`)
    return byHash.number
  }
  return { safe: find('safe'), finalized: find('finalized') }
}
