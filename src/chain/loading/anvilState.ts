/**
 * Anvil's state dumps, both ways. A dump (`anvil --dump-state`, or `anvil_dumpState`'s hex of
 * gzipped JSON) holds every account (balance, nonce, code, storage) at one block, that block's
 * environment (number, timestamp, gas limit, base fee, fee recipient, prevrandao, excess blob
 * gas), and, from Anvil 1.x, its mined blocks and their transactions with receipts, but no state of
 * any earlier block and no chain id or hardfork.
 *
 * Loaded, a dump becomes a chain of one block: a genesis at the dump's block number and time with
 * the dump's accounts as its alloc, the dump's gas limit, base fee, fee recipient and prevrandao,
 * and the parent hash of the dump's block when the dump lists it. Its hash is not Anvil's (the
 * header is the double's own); earlier blocks, transactions and receipts are not served. The chain
 * id is 31337 (Anvil's default) and the rules Osaka's unless told otherwise. `safe` and `finalized`
 * follow Anvil's rule (the head less 32 and 64 blocks, an epoch and two) but never name a block
 * before the dump's, which is the first one served: both are the dump's block at first, and the
 * blocks mined after it can be reorganised (the dump's own cannot: its parent's state is not held,
 * and Anvil answers "Required data unavailable" to that reorg).
 *
 * Written (`anvil_dumpState`), a chain's head state becomes a dump Anvil loads: every account the
 * key book names (vm/keyBook.ts) that exists at the head, with its non-zero slots, the head's
 * environment, and the head block's header (Anvil needs the block its `best_block_number` names),
 * listed without its transactions; no other blocks, no transactions or receipts.
 */
import { readFileSync } from 'node:fs'
import { gunzipSync, gzipSync } from 'node:zlib'
import { bytesToBigInt, bytesToHex, createAddressFromString, hexToBytes, KECCAK256_NULL, setLengthLeft } from '@ethereumjs/util'
import type { BlockHeader } from '@ethereumjs/block'
import type { Chain } from '../chain.ts'
import type { LoadOptions } from './openFixture.ts'
import { loadFixtureFiles } from './openFixture.ts'
import { FixtureError } from './fixtureFiles.ts'
import { chainConfig, HARDFORKS } from './genesis.ts'
import type { GenesisFile, Hardfork } from './genesis.ts'
import type { StateEdit } from '../vm/stateEdits.ts'

/** Anvil's default chain id, which a dump does not record. */
export const ANVIL_CHAIN_ID = 31337
/** Anvil's default gas limit and first base fee, for a dump without them. */
const ANVIL_GAS_LIMIT = 30_000_000n
const ANVIL_BASE_FEE = 1_000_000_000n
/** How far Anvil's `safe` and `finalized` trail its head: one epoch of 32 slots, and two. */
export const ANVIL_TAG_LAGS = { safe: 32n, finalized: 64n } as const
/** A gzipped dump inflates to at most this (a bound on a hostile or broken input). */
export const MAX_DUMP_BYTES = 256 * 1024 * 1024

/** Anvil's `SerializableState`, as far as it is read here (older dumps lack some fields). */
export interface AnvilDump {
  block?: {
    number?: Quantity
    beneficiary?: string
    coinbase?: string
    timestamp?: Quantity
    gas_limit?: Quantity
    basefee?: Quantity
    difficulty?: Quantity
    prevrandao?: string | null
    blob_excess_gas_and_price?: { excess_blob_gas?: Quantity; blob_gasprice?: Quantity } | null
  }
  accounts: Record<string, { nonce?: Quantity; balance?: Quantity; code?: string; storage?: Record<string, Quantity> }>
  best_block_number?: Quantity
  blocks?: { header?: { number?: string; parentHash?: string; [field: string]: unknown }; [field: string]: unknown }[]
  transactions?: unknown[]
  historical_states?: unknown
}

type Quantity = number | string

export interface AnvilLoadOptions extends LoadOptions {
  name: string
}

