/**
 * Sources with mistakes are refused with a message that names the file and the entry, and the
 * reason; nothing is built from them.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildFixture, buildFixtureFromSource } from '../../src/builder/buildFixture.ts'
import { FixtureSourceError } from '../../src/builder/errors.ts'

const FILE = 'test/mistakes.scenario.json'
const BASE_DIR = 'fixtures/sources'

/** A valid two-block scenario; each test breaks one thing in a copy. */
function scenario(): Record<string, any> {
  return {
    network: 'test',
    chainId: 31337,
    genesis: { timestamp: 1793577600 },
    accounts: { alice: { balance: '100 ether' }, bob: { balance: '1 ether' } },
    contracts: { Token: { source: 'contracts/Token.sol' } },
    blocks: [
      { transactions: [{ from: 'alice', deploy: 'Token', args: ['1000 ether'], as: 'token' }] },
      {
        transactions: [
          { from: 'alice', to: 'bob', value: '1 ether' },
          { from: 'alice', to: 'token', call: 'transfer(address,uint256)', args: ['bob', '10 ether'] },
        ],
      },
    ],
  }
}

async function refusal(source: unknown): Promise<FixtureSourceError> {
  const error = await buildFixtureFromSource(source, BASE_DIR, FILE).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(FixtureSourceError)
  return error as FixtureSourceError
}

