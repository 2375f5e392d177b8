/**
 * A forked network: a chain whose first block and head is the upstream's fork block (its header as
 * the upstream answered it, its hash kept exactly), whose state is the upstream's at that block,
 * read as needed (../../vm/forkState.ts, ./forkSource.ts), and whose later blocks are its own.
 * Everything read is kept in the fork's cache (./forkCache.ts); an offline start (or one whose
 * upstream does not answer) serves from that cache alone, or from a frozen fixture (./freeze.ts).
 */
import { Block, createBlockHeaderFromRPC } from '@ethereumjs/block'
import { bytesToHex, hexToBytes, KECCAK256_RLP, ValueEncoding } from '@ethereumjs/util'
import { recordOf } from '../../blocks/record.ts'
import { Chain } from '../../chain.ts'
import { ForkTrie } from '../../vm/forkTrie.ts'
import { KeyBook } from '../../vm/keyBook.ts'
import { TrieDatabase } from '../../vm/trieDatabase.ts'
import { merkleState } from '../../vm/vmLibraries.ts'
import { ANVIL_TAG_LAGS } from '../anvilState.ts'
import { FixtureError } from '../fixtureFiles.ts'
import { chainConfig, commonFromGenesis, HARDFORKS } from '../genesis.ts'
import type { Hardfork } from '../genesis.ts'
import { defaultCacheDir } from '../verifiedCache.ts'
import { findForkCache, forkCacheDir, ForkJournal, readManifest, writeManifest } from './forkCache.ts'
import type { ForkManifest } from './forkCache.ts'
import type { ForkLoadOptions, ForkSettings } from './forkSettings.ts'
import { ForkSource } from './forkSource.ts'
import { checkForkProofs } from './freeze.ts'
import { choseHardfork } from './forkRules.ts'
import { redactUrl, Upstream, UpstreamError } from './upstream.ts'

export type { ForkLoadOptions, ForkSettings }

/** Opens a forked network (see the top of this file). */
export async function openFork(settings: ForkSettings, opts: ForkLoadOptions): Promise<Chain> {
  const cacheDir = opts.cache === false ? undefined : (opts.cache ?? defaultCacheDir())
  if (settings.frozen !== undefined) {
    const manifest = readManifest(settings.frozen)
    if (manifest === undefined) throw new FixtureError(`fork ${opts.name}: ${settings.frozen} is not a frozen fork (no fork.json)`)
    const journal = new ForkJournal(settings.frozen, { readOnly: true })
    await checkForkProofs(manifest, journal.entries(), `fixture ${opts.name} (${settings.frozen})`)
    return forkChain(manifest, journal, undefined, settings, opts)
  }
  if (settings.url === undefined) throw new FixtureError(`fork ${opts.name}: needs a url (or a frozen fixture)`)
  const label = redactUrl(settings.url)
  const offline = (): Promise<Chain> => {
    const found = cacheDir === undefined ? undefined : findForkCache(cacheDir, label, settings.block)
    if (found === undefined) {
      throw new FixtureError(`fork ${opts.name}: offline, and no cache of ${label}${settings.block === undefined ? '' : ` at block ${settings.block}`} in ${cacheDir ?? '(no cache folder)'}`)
    }
    return forkChain(found.manifest, new ForkJournal(found.dir), undefined, settings, opts)
  }
  if (settings.offline === true) return offline()
  const client = new Upstream({ ...opts.upstream, url: settings.url, ...(settings.headers ? { headers: settings.headers } : {}) })
  // With a cache to fall back on, a node that does not answer at start is not waited for long;
  // nor is one a running network is asked to fork from (`quickProbe`: anvil_reset).
  const cached = cacheDir !== undefined && findForkCache(cacheDir, label, settings.block) !== undefined
  const quick = cached || opts.quickProbe === true
  const probe = quick ? new Upstream({ ...opts.upstream, url: settings.url, ...(settings.headers ? { headers: settings.headers } : {}), budgetMs: Math.min(opts.upstream?.budgetMs ?? 3_000, 3_000) }) : client
  let chainId: string
  try {
    chainId = await probe.call<string>('eth_chainId', [])
  } catch (err) {
    // The upstream is down: a cache of this fork serves alone, as offline.
    if (err instanceof UpstreamError && cached) return offline()
    throw new FixtureError(`fork ${opts.name}: ${(err as Error).message}`)
  }
  const block = settings.block ?? BigInt(await client.call<string>('eth_blockNumber', []))
  if (settings.block === undefined) opts.onPinned?.(`fork ${opts.name}: ${label} pinned at its head, block ${block}`)
  const header = await client.call<Record<string, unknown> | null>('eth_getBlockByNumber', [`0x${block.toString(16)}`, false])
  if (header === null) throw new FixtureError(`fork ${opts.name}: ${label} has no block ${block}`)
  const hardfork = settings.hardfork ?? (await choseHardfork(client, BigInt(chainId), header))
  const { transactions: _transactions, ...kept } = header
  const manifest: ForkManifest = { format: 1, upstream: label, chainId, block: `0x${block.toString(16)}`, hash: String(header.hash).toLowerCase(), header: kept, hardfork }
  const dir = cacheDir === undefined ? undefined : forkCacheDir(cacheDir, BigInt(chainId), block, manifest.hash)
  if (dir !== undefined) writeManifest(dir, manifest)
  return forkChain(manifest, new ForkJournal(dir), client, settings, opts)
}