/** The dump's JSON from any of its forms: JSON, JSON holding the hex string, the hex of gzipped JSON, gzipped bytes. */
export function parseAnvilDump(input: Uint8Array | string, where: string): AnvilDump {
  let bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.from(input)
  if (bytes[0] !== 0x1f) {
    let text = bytes.toString('utf8').trim()
    if (text.startsWith('"')) text = parseJson<string>(text, where)
    if (/^0x1f8b/i.test(text)) {
      if (!/^0x(?:[0-9a-f]{2})*$/i.test(text)) throw new FixtureError(`${where}: not valid hex`)
      bytes = Buffer.from(text.slice(2), 'hex')
    } else return checkDump(parseJson<AnvilDump>(text, where), where)
  }
  let inflated: Buffer
  try {
    inflated = gunzipSync(bytes, { maxOutputLength: MAX_DUMP_BYTES })
  } catch (err) {
    throw new FixtureError(`${where}: not a gzipped Anvil state dump (${(err as Error).message})`)
  }
  return checkDump(parseJson<AnvilDump>(inflated.toString('utf8'), where), where)
}

/** Whether a file holds an Anvil dump rather than a fixture source (looks at its start only). */
export function looksLikeAnvilDump(path: string): boolean {
  let head: string
  try {
    const bytes = readFileSync(path)
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) return true
    head = bytes.subarray(0, 4096).toString('utf8').trimStart()
  } catch {
    return false
  }
  return /^"?0x1f8b/i.test(head) || /^\{\s*"(block|accounts)"\s*:/.test(head)
}

function parseJson<T>(text: string, where: string): T {
  try {
    return JSON.parse(text) as T
  } catch (err) {
    throw new FixtureError(`${where}: not valid JSON (${(err as Error).message})`)
  }
}

function checkDump(dump: AnvilDump, where: string): AnvilDump {
  if (typeof dump !== 'object' || dump === null || typeof dump.accounts !== 'object' || dump.accounts === null || Array.isArray(dump.accounts)) {
    throw new FixtureError(`${where}: not an Anvil state dump (no "accounts" object)`)
  }
  return dump
}

/** A quantity as Anvil writes it: a JSON number, a 0x hex string or a decimal string. */
function quantity(v: Quantity | null | undefined, field: string, where: string): bigint | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v)
  if (typeof v === 'string' && /^(0x[0-9a-f]{1,64}|[0-9]{1,78})$/i.test(v)) return BigInt(v)
  throw new FixtureError(`${where}: ${field}: not a quantity: ${JSON.stringify(v)}`)
}

function word(v: Quantity, field: string, where: string): string {
  const n = quantity(v, field, where)!
  if (n >= 1n << 256n) throw new FixtureError(`${where}: ${field}: more than 32 bytes`)
  return `0x${n.toString(16).padStart(64, '0')}`
}

function address(v: string, field: string, where: string): string {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(v)) throw new FixtureError(`${where}: ${field}: not an address: ${JSON.stringify(v)}`)
  return v.toLowerCase()
}

const hex = (n: bigint): string => `0x${n.toString(16)}`

/** The dump's accounts as state edits (what `anvil_loadState` applies), sorted by address. */
export function dumpEdits(dump: AnvilDump, where: string): StateEdit[] {
  return Object.entries(dump.accounts)
    .map(([addr, acc]): StateEdit => {
      const at = `accounts.${addr}`
      const code = acc.code ?? '0x'
      if (typeof code !== 'string' || !/^0x(?:[0-9a-fA-F]{2})*$/.test(code)) throw new FixtureError(`${where}: ${at}.code: not 0x bytes`)
      const storage: Record<string, string> = {}
      for (const [slot, value] of Object.entries(acc.storage ?? {})) storage[word(slot, `${at}.storage`, where)] = word(value, `${at}.storage.${slot}`, where)
      return {
        address: address(addr, at, where),
        balance: hex(quantity(acc.balance, `${at}.balance`, where) ?? 0n),
        nonce: hex(quantity(acc.nonce, `${at}.nonce`, where) ?? 0n),
        code: code.toLowerCase(),
        storage,
      }
    })
    .sort((a, b) => (a.address < b.address ? -1 : 1))
}

