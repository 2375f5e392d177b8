/**
 * A fixture's files to a verified `Chain`: `genesis.json` opened, every block of `chain.rlp`
 * replayed through the VM on its parent's state (with the state edits `edits.json` lists before
 * it, and its impersonated senders), each required to reproduce its header's state root, receipts
 * root, bloom and gas used (and its transactions, uncles and withdrawals roots); a block that does
 * not is refused with an error naming the block and the field. What a successful replay produced
 * is kept (verifiedCache.ts), and later loads of the same files with the same code start from it
 * instead of replaying. `loadFixture` (./loadFixture.ts) reads the files from a folder.
 */
import { join } from 'node:path'
import { createBlockFromBytesArray } from '@ethereumjs/block'
import type { Block, BlockBytes } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigInt, bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util'
import type { Common } from '@ethereumjs/common'
import type { VM } from '@ethereumjs/vm'
import { Chain } from '../chain.ts'
import type { EditedState } from '../chain.ts'
import type { MiningMode } from '../mining/miner.ts'
import type { BlockRecord } from '../blocks/types.ts'
import type { ChainClock } from '../clock.ts'
import { withoutEthereumJsContext } from '../vm/ethereumjsMessage.ts'
import { openGenesisChain, openVerifiedGenesis, stateOver } from './genesis.ts'
import { cacheKey, defaultCacheDir, readCache, writeCache } from './verifiedCache.ts'
import type { CachedRecord } from './verifiedCache.ts'
import type { StateEdit } from '../vm/stateEdits.ts'
import { recordFromExecution, recordOf } from '../blocks/record.ts'
import { hasPlaceholderSignature, impersonatedSender, withSender } from '../pool/impersonation.ts'
import { KeyBook } from '../vm/keyBook.ts'
import type { RecordingStateManager } from '../vm/recordingState.ts'
import { applyEdits } from '../vm/stateEdits.ts'
import { loadedVmLibraries } from '../vm/vmLibraries.ts'
import { NO_EDITS, parseEditsFile } from './editsFile.ts'
import type { ParsedEdits } from './editsFile.ts'
import { checkGenesis, FixtureError } from './fixtureFiles.ts'
import type { Hardfork } from './genesis.ts'
import type { Forkchoice } from './fixtureFiles.ts'
import { keccakReady } from '../../encoding/keccak.ts'

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
  /** For an Anvil state dump, which records none: the chain id (default 31337, Anvil's). */
  chainId?: number
  /** For an Anvil state dump: the rules (default `osaka`). */
  hardfork?: Hardfork
}

/** A fixture's files, as read (what `loadFixtureFiles` loads; an export writes them again). */
export interface FixtureFiles {
  /** `genesis.json` */
  readonly genesis: Uint8Array
  /** `chain.rlp` (empty: the genesis block alone) */
  readonly chain: Uint8Array
  /** `edits.json` (see editsFile.ts) */
  readonly edits?: Uint8Array
  /** The safe and finalized blocks (`forkchoice.json`, or hive's `headfcu.json`), checked */
  readonly forkchoice?: Forkchoice
  /** Where they were read, for messages */
  readonly forkchoicePath?: string
  /** `accounts.json`, parsed: kept for an export, not read by the loader */
  readonly index?: unknown
  /** The contracts `accounts.json` names, by name (`Chain.contracts`) */
  readonly contracts?: Readonly<Record<string, string>>
}

