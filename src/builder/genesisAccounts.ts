/**
 * The `accounts` section: names, keys and addresses for the address book, and the genesis alloc.
 */
import { bytesToHex, setLengthLeft, bigIntToBytes } from '@ethereumjs/util'
import { AddressBook, addressOfKey, derivedKey, parseAddress, parseKey } from './addressBook.ts'
import { parseAmount } from './amounts.ts'
import type { ContractCode } from './contracts.ts'
import type { SourceLocation } from './errors.ts'
import { hexAt, objectAt, recordAt } from './fields.ts'
import type { AllocEntry } from './genesisFile.ts'

const FIELDS = ['balance', 'key', 'address', 'nonce', 'contract', 'code', 'storage'] as const

export function genesisAccounts(
  section: unknown,
  contracts: Map<string, ContractCode>,
  loc: SourceLocation,
): { book: AddressBook; alloc: AllocEntry[] } {
  const book = new AddressBook()
  const alloc: AllocEntry[] = []
  for (const [name, value] of Object.entries(recordAt(section, loc))) {
    const at = loc.at(name)
    const entry = objectAt(value, FIELDS, at)
    const code = codeOf(entry, contracts, at)
    const address = entry.address === undefined ? undefined : parseAddress(entry.address, at.at('address'))
    let key: Uint8Array | undefined
    if (entry.key !== undefined) {
      if (code !== undefined) throw at.error('a contract account cannot have a private key')
      key = parseKey(entry.key, at.at('key'))
      if (address !== undefined && address !== addressOfKey(key)) throw at.error(`"address" is not the address of "key" (${addressOfKey(key)})`)
    } else if (address === undefined) {
      // Contract accounts without an address get one from their name too, so they need no configuration.
      key = derivedKey(name)
    }
    const finalAddress = address ?? addressOfKey(key!)
    if (book.nameOf(finalAddress) !== undefined) throw at.error(`address ${finalAddress} is already used by "${book.nameOf(finalAddress)!.name}"`)
    book.add(
      {
        name,
        address: finalAddress,
        ...(code === undefined && key !== undefined ? { key } : {}),
        ...(typeof entry.contract === 'string' ? { contract: entry.contract } : {}),
      },
      at,
    )
    if (entry.storage !== undefined && code === undefined) throw at.error('"storage" is only for contract accounts (with "contract" or "code")')
    alloc.push({
      address: finalAddress,
      balance: entry.balance === undefined ? 0n : parseAmount(entry.balance, at.at('balance')),
      nonce: entry.nonce === undefined ? (code === undefined ? 0n : 1n) : parseAmount(entry.nonce, at.at('nonce')),
      ...(code === undefined ? {} : { code }),
      ...(entry.storage === undefined ? {} : { storage: storageAt(entry.storage, at.at('storage')) }),
    })
  }
  return { book, alloc }
}

function codeOf(entry: Record<string, unknown>, contracts: Map<string, ContractCode>, at: SourceLocation): string | undefined {
  if (entry.contract !== undefined && entry.code !== undefined) throw at.error('give "contract" or "code", not both')
  if (entry.code !== undefined) return hexAt(entry.code, at.at('code'))
  if (entry.contract === undefined) return undefined
  const contract = typeof entry.contract === 'string' ? contracts.get(entry.contract) : undefined
  if (contract === undefined) throw at.at('contract').error(`unknown contract ${JSON.stringify(entry.contract)} (known: ${[...contracts.keys()].join(', ') || 'none'})`)
  if (contract.runtimeBytecode === undefined) throw at.at('contract').error(`contract "${contract.name}" has no runtime bytecode`)
  return contract.runtimeBytecode
}

/** Slots and values as 32-byte hex, sorted by slot, as geth writes them. */
function storageAt(value: unknown, loc: SourceLocation): Record<string, string> {
  const word = (v: unknown, at: SourceLocation) => {
    const n = parseAmount(v, at)
    if (n >= 2n ** 256n) throw at.error('a storage slot or value must fit in 32 bytes')
    return bytesToHex(setLengthLeft(bigIntToBytes(n), 32))
  }
  const entries = Object.entries(recordAt(value, loc)).map(([slot, v]) => [word(slot, loc.at(slot)), word(v, loc.at(slot))] as const)
  entries.sort(([a], [b]) => (a < b ? -1 : 1))
  return Object.fromEntries(entries)
}
