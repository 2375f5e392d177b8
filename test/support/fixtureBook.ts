/** Names to addresses in a default fixture, from the accounts.json its builder writes. */
import { readFileSync } from 'node:fs'

export interface FixtureBook {
  address(name: string): `0x${string}`
  transactions: { block: number; index: number; hash: string; type: number; status: number; summary: string }[]
}

export function fixtureBook(network: 'ethereum' | 'polygon' | 'base'): FixtureBook {
  const book = JSON.parse(readFileSync(new URL(`../../fixtures/${network}/accounts.json`, import.meta.url), 'utf8')) as {
    accounts: { name: string; address: string }[]
    contracts: { name: string; address: string }[]
    transactions: FixtureBook['transactions']
  }
  return {
    address(name) {
      const entry = book.accounts.find((a) => a.name === name) ?? book.contracts.find((c) => c.name === name)
      if (!entry) throw new Error(`no ${name} in fixtures/${network}/accounts.json`)
      return entry.address as `0x${string}`
    },
    transactions: book.transactions,
  }
}
