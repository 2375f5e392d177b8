/**
 * Transactions for the sending tests: real ones signed with the default fixtures' keys
 * (accounts.json), and hand-encoded ones for the inputs geth refuses before any signature check
 * (their r and s need not be a valid signature there).
 */
import { readFileSync } from 'node:fs'
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx'
import type { FeeMarketEIP1559TxData, LegacyTxData } from '@ethereumjs/tx'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import type { Chain } from '../../src/chain/chain.ts'

interface Account {
  name: string
  address: string
  privateKey?: string
}

const accounts = (JSON.parse(readFileSync(new URL('../../fixtures/ethereum/accounts.json', import.meta.url), 'utf8')) as { accounts: Account[] }).accounts

export function account(name: string): { address: `0x${string}`; key: Uint8Array } {
  const a = accounts.find((x) => x.name === name)
  if (!a?.privateKey) throw new Error(`no key for ${name} in fixtures/ethereum/accounts.json`)
  return { address: a.address as `0x${string}`, key: hexToBytes(a.privateKey as `0x${string}`) }
}

/** The chain's Common at its next block's fork. */
export function nextCommon(chain: Chain): Common {
  const common = chain.common.copy()
  common.setHardforkBy({ blockNumber: chain.head.number + 1n, timestamp: chain.head.timestamp + 1n })
  return common
}

/** A signed type-2 transaction as eth_sendRawTransaction takes it. */
export function signed1559(chain: Chain, from: string, data: FeeMarketEIP1559TxData): string {
  const tx = createFeeMarket1559Tx({ chainId: chain.chainId, gasLimit: 21000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n, ...data }, { common: nextCommon(chain) })
  return bytesToHex(tx.sign(account(from).key).serialize())
}

/** A signed EIP-155 legacy transaction. */
export function signedLegacy(chain: Chain, from: string, data: LegacyTxData): string {
  const tx = createLegacyTx({ gasLimit: 21000n, gasPrice: 10n ** 10n, ...data }, { common: nextCommon(chain) })
  return bytesToHex(tx.sign(account(from).key).serialize())
}

type Field = bigint | number | string | Uint8Array | Field[]

const enc = (v: Field): Uint8Array | Uint8Array[] | unknown[] => {
  if (Array.isArray(v)) return v.map(enc)
  if (typeof v === 'bigint' || typeof v === 'number') {
    const n = BigInt(v)
    if (n === 0n) return new Uint8Array()
    const hex = n.toString(16)
    return hexToBytes(`0x${hex.length % 2 ? '0' : ''}${hex}`)
  }
  if (typeof v === 'string') return hexToBytes(v as `0x${string}`)
  return v
}

/** A hand-encoded transaction: `type` 0 for a legacy list, else the type byte and the list. */
export function encoded(type: number, fields: Field[]): string {
  const list = RLP.encode(enc(fields) as Uint8Array[])
  return type === 0 ? bytesToHex(list) : bytesToHex(new Uint8Array([type, ...list]))
}