/** The chain of a fork, from its manifest. */
async function forkChain(manifest: ForkManifest, journal: ForkJournal, client: Upstream | undefined, settings: ForkSettings, opts: ForkLoadOptions): Promise<Chain> {
  const chainId = BigInt(manifest.chainId)
  const number = BigInt(manifest.block)
  const hardfork = settings.hardfork ?? (manifest.hardfork as Hardfork)
  if (!HARDFORKS.includes(hardfork)) throw new FixtureError(`fork ${opts.name}: hardfork must be one of ${HARDFORKS.join(', ')}, got ${hardfork}`)
  const h = manifest.header
  const common = commonFromGenesis(
    {
      config: chainConfig(Number(chainId), hardfork),
      alloc: {},
      nonce: '0x0',
      timestamp: String(h.timestamp),
      extraData: '0x',
      gasLimit: String(h.gasLimit),
      difficulty: '0x0',
      mixHash: String(h.mixHash ?? `0x${'00'.repeat(32)}`),
      coinbase: String(h.miner),
      baseFeePerGas: String(h.baseFeePerGas ?? '0x0'),
    },
    opts.name,
  )
  const header = createBlockHeaderFromRPC(h as never, { common })
  const hash = hexToBytes(manifest.hash as `0x${string}`)
  // A header with fields EthereumJS encodes otherwise still answers with the upstream's hash.
  if (bytesToHex(header.hash()) !== manifest.hash) Object.defineProperty(header, 'hash', { value: () => hash })
  const block = new Block(header, [], [], header.withdrawalsRoot === undefined ? undefined : [], { common })
  const record = recordOf(block, [], [])
  const connect = settings.frozen === undefined ? (url: string) => new Upstream({ ...opts.upstream, url, ...(settings.headers ? { headers: settings.headers } : {}) }) : undefined
  const opening = { settings, opts }
  const source = new ForkSource({ client, journal, block: number, hash: manifest.hash, chainId, upstream: manifest.upstream, opening, ...(connect ? { connect } : {}) })
  const trie = () => new ForkTrie({ db: TrieDatabase.over(new Map()), valueEncoding: ValueEncoding.Bytes, useKeyHashing: true, common })
  return Chain.open({
    name: opts.name,
    common,
    // The chain's own trie starts empty: what it lacks is the upstream's (../../vm/forkState.ts).
    state: () => merkleState(common, trie(), new KeyBook(), source),
    records: [record],
    edits: new Map([[record, { root: KECCAK256_RLP, edits: [] }]]),
    safe: number,
    finalized: number,
    lags: ANVIL_TAG_LAGS,
    clock: opts.clock,
    miningMode: opts.miningMode,
    upstream: source,
  })
}
