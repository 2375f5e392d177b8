/**
 * `Common.updateParams` skipping the rebuild that changes nothing (src/chain/vm/commonParams.ts):
 * every Common ends with the parameters EthereumJS's own rebuild gives it, whether the call was
 * skipped, took a kept cache, or changed the table the copies share.
 */
import { paramsBlock } from '@ethereumjs/block'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { paramsTx } from '@ethereumjs/tx'
import { describe, expect, it } from 'vitest'
import { keepParamsCaches } from '../../src/chain/vm/commonParams.ts'

type Internals = { _paramsCache: Record<string, unknown>; _buildParamsCache(): void }
const internals = (c: Common) => c as unknown as Internals

/** The cache EthereumJS's own rebuild gives `common` now (on a copy, leaving it as it is). */
function rebuilt(common: Common): Record<string, unknown> {
  const copy = internals(common.copy())
  copy._buildParamsCache()
  return { ...copy._paramsCache }
}

describe('Common.updateParams with kept caches', () => {
  keepParamsCaches()

  it('gives each copy the parameters of its own rebuild, at each hardfork', () => {
    const chain = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
    for (const hardfork of [Hardfork.London, Hardfork.Cancun, Hardfork.Prague, Hardfork.Osaka]) {
      const fork = chain.copy()
      fork.setHardfork(hardfork)
      for (const params of [paramsBlock, paramsTx, paramsBlock, {}]) {
        const copy = fork.copy()
        copy.updateParams(params)
        expect({ ...internals(copy)._paramsCache }).toEqual(rebuilt(copy))
      }
    }
  })

  it('applies a changed value, and copies that rebuild after it see it', () => {
    const chain = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
    const a = chain.copy()
    a.updateParams(paramsBlock)
    const b = chain.copy()
    b.updateParams({ 1559: { baseFeeMaxChangeDenominator: 9 } })
    expect(b.param('baseFeeMaxChangeDenominator')).toBe(9n)
    // As in EthereumJS: a copy keeps its cache until it rebuilds, then reads the shared table.
    expect(a.param('baseFeeMaxChangeDenominator')).toBe(8n)
    a.updateParams({})
    expect(a.param('baseFeeMaxChangeDenominator')).toBe(9n)
    const c = chain.copy()
    c.updateParams({})
    expect(c.param('baseFeeMaxChangeDenominator')).toBe(9n)
    // paramsBlock's own value goes back into the table.
    c.updateParams(paramsBlock)
    expect(c.param('baseFeeMaxChangeDenominator')).toBe(8n)
    expect({ ...internals(c)._paramsCache }).toEqual(rebuilt(c))
  })
})

describe("the EVM's and the VM's EIP-2935 window agree once the VM libraries are loaded", () => {
  it('making an EVM and a VM leaves the shared table (and the window) as it was: 8191, the EIP\'s', async () => {
    const { vmLibraries } = await import('../../src/chain/vm/vmLibraries.ts')
    const { vm, evm } = await vmLibraries()
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
    await vm.createVM({ common })
    const table = (common as unknown as { _params: Record<string, Record<string, unknown>> })._params
    const before = JSON.stringify(table)
    expect(common.param('historyServeWindow')).toBe(8191n)
    // An EVM alone wrote 8192 into the table (and a VM made after it 8191 again).
    const alone = common.copy()
    await evm.createEVM({ common: alone })
    expect(alone.param('historyServeWindow')).toBe(8191n)
    await vm.createVM({ common: common.copy() })
    expect(JSON.stringify(table)).toBe(before)
  })
})
