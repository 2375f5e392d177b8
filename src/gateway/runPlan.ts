/**
 * A charged plan's calls, run and answered: a single call at once when its method answers
 * synchronously, a batch's calls concurrently, answered in request order (./pipeline.ts).
 */
import { errorResponse, isThenable } from '../rpc/dispatch.ts'
import type { MaybePromise } from '../rpc/dispatch.ts'
import type { JsonRpcRequest, JsonRpcResponse } from '../rpc/types.ts'
import type { Plan } from './plan.ts'
import type { CallDraft, LogDraft, LoggedCall } from './requestLog.ts'
import { jsonRpcResponse, toHttpResponse } from './response.ts'
import type { HttpResponse } from './response.ts'

function outcomeOf(response: JsonRpcResponse): LoggedCall['outcome'] {
  return 'error' in response ? response.error.code : 'ok'
}

/** The calls of a charged plan, run by `run` (a batch's concurrently), answered in request order; each call's outcome is logged in `draft`. */
export function runPlan(plan: Plan, draft: LogDraft, run: (request: JsonRpcRequest, call: CallDraft) => MaybePromise<JsonRpcResponse>): MaybePromise<HttpResponse> {
  switch (plan.kind) {
    case 'answer':
      return jsonRpcResponse(plan.payload)
    case 'refused':
      return toHttpResponse(plan.refusal)
    case 'single': {
      const call = draft.calls[0] as CallDraft
      const notification = plan.message.notification
      const answer = run(plan.message.request, call)
      if (isThenable(answer)) {
        return answer.then((response) => {
          call.outcome = outcomeOf(response)
          return jsonRpcResponse(notification ? undefined : response)
        })
      }
      call.outcome = outcomeOf(answer)
      return jsonRpcResponse(notification ? undefined : answer)
    }
    case 'batch':
      return Promise.all(
        plan.messages.map(async (m, i) => {
          const response = m.ok ? await run(m.request, draft.calls[i] as CallDraft) : errorResponse(m.id, m.error)
          ;(draft.calls[i] as CallDraft).outcome = outcomeOf(response)
          return m.ok && m.notification ? undefined : response
        }),
      ).then((responses) => {
        const answered = responses.filter((r): r is JsonRpcResponse => r !== undefined)
        return jsonRpcResponse(answered.length > 0 ? answered : undefined)
      })
  }
}