/** The geth genesis file a dump loads as (see the top of this file). */
export function dumpGenesis(dump: AnvilDump, opts: { chainId?: number; hardfork?: Hardfork }, where: string): GenesisFile {
  const hardfork = opts.hardfork ?? 'osaka'
  if (!HARDFORKS.includes(hardfork)) throw new FixtureError(`${where}: hardfork must be one of ${HARDFORKS.join(', ')}, got ${String(hardfork)}`)
  const env = dump.block ?? {}
  const number = quantity(env.number, 'block.number', where) ?? quantity(dump.best_block_number, 'best_block_number', where) ?? 0n
  const listed = (dump.blocks ?? []).find((b) => typeof b?.header?.number === 'string' && BigInt(b.header.number) === number)
  const parentHash = typeof listed?.header?.parentHash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(listed.header.parentHash) ? listed.header.parentHash.toLowerCase() : undefined
  const alloc: Record<string, unknown> = {}
  for (const edit of dumpEdits(dump, where)) {
    const storage = Object.fromEntries(Object.entries(edit.storage ?? {}).filter(([, v]) => BigInt(v) !== 0n))
    alloc[edit.address.slice(2)] = {
      ...(edit.code === '0x' ? {} : { code: edit.code }),
      ...(Object.keys(storage).length === 0 ? {} : { storage }),
      balance: edit.balance,
      ...(edit.nonce === '0x0' ? {} : { nonce: edit.nonce }),
    }
  }
  const cancun = HARDFORKS.indexOf(hardfork) >= HARDFORKS.indexOf('cancun')
  return {
    config: chainConfig(opts.chainId ?? ANVIL_CHAIN_ID, hardfork),
    nonce: '0x0',
    timestamp: hex(quantity(env.timestamp, 'block.timestamp', where) ?? 0n),
    extraData: '0x',
    gasLimit: hex(quantity(env.gas_limit, 'block.gas_limit', where) ?? ANVIL_GAS_LIMIT),
    difficulty: '0x0',
    mixHash: typeof env.prevrandao === 'string' && /^0x[0-9a-fA-F]{64}$/.test(env.prevrandao) ? env.prevrandao.toLowerCase() : `0x${'00'.repeat(32)}`,
    coinbase: address(env.beneficiary ?? env.coinbase ?? `0x${'00'.repeat(20)}`, 'block.beneficiary', where),
    alloc,
    number: hex(number),
    gasUsed: '0x0',
    parentHash: parentHash ?? `0x${'00'.repeat(32)}`,
    baseFeePerGas: hex(quantity(env.basefee, 'block.basefee', where) ?? ANVIL_BASE_FEE),
    ...(cancun ? { excessBlobGas: hex(quantity(env.blob_excess_gas_and_price?.excess_blob_gas, 'block.blob_excess_gas_and_price', where) ?? 0n), blobGasUsed: '0x0' } : {}),
  }
}

/** Loads an Anvil dump file as a chain of one block (see the top of this file). */
export async function loadAnvilDump(path: string, opts: AnvilLoadOptions): Promise<Chain> {
  const where = `fixture ${opts.name}: ${path}`
  let bytes: Uint8Array
  try {
    bytes = readFileSync(path)
  } catch {
    throw new FixtureError(`fixture ${opts.name}: cannot read ${path}`)
  }
  return loadAnvilState(parseAnvilDump(bytes, where), opts, where)
}

/** Loads a parsed dump as a chain of one block. */
export function loadAnvilState(dump: AnvilDump, opts: AnvilLoadOptions, where = `fixture ${opts.name}`): Promise<Chain> {
  const genesis = dumpGenesis(dump, opts, where)
  const number = genesis.number as string
  return loadFixtureFiles(
    {
      genesis: Buffer.from(`${JSON.stringify(genesis, null, 2)}\n`),
      chain: new Uint8Array(),
      forkchoice: { safe: number, finalized: number },
      lags: ANVIL_TAG_LAGS,
    },
    opts,
  )
}