/** Loads a fixture from its files' contents (`loadFixture` reads them from a folder). */
export async function loadFixtureFiles(files: FixtureFiles, opts: LoadOptions & { name: string; dir?: string }): Promise<Chain> {
  const { name } = opts
  const genesisBytes = files.genesis
  const genesisPath = opts.dir === undefined ? 'genesis.json' : join(opts.dir, 'genesis.json')
  const genesis = checkGenesis(parseJson<unknown>(genesisBytes, genesisPath, name), genesisPath, name)
  const encoded = files.chain
  const edits = files.edits === undefined ? NO_EDITS : parseEditsFile(files.edits, name)

  const raws = [...decodeConcatenated(encoded, name)]

  const cacheDir = opts.cache === false ? undefined : (opts.cache ?? defaultCacheDir())
  const key = cacheDir === undefined ? undefined : cacheKey(files.edits === undefined ? [genesisBytes, encoded] : [genesisBytes, encoded, files.edits])
  const read = cacheDir !== undefined && key !== undefined ? readCache(cacheDir, key) : undefined
  // A cache holds every block of the chain it was made from (its key covers chain.rlp): one that
  // does not is ignored, and the chain replayed.
  const cached = read && read.records.length === raws.length ? read : undefined

  let common: Common
  let state: () => Promise<RecordingStateManager>
  let records: BlockRecord[]
  const edited = new Map<BlockRecord, EditedState>()
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
    const book = cached.book
    state = () => stateOver(new Map(entries), open.common, KeyBook.from(book))
    records = [recordOf(genesisBlock, [], [])]
    // Verified by an earlier load of these very bytes: the records are read back, and each block
    // is decoded into an EthereumJS Block only when something first asks for it (decoding builds a
    // Common per transaction: most of a cached load's time, for blocks most runs never read).
    let number = genesisBlock.header.number
    for (const [i, raw] of raws.entries()) {
      number++
      records.push(lazyRecord(raw, common, number, cached.records[i]!, name, edits.senders.get(number)))
    }
    for (const [i, saved] of cached.edited ?? []) {
      edited.set(records[i]!, { root: hexToBytes(saved.root as `0x${string}`), edits: saved.edits })
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
    let parentRoot = await applyRecordedEdits(stateManager, records[0]!, edits, edited, name)
    for (const raw of raws) {
      const block = decodeBlock(raw, common, name, parent, edits.senders.get(parent.header.number + 1n))
      // The blockchain serves BLOCKHASH to the replay (the chain's own VM reads the records).
      await blockchain.putBlock(block)
      await checkStaticRoots(block, name)
      const record = await replay(vm, block, parent, parentRoot, name)
      records.push(record)
      parentRoot = await applyRecordedEdits(stateManager, record, edits, edited, name)
      parent = block
    }
    const unused = [...edits.stateAfter.keys(), ...edits.senders.keys()].find((n) => !records.some((r) => r.number === n))
    if (unused !== undefined) throw new FixtureError(`fixture ${name}: edits.json names block ${unused}, which is not in the chain`)
    if (cacheDir !== undefined && key !== undefined) {
      writeCache(cacheDir, key, {
        genesisStateRoot: bytesToHex(genesisBlock.header.stateRoot),
        records: records.slice(1).map((r) => ({ hash: r.hash, transactions: [...r.transactions], receipts: [...r.receipts] })),
        entries: [...stateEntries],
        book: stateManager.book.save(),
        edited: records.flatMap((r, i) => {
          const e = edited.get(r)
          return e ? [[i, { root: bytesToHex(e.root), edits: [...e.edits] }] as [number, { root: string; edits: StateEdit[] }]] : []
        }),
      })
    }
  }

  const head = records[records.length - 1]!
  const { safe, finalized } = resolveForkchoice(files.forkchoice ?? {}, files.forkchoicePath ?? 'forkchoice.json', name, records, head.number)
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
    edits: edited,
    ...(files.contracts === undefined ? {} : { contracts: files.contracts }),
    source: { genesis: genesisBytes, ...(files.index === undefined ? {} : { index: files.index }) },
  })
}

/** EthereumJS's refusal of a genesis that passed `checkGenesis` (a value it cannot read), naming the file. */
function genesisError(err: unknown, path: string, name: string): FixtureError {
  return err instanceof FixtureError ? err : new FixtureError(`fixture ${name}: ${path}: ${withoutEthereumJsContext(err)}`)
}

/**
 * Applies the state edits `edits.json` lists after `record` (if any) on its state, checks the root
 * they give against the one written, and notes them; returns the state root the next block
 * executes on.
 */