describe('a source with a mistake', () => {
  it('builds when nothing is broken (the baseline the other cases change)', async () => {
    const built = await buildFixtureFromSource(scenario(), BASE_DIR, FILE)
    expect(built.blocks.length).toBe(2)
  })

  it('names an unknown sender', async () => {
    const s = scenario()
    s.blocks[1].transactions[1].from = 'mallory'
    const e = await refusal(s)
    expect(e.message).toMatch(/^test\/mistakes\.scenario\.json: blocks\[1\] \(block 2\)\.transactions\[1\]\.from: unknown account "mallory"/)
  })

  it('names an unknown account used as an argument', async () => {
    const s = scenario()
    s.blocks[1].transactions[1].args = ['zed', '1 ether']
    const e = await refusal(s)
    expect(e.file).toBe(FILE)
    expect(e.entry).toBe('blocks[1] (block 2).transactions[1].args[0]')
    expect(e.reason).toMatch(/unknown account or contract "zed"/)
  })

  it('names an unknown recipient', async () => {
    const s = scenario()
    s.blocks[1].transactions[0].to = 'nobody'
    expect((await refusal(s)).entry).toBe('blocks[1] (block 2).transactions[0].to')
  })

  it('refuses a malformed function signature', async () => {
    const s = scenario()
    s.blocks[1].transactions[1].call = 'transfer(address,uint256'
    const e = await refusal(s)
    expect(e.entry).toBe('blocks[1] (block 2).transactions[1].call')
    expect(e.reason).toMatch(/bad function signature "transfer\(address,uint256"/)
  })

  it('refuses an unknown ABI type', async () => {
    const s = scenario()
    s.blocks[1].transactions[1].call = 'transfer(adress,uint256)'
    expect((await refusal(s)).reason).toMatch(/unknown type "adress"/)
  })

  it('refuses a function the contract does not have, suggesting the right one', async () => {
    const s = scenario()
    s.blocks[1].transactions[1].call = 'transfer(address)'
    s.blocks[1].transactions[1].args = ['bob']
    const e = await refusal(s)
    expect(e.reason).toBe('token (Token) has no function transfer(address); did you mean transfer(address,uint256)?')
  })

  it('refuses the wrong number of arguments', async () => {
    const s = scenario()
    s.blocks[1].transactions[1].args = ['bob']
    expect((await refusal(s)).reason).toBe('transfer(address,uint256) takes 2 argument(s), 1 given')
  })

  it('refuses a transaction with a nonce the sender is not at', async () => {
    const s = scenario()
    s.blocks[1].transactions[0].nonce = 5
    const e = await refusal(s)
    expect(e.entry).toBe('blocks[1] (block 2).transactions[0]')
    expect(e.reason).toMatch(/^cannot be included \(alice → bob sending 1 ether\): .*nonce/)
  })

  it('refuses a transaction the sender cannot pay for', async () => {
    const s = scenario()
    s.blocks[1].transactions[0].value = '1000 ether'
    const e = await refusal(s)
    expect(e.entry).toBe('blocks[1] (block 2).transactions[0]')
    expect(e.reason).toBe('cannot be included (alice → bob sending 1000 ether): alice has 99.9996174052875 ether, less than the 1000 ether it sends')
  })

  it('refuses a gas price under the base fee', async () => {
    const s = scenario()
    Object.assign(s.blocks[1].transactions[0], { type: 0, gasPrice: '1 wei' })
    expect((await refusal(s)).reason).toMatch(/^cannot be included .*gasPrice \(1\) is less than the block's baseFeePerGas/)
  })

  it('refuses a gas limit above the Osaka cap', async () => {
    const s = scenario()
    s.blocks[1].transactions[0].gas = 2 ** 24 + 1
    expect((await refusal(s)).reason).toMatch(/^cannot be included .*gas limit/i)
  })

  it('refuses a transaction that reverts unless it says so, with the decoded reason', async () => {
    const s = scenario()
    s.blocks[1].transactions[1].args = ['bob', '5000 ether']
    const e = await refusal(s)
    expect(e.entry).toBe('blocks[1] (block 2).transactions[1]')
    expect(e.reason).toContain('reverted: "Token: transfer amount exceeds balance"')
    expect(e.reason).toContain('expectRevert')

    s.blocks[1].transactions[1].expectRevert = true
    const built = await buildFixtureFromSource(s, BASE_DIR, FILE)
    expect(built.blocks[1]!.transactions.length).toBe(2)
  })

  it('refuses "expectRevert" on a transaction that succeeds', async () => {
    const s = scenario()
    s.blocks[1].transactions[1].expectRevert = true
    expect((await refusal(s)).reason).toMatch(/was expected to fail .* but succeeded/)
  })

  it('refuses an unknown contract to deploy', async () => {
    const s = scenario()
    s.blocks[0].transactions[0].deploy = 'Tokn'
    const e = await refusal(s)
    expect(e.entry).toBe('blocks[0] (block 1).transactions[0].deploy')
    expect(e.reason).toBe('unknown contract "Tokn" (known: Token)')
  })

  it('refuses a misspelt field instead of ignoring it', async () => {
    const s = scenario()
    s.blocks[1].transactions[1].expectedRevert = true
    const e = await refusal(s)
    expect(e.entry).toBe('blocks[1] (block 2).transactions[1].expectedRevert')
    expect(e.reason).toMatch(/^unknown field "expectedRevert"/)
  })

  it('refuses an amount that is not a whole number of wei', async () => {
    const s = scenario()
    s.accounts.bob.balance = '1.5 wei'
    const e = await refusal(s)
    expect(e.entry).toBe('accounts.bob.balance')
  })

  it('refuses a timestamp that does not increase', async () => {
    const s = scenario()
    s.blocks[1].timestamp = 1793577600
    expect((await refusal(s)).entry).toBe('blocks[1] (block 2).timestamp')
  })

  it('refuses a name used twice', async () => {
    const s = scenario()
    s.blocks[0].transactions[0].as = 'bob'
    expect((await refusal(s)).reason).toBe('the name "bob" is already taken')
  })

  it('refuses a missing Solidity source, naming the contract entry', async () => {
    const s = scenario()
    s.contracts.Token.source = 'contracts/Missing.sol'
    expect((await refusal(s)).entry).toBe('contracts.Token')
  })

  it('refuses safe/finalized beyond the head or out of order', async () => {
    const s = scenario()
    s.safe = 3
    expect((await refusal(s)).entry).toBe('safe')
    s.safe = 1
    s.finalized = 2
    expect((await refusal(s)).entry).toBe('finalized')
  })

  it('names the file when it is not JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scenario-'))
    const path = join(dir, 'broken.scenario.json')
    writeFileSync(path, '{ "network": ')
    await expect(buildFixture(path, join(dir, 'out'))).rejects.toThrow(/broken\.scenario\.json: not valid JSON/)
  })
})
