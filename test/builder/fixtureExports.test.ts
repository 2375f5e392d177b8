/**
 * gateway-double/fixtures (src/fixtures/accounts.ts) lists each default network's signing accounts,
 * keys and contracts exactly as its fixtures/<network>/accounts.json does, and the keys sign for
 * the addresses given. (The ABIs are checked against solc by test/e2e/abis.test.ts.)
 */
import { readFileSync } from 'node:fs'
import { privateToAddress, bytesToHex, hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import * as fixtures from '../../src/fixtures/index.ts'

interface AccountsFile {
  accounts: { name: string; address: string; privateKey?: string }[]
  contracts: { name: string; contract: string; address: string }[]
}

describe('gateway-double/fixtures', () => {
  for (const network of ['ethereum', 'polygon', 'base'] as const) {
    it(`${network}: the accounts with keys and the contracts of fixtures/${network}/accounts.json`, () => {
      const file = JSON.parse(readFileSync(new URL(`../../fixtures/${network}/accounts.json`, import.meta.url), 'utf8')) as AccountsFile
      const accounts: Record<string, { address: string; privateKey: string }> = fixtures[`${network}Accounts`]
      expect(accounts).toEqual(Object.fromEntries(file.accounts.filter((a) => a.privateKey !== undefined).map((a) => [a.name, { address: a.address, privateKey: a.privateKey }])))
      for (const { address, privateKey } of Object.values(accounts)) expect(bytesToHex(privateToAddress(hexToBytes(privateKey as `0x${string}`)))).toBe(address)
      expect(fixtures[`${network}Contracts`]).toEqual(Object.fromEntries(file.contracts.map((c) => [c.name, { address: c.address, contract: c.contract }])))
    })
  }
  it('has an ABI for every contract the networks name', () => {
    const named = new Set(Object.values({ ...fixtures.ethereumContracts, ...fixtures.polygonContracts, ...fixtures.baseContracts }).map((c) => c.contract))
    expect([...named].sort()).toEqual(['Counter', 'Reverter', 'Token'])
    expect(fixtures.tokenAbi.some((e) => e.type === 'function' && e.name === 'transfer')).toBe(true)
  })
})