async function applyRecordedEdits(
  state: RecordingStateManager,
  record: BlockRecord,
  edits: ParsedEdits,
  edited: Map<BlockRecord, EditedState>,
  name: string,
): Promise<Uint8Array> {
  const root = record.block.header.stateRoot
  const entry = edits.stateAfter.get(record.number)
  if (!entry) return root
  await state.setStateRoot(root)
  await applyEdits(state, entry.edits)
  const got = await state.getStateRoot()
  if (!equalsBytes(got, entry.root)) {
    throw new FixtureError(
      `fixture ${name}: edits.json: the state edits after block ${record.number} give state root ${bytesToHex(got)}, the file says ${bytesToHex(entry.root)}`,
    )
  }
  edited.set(record, { root: got, edits: entry.edits })
  return got
}

export function parseJson<T>(bytes: Uint8Array, path: string, name: string): T {
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as T
  } catch (err) {
    throw new FixtureError(`fixture ${name}: ${path} is not valid JSON (${(err as Error).message})`)
  }
}

/** A transaction's sender given by `edits.json` (an impersonated send). */
type GivenSenders = ReadonlyMap<number, { from: string; hash: string }>

/**
 * Gives the listed transactions of `block` (decoded unfrozen) their senders, after checking that
 * each is there, has that hash and carries the placeholder signature of that sender.
 */
function giveSenders(block: Block, senders: GivenSenders, name: string): void {
  for (const [index, { from, hash }] of senders) {
    const tx = block.transactions[index]
    const where = `fixture ${name}: edits.json: block ${block.header.number} transaction ${index}`
    if (!tx) throw new FixtureError(`${where} is not in the block`)
    if (bytesToHex(tx.hash()) !== hash) throw new FixtureError(`${where} has hash ${bytesToHex(tx.hash())}, the file says ${hash}`)
    if (!hasPlaceholderSignature(tx, from)) throw new FixtureError(`${where} does not carry the impersonation placeholder signature of ${from}`)
    withSender(tx, from)
  }
}

function decodeWith(raw: BlockBytes, common: Common, senders: GivenSenders | undefined, name: string): Block {
  if (!senders) return createBlockFromBytesArray(raw, { common, setHardfork: true })
  const block = createBlockFromBytesArray(raw, { common, setHardfork: true, freeze: false })
  giveSenders(block, senders, name)
  return block
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
function lazyRecord(raw: BlockBytes, common: Chain['common'], number: bigint, saved: CachedRecord, name: string, senders: GivenSenders | undefined): BlockRecord {
  let block: Block | undefined
  return {
    get block(): Block {
      if (block === undefined) {
        try {
          block = decodeWith(raw, common, senders, name)
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

function decodeBlock(raw: BlockBytes, common: Chain['common'], name: string, parent: Block, senders: GivenSenders | undefined): Block {
  const expected = parent.header.number + 1n
  let block: Block
  try {
    block = decodeWith(raw, common, senders, name)
  } catch (err) {
    if (err instanceof FixtureError) throw err
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

/**
 * Runs `block` on its parent's state (at `parentRoot`: the parent's, with its state edits) and
 * checks what the execution must reproduce.
 */
async function replay(vm: VM, block: Block, parent: Block, parentRoot: Uint8Array, name: string): Promise<BlockRecord> {
  const where = `fixture ${name}: block ${block.header.number}`
  let result
  try {
    result = await loadedVmLibraries().vm.runBlock(vm, {
      block,
      root: parentRoot,
      setHardfork: true,
      // A block with impersonated transactions has placeholder signatures, which EthereumJS's block
      // validation refuses; its roots were checked (checkStaticRoots) and its execution is below.
      skipBlockValidation: block.transactions.some((tx) => impersonatedSender(tx) !== undefined),
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

function resolveForkchoice(file: Forkchoice, path: string, name: string, records: BlockRecord[], head: bigint): { safe: bigint; finalized: bigint } {
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
