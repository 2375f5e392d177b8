/**
 * debug_traceCall's execution: the call runs as eth_call runs it (chain/execution/call.ts: the
 * gas cap, fee defaults, a zero base fee for a call that pays none, state and block overrides,
 * rolled back after), with the tracer attached for that one execution. Failures before the EVM are geth's `tracing failed:
 * <reason>`; the arguments geth checks first (`CallDefaults`) keep their own words.
 */
import type { ChainReader } from '../blocks/chainReader.ts'
import type { BlockRecord } from '../blocks/types.ts'
import { CallRejected, runCall } from '../execution/call.ts'
import type { CallArgs, CallOverrides } from '../execution/callArgs.ts'
import type { TracerFactory } from './hooks.ts'
import { ExecutionTimeout } from '../vm/executionGuard.ts'
import { TraceAbort } from './limits.ts'
import type { TraceBudget } from './limits.ts'
import { Observer } from './observer.ts'
import { TraceError } from './replay.ts'

/** The tracer's result for `args` run on the state after `record`, JSON text. */
export async function traceCall(
  chain: ChainReader,
  record: BlockRecord,
  args: CallArgs,
  gasCap: bigint,
  overrides: CallOverrides | undefined,
  factory: TracerFactory,
  budget: TraceBudget,
): Promise<string> {
  const tracer = factory(budget)
  let observer: Observer | undefined
  try {
    await runCall(chain, record, args, gasCap, overrides, budget.executionBudget(), (vm, block) => {
      observer = new Observer(vm, { tracer, budget, coinbase: block.header.coinbase.toString(), firstLogIndex: 0 })
      return () => observer!.detach()
    })
  } catch (err) {
    if (budget.aborted) throw budget.aborted
    if (err instanceof ExecutionTimeout) throw new TraceAbort('execution timeout')
    if (observer?.failure !== undefined) throw observer.failure
    if (err instanceof CallRejected) {
      const m = /^err: ([\s\S]*) \(supplied gas \d+\)$/.exec(err.message)
      throw new TraceError(m ? `tracing failed: ${m[1]}` : err.message)
    }
    throw err
  }
  if (observer?.failure !== undefined) throw observer.failure
  return tracer.result()
}
