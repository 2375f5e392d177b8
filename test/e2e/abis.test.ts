/** The ABIs the end-to-end tests hand to the clients are the ones solc gives for the fixture sources. */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { compileContracts } from '../../src/builder/compile.ts'
import { SourceLocation } from '../../src/builder/errors.ts'
import { counterAbi, reverterAbi, tokenAbi } from './support/abis.ts'

describe('test/e2e/support/abis.ts', () => {
  it('matches solc’s output for Token, Reverter and Counter', async () => {
    const sources = fileURLToPath(new URL('../../fixtures/sources/', import.meta.url))
    const loc = new SourceLocation('test/e2e/abis.test.ts')
    const names = ['Token', 'Reverter', 'Counter']
    const compiled = await compileContracts(
      names.map((contractName) => ({ source: `contracts/${contractName}.sol`, contractName, loc })),
      sources,
    )
    expect(compiled.map((c) => c.abi)).toEqual([tokenAbi, reverterAbi, counterAbi])
  })
})
