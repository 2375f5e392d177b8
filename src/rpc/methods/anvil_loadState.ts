import { dumpEdits, parseAnvilDump } from '../../chain/loading/anvilState.ts'
import { FixtureError } from '../../chain/loading/fixtureFiles.ts'
import { editHead } from '../dev.ts'
import { InvalidParamsError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { ArgumentError } from '../params.ts'
import type { Param } from '../params.ts'

/** A dump: `anvil_dumpState`'s hex string, or its JSON (as an object or a string). */
const dumpParam: Param<string> = {
  parse(v) {
    if (typeof v === 'string') return v
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return JSON.stringify(v)
    throw new ArgumentError('a state dump must be a 0x hex string (anvil_dumpState) or a JSON object')
  },
}

/**
 * Merges a dump's accounts into the head's state, as Anvil does: each account's balance, nonce
 * and code are set, and the slots it lists (others keep their values); a state edit of the head
 * (`Chain.editState`). The dump's block number and time are not applied: the chain's head stays.
 */
export const anvil_loadState = defineMethod({
  name: 'anvil_loadState',
  params: [dumpParam],
  async run([text], { chain }) {
    let edits
    try {
      edits = dumpEdits(parseAnvilDump(text, 'state'), 'state')
    } catch (err) {
      if (err instanceof FixtureError) throw new InvalidParamsError(`Failed to decode state dump: ${err.message}`)
      throw err
    }
    await editHead(chain, edits)
    return true
  },
})