/**
 * The chain's head state as Anvil's `SerializableState`: every account the chain's key book names
 * that exists at the head (what reads of the head see, state edits included), with its slots whose
 * value is not zero, and the head block's environment.
 */
export async function dumpChainState(chain: Chain): Promise<AnvilDump> {
  const head = chain.head
  const [state, book] = await Promise.all([chain.stateAt(head), chain.keyBook()])
  const accounts: AnvilDump['accounts'] = {}
  for (const [addr, slots] of [...book.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const at = createAddressFromString(addr)
    const account = await state.getAccount(at)
    if (!account) continue
    const storage: Record<string, string> = {}
    for (const slot of [...slots].sort()) {
      const value = await state.getStorage(at, hexToBytes(slot as `0x${string}`))
      if (bytesToBigInt(value) !== 0n) storage[slot] = bytesToHex(setLengthLeft(value, 32))
    }
    const code = account.codeHash.every((b, i) => b === KECCAK256_NULL[i]) ? new Uint8Array() : await state.getCode(at)
    accounts[addr] = { nonce: Number(account.nonce), balance: hex(account.balance), code: bytesToHex(code), storage }
  }
  const h = head.block.header
  return {
    block: {
      number: hex(h.number),
      beneficiary: h.coinbase.toString(),
      timestamp: hex(h.timestamp),
      gas_limit: Number(h.gasLimit),
      basefee: Number(h.baseFeePerGas ?? 0n),
      difficulty: hex(h.difficulty),
      prevrandao: bytesToHex(h.mixHash),
      blob_excess_gas_and_price: h.excessBlobGas === undefined ? null : { excess_blob_gas: Number(h.excessBlobGas), blob_gasprice: Number(h.getBlobGasPrice()) },
    },
    accounts,
    best_block_number: Number(h.number),
    blocks: [{ header: headerJson(head.block.header), transactions: [], ommers: [], withdrawals: null }],
    transactions: [],
    historical_states: null,
  }
}

/** A header in the JSON-RPC field names Anvil's dumps use (only the fields its fork has). */
function headerJson(h: BlockHeader): Record<string, string> {
  const optional: Record<string, bigint | Uint8Array | undefined> = {
    baseFeePerGas: h.baseFeePerGas,
    withdrawalsRoot: h.withdrawalsRoot,
    blobGasUsed: h.blobGasUsed,
    excessBlobGas: h.excessBlobGas,
    parentBeaconBlockRoot: h.parentBeaconBlockRoot,
    requestsHash: h.requestsHash,
  }
  return {
    parentHash: bytesToHex(h.parentHash),
    sha3Uncles: bytesToHex(h.uncleHash),
    miner: h.coinbase.toString(),
    stateRoot: bytesToHex(h.stateRoot),
    transactionsRoot: bytesToHex(h.transactionsTrie),
    receiptsRoot: bytesToHex(h.receiptTrie),
    logsBloom: bytesToHex(h.logsBloom),
    difficulty: hex(h.difficulty),
    number: hex(h.number),
    gasLimit: hex(h.gasLimit),
    gasUsed: hex(h.gasUsed),
    timestamp: hex(h.timestamp),
    extraData: bytesToHex(h.extraData),
    mixHash: bytesToHex(h.mixHash),
    nonce: bytesToHex(h.nonce),
    ...Object.fromEntries(
      Object.entries(optional).flatMap(([k, v]) => (v === undefined ? [] : [[k, typeof v === 'bigint' ? hex(v) : bytesToHex(v)]])),
    ),
  }
}

/** `anvil_dumpState`'s answer: the dump, gzipped, as 0x hex. */
export async function dumpStateHex(chain: Chain): Promise<string> {
  return `0x${gzipSync(JSON.stringify(await dumpChainState(chain))).toString('hex')}`
}
