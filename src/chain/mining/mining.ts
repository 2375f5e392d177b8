/**
 * Mining one block on top of a chain's head: the child header as the chain's fork schedule has it
 * at that height and time (EIP-1559 base fee from the parent, withdrawals `[]` from Shanghai, blob
 * gas fields and a zero parent beacon root from Cancun, the requests hash from Prague), the
 * transactions run once through `runBlock({generate: true})` on the parent's state, and the block's
 * header the one that run sealed its own block with (the shell's fields and the roots, bloom, gas
 * used and requests hash it computed), kept compact.
 */
import { Block, createBlockHeader, genTransactionsTrieRoot } from '@ethereumjs/block'
import type { BlockHeader, HeaderData } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { createTxFromRLP } from '@ethereumjs/tx'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Address, bigIntToAddressBytes, equalsBytes, KECCAK256_RLP } from '@ethereumjs/util'
import type { RunBlockResult, VM } from '@ethereumjs/vm'
import { keccak256 } from '../../encoding/keccak.ts'
import type { BlockRecord } from '../blocks/types.ts'
import { withoutEthereumJsContext } from '../vm/ethereumjsMessage.ts'
import { recordFromExecution } from '../blocks/record.ts'
import { compactCopy, compactHeader } from '../blocks/compactHeader.ts'
import { decodeImpersonated, impersonatedSender, waivingEip3607 } from '../pool/impersonation.ts'
import { collectPerTransaction } from '../vm/consoleTap.ts'
import { loadedVmLibraries } from '../vm/vmLibraries.ts'
import { keepingSystemCalls } from './systemCalls.ts'

/** The address system calls come from (EIP-7002 and after). */
const systemAddressOf = (common: Common) => new Address(bigIntToAddressBytes(common.param('systemAddress')))

/**
 * The child's header fields that do not depend on its transactions; `gasLimit` and `baseFee`
 * replace the parent's gas limit and the EIP-1559 base fee when given (a test's settings).
 */
export function childHeaderFields(
  parent: BlockRecord,
  common: Common,
  timestamp: bigint,
  coinbase: string,
  set: { gasLimit?: bigint; baseFee?: bigint } = {},
): HeaderData {
  const p = parent.block.header
  const fields: HeaderData = {
    parentHash: parent.block.hash(),
    number: p.number + 1n,
    timestamp,
    coinbase: coinbase as `0x${string}`,
    gasLimit: set.gasLimit ?? p.gasLimit,
    extraData: new Uint8Array(),
  }
  if (common.gteHardfork('paris')) {
    fields.difficulty = 0n
    // A deterministic, changing prevRandao: the hash of the parent's hash.
    fields.mixHash = keccak256(parent.block.hash())
  }
  if (common.isActivatedEIP(1559)) {
    fields.baseFeePerGas = set.baseFee ?? (p.baseFeePerGas !== undefined ? p.calcNextBaseFee() : common.param('initialBaseFee'))
  }
  if (common.isActivatedEIP(4895)) fields.withdrawalsRoot = KECCAK256_RLP
  if (common.isActivatedEIP(4844)) {
    fields.blobGasUsed = 0n
    fields.excessBlobGas = p.excessBlobGas !== undefined ? p.calcNextExcessBlobGas(common) : 0n
  }
  if (common.isActivatedEIP(4788)) fields.parentBeaconBlockRoot = new Uint8Array(32)
  return fields
}

/** A block execution failed before any EVM outcome (a transaction EthereumJS refuses to run). */
export class MiningError extends Error {
  override readonly name = 'MiningError'
}

/**
 * The transaction as the block's fork executes it (EthereumJS ties a transaction to a fork); an
 * impersonated one keeps its given sender.
 */
function atFork(tx: TypedTransaction, raw: Uint8Array, common: Common): TypedTransaction {
  if (tx.common.hardfork() === common.hardfork()) return tx
  const sender = impersonatedSender(tx)
  return sender === undefined ? createTxFromRLP(raw, { common }) : decodeImpersonated(raw, sender, common)
}

/**
 * Executes `txs` as the child of `parent`, on the state at `parentRoot` (the parent's, with any
 * state edits made on it), and returns its record. The VM's state is left at the new block's root. `vm` is a made VM (so `@ethereumjs/vm` is loaded: see vmLibraries.ts). Throws `MiningError` when EthereumJS refuses a transaction.
 */
