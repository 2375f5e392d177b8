/**
 * One transaction entry of a source, resolved: names replaced by addresses, calldata encoded,
 * fee fields filled in from the block's base fee. Gas and nonce are settled later, against state.
 */
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { Common } from '@ethereumjs/common'
import { bigIntToBytes, bytesToHex, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { canonicalSignature, encodeCall, encodeDeploy, parseSignature } from './abiArgs.ts'
import type { AddressBook, NamedAddress } from './addressBook.ts'
import { parseAmount } from './amounts.ts'
import type { ContractCode } from './contracts.ts'
import type { SourceLocation } from './errors.ts'
import { arrayAt, hexAt, objectAt, optionalString } from './fields.ts'

const FIELDS = [
  'from', 'to', 'deploy', 'as', 'call', 'args', 'data', 'value', 'type', 'gas', 'gasPrice',
  'maxFeePerGas', 'maxPriorityFeePerGas', 'accessList', 'nonce', 'expectRevert',
] as const

export interface TxDraft {
  sender: NamedAddress & { key: Uint8Array }
  type: 0 | 1 | 2
  to?: string
  data: Uint8Array
  value: bigint
  /** Explicit gas limit, else estimated. */
  gas?: bigint
  /** Explicit nonce, else the sender's current nonce. */
  nonce?: bigint
  /** `gasPrice` for types 0 and 1, `maxFeePerGas` for type 2: the most the sender pays per gas. */
  feeCap: bigint
  priorityFee: bigint
  accessList: { address: string; storageKeys: string[] }[]
  /** `"accessList": "auto"`: fill `accessList` from a trial run, as `eth_createAccessList` would. */
  autoAccessList: boolean
  expectRevert: boolean
  /** For contract creations: the contract deployed and the name it will be known by. */
  deploys?: { contract: string; as?: string }
  /** What the entry does, for messages: `alice → token.transfer(address,uint256)`. */
  summary: string
  /** The entry's `comment`, carried into accounts.json. */
  comment?: string
}

export interface DraftContext {
  book: AddressBook
  contracts: Map<string, ContractCode>
  baseFee: bigint
  /** The scenario's `priorityFee`, if set. */
  priorityFee?: bigint
}

export function draftTransaction(value: unknown, ctx: DraftContext, loc: SourceLocation): TxDraft {
  const entry = objectAt(value, FIELDS, loc)
  const sender = ctx.book.signer(entry.from, loc.at('from'))
  const type = entry.type ?? 2
  if (type !== 0 && type !== 1 && type !== 2) throw loc.at('type').error(`type must be 0, 1 or 2, got ${JSON.stringify(type)}`)
  const amount = (key: string) => (entry[key] === undefined ? undefined : parseAmount(entry[key], loc.at(key)))

  const kinds = (['deploy', 'call', 'data'] as const).filter((k) => entry[k] !== undefined)
  if (kinds.length > 1) throw loc.error(`give only one of "deploy", "call", "data" (got ${kinds.join(', ')})`)
  if (entry.args !== undefined && entry.deploy === undefined && entry.call === undefined) throw loc.at('args').error('"args" needs "call" or "deploy"')
  if (entry.as !== undefined && entry.deploy === undefined) throw loc.at('as').error('"as" names a contract created with "deploy"')

  let to: string | undefined
  let data: Uint8Array
  let summary: string
  let deploys: TxDraft['deploys']
  if (entry.deploy !== undefined) {
    if (entry.to !== undefined) throw loc.at('to').error('a contract creation has no "to"')
    const name = optionalString(entry, 'deploy', loc)!
    const contract = ctx.contracts.get(name)
    if (contract === undefined) throw loc.at('deploy').error(`unknown contract "${name}" (known: ${[...ctx.contracts.keys()].join(', ') || 'none'})`)
    if (contract.bytecode === undefined) throw loc.at('deploy').error(`contract "${name}" has no creation bytecode`)
    data = encodeDeploy(contract.bytecode, contract.ctor, entry.args, ctx.book, loc)
    const as = optionalString(entry, 'as', loc)
    deploys = { contract: name, ...(as === undefined ? {} : { as }) }
    summary = `${sender.name} deploys ${name}${as === undefined ? '' : ` as ${as}`}`
  } else {
    if (entry.to === undefined) throw loc.error('"to" is required (or "deploy" for a contract creation)')
    to = ctx.book.resolve(entry.to, loc.at('to'))
    const target = ctx.book.nameOf(to)
    const toName = target?.name ?? to
    if (entry.call !== undefined) {
      const fn = parseSignature(entry.call, loc.at('call'))
      checkFunctionExists(fn.name ?? '', canonicalSignature(fn), target, ctx.contracts, loc.at('call'))
      data = encodeCall(fn, entry.args, ctx.book, loc)
      summary = `${sender.name} → ${toName}.${fn.name ?? ''}(${(entry.args as unknown[] | undefined ?? []).map(showArg).join(', ')})`
    } else {
      data = entry.data === undefined ? new Uint8Array() : hexToBytes(hexAt(entry.data, loc.at('data')) as `0x${string}`)
      summary = `${sender.name} → ${toName}${entry.data === undefined ? '' : ` with data`}`
    }
  }
  if (entry.value !== undefined) summary += ` sending ${showArg(entry.value)}`

  const baseTip = ctx.priorityFee ?? (ctx.baseFee / 10n > 0n ? ctx.baseFee / 10n : 1n)
  let feeCap: bigint
  let priorityFee: bigint
  if (type === 2) {
    if (entry.gasPrice !== undefined) throw loc.at('gasPrice').error('type 2 transactions use maxFeePerGas and maxPriorityFeePerGas')
    priorityFee = amount('maxPriorityFeePerGas') ?? baseTip
    feeCap = amount('maxFeePerGas') ?? 2n * ctx.baseFee + priorityFee
  } else {
    for (const key of ['maxFeePerGas', 'maxPriorityFeePerGas']) {
      if (entry[key] !== undefined) throw loc.at(key).error(`type ${type} transactions use gasPrice`)
    }
    feeCap = amount('gasPrice') ?? ctx.baseFee + baseTip
    priorityFee = feeCap - ctx.baseFee
  }
  if (type === 0 && entry.accessList !== undefined) throw loc.at('accessList').error('type 0 transactions have no access list')
  if (entry.expectRevert !== undefined && typeof entry.expectRevert !== 'boolean') throw loc.at('expectRevert').error('expected true or false')

  const gas = amount('gas')
  const nonce = amount('nonce')
  return {
    sender,
    type,
    ...(to === undefined ? {} : { to }),
    data,
    value: amount('value') ?? 0n,
    ...(gas === undefined ? {} : { gas }),
    ...(nonce === undefined ? {} : { nonce }),
    feeCap,
    priorityFee,
    accessList: entry.accessList === undefined || entry.accessList === 'auto' ? [] : accessListAt(entry.accessList, ctx.book, loc.at('accessList')),
    autoAccessList: entry.accessList === 'auto',
    expectRevert: entry.expectRevert === true,
    ...(deploys === undefined ? {} : { deploys }),
    summary,
    ...(typeof entry.comment === 'string' ? { comment: entry.comment } : {}),
  }
}

/** An argument as the source wrote it, for summaries: `bob`, `100 ether`, `[1,2]`. */
function showArg(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : JSON.stringify(value)
}

/** A call to a named contract instance must name one of its functions (unless it has a fallback). */
function checkFunctionExists(name: string, signature: string, target: NamedAddress | undefined, contracts: Map<string, ContractCode>, loc: SourceLocation): void {
  const contract = target?.contract === undefined ? undefined : contracts.get(target.contract)
  if (contract?.functions === undefined || contract.hasFallback) return
  if (contract.functions.some((f) => canonicalSignature(f) === signature)) return
  const sameName = contract.functions.filter((f) => f.name === name).map(canonicalSignature)
  throw loc.error(
    `${target!.name} (${contract.name}) has no function ${signature}` +
      (sameName.length > 0 ? `; did you mean ${sameName.join(' or ')}?` : ''),
  )
}

function accessListAt(value: unknown, book: AddressBook, loc: SourceLocation): TxDraft['accessList'] {
  return arrayAt(value, loc).map((item, i) => {
    const at = loc.at(i)
    const entry = objectAt(item, ['address', 'storageKeys'], at)
    const keys = entry.storageKeys === undefined ? [] : arrayAt(entry.storageKeys, at.at('storageKeys'))
    return {
      address: book.resolve(entry.address, at.at('address')),
      storageKeys: keys.map((k, j) => bytesToHex(setLengthLeft(bigIntToBytes(parseAmount(k, at.at('storageKeys', j))), 32))),
    }
  })
}

/** The signed transaction of a draft, once gas and nonce are known. */
export function signDraft(draft: TxDraft, gasLimit: bigint, nonce: bigint, common: Common): TypedTransaction {
  const base = {
    nonce,
    gasLimit,
    value: draft.value,
    data: draft.data,
    ...(draft.to === undefined ? {} : { to: draft.to as `0x${string}` }),
  }
  const chainId = common.chainId()
  const accessList = draft.accessList.map((e) => ({ address: e.address as `0x${string}`, storageKeys: e.storageKeys as `0x${string}`[] }))
  switch (draft.type) {
    case 0:
      return createLegacyTx({ ...base, gasPrice: draft.feeCap }, { common }).sign(draft.sender.key)
    case 1:
      return createAccessList2930Tx({ ...base, chainId, gasPrice: draft.feeCap, accessList }, { common }).sign(draft.sender.key)
    case 2:
      return createFeeMarket1559Tx(
        { ...base, chainId, maxFeePerGas: draft.feeCap, maxPriorityFeePerGas: draft.priorityFee, accessList },
        { common },
      ).sign(draft.sender.key)
  }
}
