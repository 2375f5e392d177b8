/**
 * docs/simulation.md stays true: every `rpc '<request>'` example, sent to a real server on the
 * default fixtures, returns the output the page shows.
 *
 * After a deliberate fixture change, `UPDATE_DOCS=1 npx vitest run test/http/simulationDoc.test.ts`
 * rewrites the outputs in the page (compact up to 300 characters, else indented).
 */
import { describe } from 'vitest'
import { checkDocExamples } from '../support/docExamples.ts'

describe('docs/simulation.md', () => {
  checkDocExamples(new URL('../../docs/simulation.md', import.meta.url), 5)
})
