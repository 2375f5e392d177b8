/**
 * What the source format can express, checked on the built chain: explicit keys, watch-only and
 * genesis-code accounts, raw bytecode, access lists, ABI argument kinds, explicit timestamps.
 */
import { bytesToHex, createAddressFromString, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { encodeFunctionData, parseAbi } from 'viem'
import { describe, expect, it } from 'vitest'
import { encodeCall, parseSignature } from '../../src/builder/abiArgs.ts'
import { AddressBook } from '../../src/builder/addressBook.ts'
import { buildFixtureFromSource } from '../../src/builder/buildFixture.ts'
import { SourceLocation } from '../../src/builder/errors.ts'
import { replay } from './replay.ts'

const FILE = 'test/format.scenario.json'
const KEY = '0x0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'
/** Runtime code that returns 42 as one word; and creation code that deploys it. */
const RUNTIME_42 = '0x602a60005260206000f3'
const CREATE_42 = '0x600a600c600039600a6000f3' + RUNTIME_42.slice(2)

function source(): Record<string, any> {
  return {
    network: 'format',
    chainId: 999,
    genesis: { timestamp: 1793577600, gasLimit: '30000000', baseFeePerGas: '0x3b9aca00' },
    accounts: {
      frank: { key: KEY, balance: '10 ether' },
      grace: { balance: '1 ether' },
      vault: { address: '0x1111111111111111111111111111111111111111' },
      oracle: { code: RUNTIME_42, storage: { '0x1': '5 gwei' }, balance: '1 wei' },
    },
    contracts: {
      FortyTwo: { bytecode: CREATE_42, abi: ['function answer() view returns (uint256)'] },
      Token: { source: 'contracts/Token.sol' },
    },
    blocks: [
      {
        timestamp: 1793577700,
        transactions: [
          { from: 'frank', deploy: 'FortyTwo', as: 'answer', type: 0 },
          { from: 'frank', deploy: 'Token', args: ['100 ether'], as: 'token', type: 1 },
        ],
      },
      {
        transactions: [
          { from: 'frank', to: 'answer', call: 'answer()', type: 1, accessList: [{ address: 'oracle', storageKeys: [1] }] },
          { from: 'frank', to: 'token', call: 'transfer(address to, uint256 value)', args: ['grace', '1.5 ether'], accessList: 'auto' },
          { from: 'frank', to: 'vault', value: '0.1 ether', data: '0xdeadbeef' },
          { from: 'grace', to: 'token', call: 'transfer(address,uint256)', args: ['vault', '1 ether'], gas: 30000, expectRevert: true },
        ],
      },
    ],
  }
}

describe('the source format', () => {
  it('builds every kind of entry into a chain that replays', async () => {
    const built = await buildFixtureFromSource(source(), 'fixtures/sources', FILE)
    const { chain, blocks, runs } = await replay(built.genesis, built.files['chain.rlp'], 'format')
    const index = JSON.parse(built.files['accounts.json'])
    const address = (name: string) => [...index.accounts, ...index.contracts].find((e: { name: string }) => e.name === name).address

    // An explicit key gives its own address, listed with the key.
    expect(index.accounts.find((a: { name: string }) => a.name === 'frank').privateKey).toBe(KEY)
    expect(blocks[0]!.transactions[0]!.getSenderAddress().toString()).toBe(address('frank'))
    // Watch-only accounts are listed without a key; genesis code accounts hold their code and storage.
    expect(index.accounts.find((a: { name: string }) => a.name === 'vault')).toEqual({ name: 'vault', address: '0x1111111111111111111111111111111111111111' })
    const oracle = createAddressFromString(address('oracle'))
    expect(bytesToHex(await chain.vm.stateManager.getCode(oracle))).toBe(RUNTIME_42)
    expect(bytesToHex(await chain.vm.stateManager.getStorage(oracle, setLengthLeft(hexToBytes('0x01'), 32)))).toBe('0x012a05f200')
    expect((await chain.vm.stateManager.getAccount(oracle))!.nonce).toBe(1n)
    // Raw bytecode deploys and answers.
    expect(bytesToHex(await chain.vm.stateManager.getCode(createAddressFromString(address('answer'))))).toBe(RUNTIME_42)
    expect(bytesToHex(runs[1]!.results[0]!.execResult.returnValue)).toBe(`0x${'2a'.padStart(64, '0')}`)
    // Explicit timestamp, then the default 12 s.
    expect(blocks.map((b) => b.header.timestamp)).toEqual([1793577700n, 1793577712n])
    // Access lists: names resolved; "auto" lists the token's two balance slots and nothing of the sender.
    const [explicit, auto] = [blocks[1]!.transactions[0]!, blocks[1]!.transactions[1]!].map((t) => t.toJSON().accessList)
    expect(explicit).toEqual([{ address: address('oracle'), storageKeys: [`0x${'1'.padStart(64, '0')}`] }])
    expect(auto).toHaveLength(1)
    expect(auto![0]!.address).toBe(address('token'))
    expect(auto![0]!.storageKeys).toHaveLength(2)
    // Calldata to an account without code; a failing transaction with the gas it was given.
    expect(bytesToHex(blocks[1]!.transactions[2]!.data)).toBe('0xdeadbeef')
    expect(runs[1]!.receipts.map((r) => ('status' in r ? r.status : undefined))).toEqual([1, 1, 1, 0])
    expect(blocks[1]!.transactions[3]!.gasLimit).toBe(30000n)
    expect(built.genesis.gasLimit).toBe('0x1c9c380')
  })

  it('gives the same bytes on every build', async () => {
    const [a, b] = [await buildFixtureFromSource(source(), 'fixtures/sources', FILE), await buildFixtureFromSource(source(), 'fixtures/sources', FILE)]
    expect(bytesToHex(a.files['chain.rlp'])).toBe(bytesToHex(b.files['chain.rlp']))
    expect(a.files['genesis.json']).toBe(b.files['genesis.json'])
  })

  it('estimates gas the transaction needs, not far above', async () => {
    const built = await buildFixtureFromSource(source(), 'fixtures/sources', FILE)
    const { blocks, runs } = await replay(built.genesis, built.files['chain.rlp'], 'format')
    blocks.flatMap((b, i) => b.transactions.map((tx, j) => ({ tx, result: runs[i]!.results[j]! }))).forEach(({ tx, result }) => {
      expect(tx.gasLimit).toBeGreaterThanOrEqual(result.totalGasSpent)
      if (result.execResult.exceptionError === undefined) expect(Number(tx.gasLimit)).toBeLessThan(Number(result.totalGasSpent + result.gasRefund) * 1.1 + 2400)
    })
  })
})

describe('ABI arguments', () => {
  const book = new AddressBook()
  const loc = new SourceLocation(FILE, 'args')
  book.add({ name: 'bob', address: '0x724f0f3bde1c17da298e2af780968ff5a8271427' }, loc)

  it.each([
    ['transfer(address,uint256)', ['bob', '1 ether'], ['0x724f0f3bde1c17da298e2af780968ff5a8271427', 10n ** 18n]],
    ['f(int8,bool,string)', ['-5', 'true', 'hi'], [-5, true, 'hi']],
    ['f(bytes,bytes4,uint256[])', ['0x0102', '0xdeadbeef', [1, '2 wei', '0x3']], ['0x0102', '0xdeadbeef', [1n, 2n, 3n]]],
    ['f((address,uint64)[2],uint8[])', [[['bob', 1], ['0x0000000000000000000000000000000000000001', 2]], []], [[['0x724f0f3bde1c17da298e2af780968ff5a8271427', 1n], ['0x0000000000000000000000000000000000000001', 2n]], []]],
    ['f()', [], []],
  ])('%s encodes as viem does', (signature, args, viemArgs) => {
    const fn = parseSignature(signature, loc)
    const viemAbi = parseAbi([`function ${signature}`] as string[])
    const expected = encodeFunctionData({ abi: viemAbi, functionName: fn.name!, args: viemArgs } as never)
    expect(bytesToHex(encodeCall(fn, args, book, loc))).toBe(expected)
  })

  it('refuses values that do not fit their type, naming the argument', () => {
    const fn = parseSignature('f(uint8,address)', loc)
    expect(() => encodeCall(fn, [256, 'bob'], book, loc)).toThrow(/^test\/format\.scenario\.json: args: cannot encode/)
    expect(() => encodeCall(fn, [1, 'nobody'], book, loc)).toThrow(/args\.args\[1\]: unknown account or contract "nobody"/)
    expect(() => encodeCall(fn, [1, 2], book, loc)).toThrow(/args\.args\[1\]: expected an address or a name/)
  })
})
