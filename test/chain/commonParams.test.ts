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
