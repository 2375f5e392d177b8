/**
 * docs/tracing.md stays true: every `rpc '<request>'` example, sent to a real server on the default
 * fixtures, returns the output the page shows.
 *
 * After a deliberate fixture change, `UPDATE_DOCS=1 npx vitest run test/http/tracingDoc.test.ts`
 * rewrites the outputs in the page.
 */
import { describe } from 'vitest'
import { checkDocExamples } from '../support/docExamples.ts'

describe('docs/tracing.md', () => {
  checkDocExamples(new URL('../../docs/tracing.md', import.meta.url), 4)
})
