/**
 * The blocks of a fixture's `chain.rlp`: read one RLP item after another, decoded at their fork
 * (impersonated transactions given their senders from `edits.json`), checked against their parent
 * and their own roots, and replayed through the VM with what the execution must reproduce; or,
 * from the verified cache, records whose block is decoded on first use.
 */
import { createBlockFromBytesArray } from '@ethereumjs/block'
import type { Block, BlockBytes } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigInt, bytesToHex, equalsBytes } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { recordFromExecution } from '../blocks/record.ts'
import type { BlockRecord } from '../blocks/types.ts'
import { hasPlaceholderSignature, impersonatedSender, waivingEip3607, withSender } from '../pool/impersonation.ts'
import { withoutEthereumJsContext } from '../vm/ethereumjsMessage.ts'
import { loadedVmLibraries } from '../vm/vmLibraries.ts'
import { FixtureError } from './fixtureFiles.ts'
import type { CachedRecord } from './verifiedCache.ts'

/** The senders `edits.json` gives a block's transactions, by index (impersonated sends). */
export type GivenSenders = ReadonlyMap<number, { from: string; hash: string }>

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

export function* decodeConcatenated(bytes: Uint8Array, name: string): Generator<BlockBytes> {
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
export function lazyRecord(raw: BlockBytes, common: Common, number: bigint, saved: CachedRecord, name: string, senders: GivenSenders | undefined): BlockRecord {
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

export function decodeBlock(raw: BlockBytes, common: Common, name: string, parent: Block, senders: GivenSenders | undefined): Block {
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

export async function checkStaticRoots(block: Block, name: string): Promise<void> {
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
export async function replay(vm: VM, block: Block, parent: Block, parentRoot: Uint8Array, name: string): Promise<BlockRecord> {
  const where = `fixture ${name}: block ${block.header.number}`
  let result
  try {
    result = await waivingEip3607(vm, () =>
      loadedVmLibraries().vm.runBlock(vm, {
        block,
        root: parentRoot,
        setHardfork: true,
        // A block with impersonated transactions has placeholder signatures, which EthereumJS's block
        // validation refuses; its roots were checked (checkStaticRoots) and its execution is below.
        skipBlockValidation: block.transactions.some((tx) => impersonatedSender(tx) !== undefined),
        // `generate` skips runBlock's own root checks: we make them below, with better messages.
        generate: true,
        skipHeaderValidation: true,
      }),
    )
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