export async function mineChild(
  vm: VM,
  parent: BlockRecord,
  parentRoot: Uint8Array,
  common: Common,
  fields: HeaderData,
  txs: readonly { tx: TypedTransaction; raw: Uint8Array }[],
): Promise<BlockRecord> {
  const transactions = txs.map((t) => atFork(t.tx, t.raw, common))
  // The blob gas used is known before the header is made (each header made costs a Common's copy).
  if (common.isActivatedEIP(4844)) {
    const blobs = transactions.reduce((n, tx) => n + ((tx as { blobVersionedHashes?: unknown[] }).blobVersionedHashes?.length ?? 0), 0)
    fields = { ...fields, blobGasUsed: BigInt(blobs) * common.param('blobGasPerBlob') }
  }
  let shellHeader = createBlockHeader(fields, { common })
  if (!common.gteHardfork('paris')) {
    fields = { ...fields, difficulty: shellHeader.ethashCanonicalDifficulty(parent.block.header) }
    shellHeader = createBlockHeader(fields, { common })
  }
  const withdrawals = common.isActivatedEIP(4895) ? [] : undefined
  const shell = new Block(shellHeader, transactions, [], withdrawals, { common })
  // Mining on the head (the usual case), the state manager is at the parent's root already: its
  // caches hold that state, and keeping them spares every block re-reading the same accounts and
  // system-contract slots from the trie. Its root is not set again either: setting it (even to
  // the same root) drops the storage tries it holds, and each block made two new ones (a trie
  // copy each) for the system contracts' slots. After a restore the state is at the parent's root
  // too, its caches the snapshot's (../vm/cacheJournal.ts); anywhere else (a reorg's branch), the
  // root is set and the caches go.
  const atParent = equalsBytes(await vm.stateManager.getStateRoot(), parentRoot)
  let run: RunBlockResult
  let logged: ReadonlyMap<number, readonly string[]> | undefined
  // The block runBlock seals (its header has the fields sealBlock would give it): its header is kept, not made again.
  let sealed: BlockHeader | undefined
  const seal = (event: { block: Block }) => {
    sealed = event.block.header
  }
  vm.events.on('afterBlock', seal)
  try {
    const runBlock = () =>
      loadedVmLibraries().vm.runBlock(vm, {
        block: shell,
        root: atParent ? undefined : parentRoot,
        clearCache: !atParent,
        setHardfork: true,
        generate: true,
        skipBlockValidation: true,
        skipHeaderValidation: true,
      })
    const system = common.isActivatedEIP(7002) || common.isActivatedEIP(7251) ? systemAddressOf(common) : undefined
    ;({ result: run, lines: logged } = await collectPerTransaction(vm, () =>
      waivingEip3607(vm, () => (system === undefined ? runBlock() : keepingSystemCalls(vm, system, runBlock))),
    ))
  } catch (err) {
    throw new MiningError(withoutEthereumJsContext(err))
  } finally {
    vm.events.off('afterBlock', seal)
  }
  const block = await sealBlock(fields, run, transactions, withdrawals, common, sealed)
  const record = recordFromExecution(block, run.receipts)
  return logged === undefined ? record : { ...record, console: logged }
}

/**
 * The block a `runBlock(generate: true)` of a shell block built: the shell's header fields plus the
 * roots, bloom, gas used and requests hash the run gave (the builder seals its blocks the same way).
 * Given the header runBlock sealed its own block with (the same fields, its transactions trie
 * included), a compact copy of that header is kept, with the block's own transactions (made anew
 * when compactCopy does not know the header's shape).
 */
export async function sealBlock(
  fields: HeaderData,
  run: RunBlockResult,
  transactions: TypedTransaction[],
  withdrawals: never[] | undefined,
  common: Common,
  sealed?: BlockHeader,
): Promise<Block> {
  // Kept as long as the block is: its byte fields in one buffer (../blocks/compactHeader.ts).
  const copy = sealed === undefined ? undefined : compactCopy(sealed, common)
  if (copy !== undefined) return new Block(copy, transactions, [], withdrawals, { common })
  const header = compactHeader(
    {
      ...fields,
      stateRoot: run.stateRoot,
      receiptTrie: run.receiptsRoot,
      logsBloom: run.logsBloom,
      gasUsed: run.gasUsed,
      // A trie with the Common's keccak (the chain's, WASM): genTransactionsTrieRoot's own uses @noble/hashes' (~250 us a block more).
      transactionsTrie: transactions.length === 0 ? KECCAK256_RLP : await genTransactionsTrieRoot(transactions, new MerklePatriciaTrie({ common })),
      requestsHash: run.requestsHash,
    },
    common,
  )
  return new Block(header, transactions, [], withdrawals, { common })
}
