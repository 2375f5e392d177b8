/**
 * Change 15 to EthereumJS 10.1.3 (patches/README.md), applied with the interpreter's
 * (./interpreterPatch.ts): `EVM._executeCall` hands a frame's message to `runInterpreter` as
 * `{ codeAddress: message.codeAddress, ...message, gasLimit }`, not as
 * `{ ...{ codeAddress: message.codeAddress }, ...message, gasLimit }`.
 *
 * The same object (the same keys in the same order, the same values, `codeAddress` read through
 * the message's getter first), made another way. Node 20's V8 copies the message onto the object
 * cloned from the spread literal on its slow path, with a new hidden class per property and per
 * frame: 15-80 µs a frame in a micro-benchmark where the literal takes 1-2 µs, `_executeCall`'s
 * largest line in a profile of distinct `eth_call`s (~4% of their CPU), and every frame's message
 * a shape of its own for `runInterpreter`'s reads.
 *
 * Everything else is EthereumJS's `_executeCall` for a message call without a precompile, in its
 * order, without the branches of the rules it is not used under: with EIP-7864, EIP-6800,
 * EIP-2780, EIP-7928 or EIP-7708 active, debug logging, the profiler, or a precompile as the
 * target, EthereumJS's own runs.
 */
import { EVM } from '@ethereumjs/evm'
import { Account } from '@ethereumjs/util'
import type { Address } from '@ethereumjs/util'

/** The EIPs whose branches of `_executeCall` are left out here. */
const OWN_EIPS = [7864, 6800, 2780, 7928, 7708]

interface CallMessage {
  to: Address
  caller: Address
  codeAddress: Address
  code?: Uint8Array | ((...args: never[]) => unknown)
  isCompiled: boolean
  delegatecall: boolean
  depth: number
  gasLimit: bigint
  gasRefund: bigint
}

interface EvmThis {
  DEBUG: boolean
  common: { isActivatedEIP(eip: number): boolean }
  stateManager: { getAccount(address: Address): Promise<Account | undefined> }
  _optsCached: { profiler?: { enabled?: boolean } }
  getPrecompile(address: Address): unknown
  _reduceSenderBalance(account: Account, message: CallMessage): Promise<void>
  _addToBalance(account: Account, message: CallMessage): Promise<void>
  _loadCode(message: CallMessage): Promise<void>
  runInterpreter(message: object, opts: { initialLogs?: unknown[] }): Promise<{ executionGasUsed: bigint }>
  postMessageCleanup(): void
}

type ExecuteCall = (this: EvmThis, message: CallMessage) => Promise<{ execResult: unknown }>

function executeCallOf(original: ExecuteCall): ExecuteCall {
  return async function _executeCall(this: EvmThis, message: CallMessage) {
    const common = this.common
    if (
      this.DEBUG ||
      this._optsCached.profiler?.enabled === true ||
      OWN_EIPS.some((eip) => common.isActivatedEIP(eip)) ||
      message.isCompiled ||
      (!message.code && this.getPrecompile(message.codeAddress) !== undefined)
    ) {
      return original.call(this, message)
    }
    const gasLimit = message.gasLimit
    let account = await this.stateManager.getAccount(message.caller)
    if (!account) account = new Account()
    let errorMessage: unknown
    // Reduce tx value from sender
    if (!message.delegatecall) {
      try {
        await this._reduceSenderBalance(account, message)
      } catch (e) {
        errorMessage = e
      }
    }
    // Load `to` account
    let toAccount = await this.stateManager.getAccount(message.to)
    if (!toAccount) toAccount = new Account()
    // Add tx value to the `to` account
    if (!message.delegatecall) {
      try {
        await this._addToBalance(toAccount, message)
      } catch (e) {
        errorMessage = e
      }
    }
    await this._loadCode(message)
    const code = message.code
    if (!code || (typeof code !== 'function' && code.length === 0) || errorMessage !== undefined) {
      const earlyResult = {
        gasRefund: message.gasRefund,
        executionGasUsed: message.gasLimit - gasLimit,
        exceptionError: errorMessage,
        returnValue: new Uint8Array(0),
        logs: undefined,
      }
      return { execResult: earlyResult }
    }
    // `codeAddress` is the message's getter (its own property is `_codeAddress`): the spread keeps it.
    const result = await this.runInterpreter({ codeAddress: message.codeAddress, ...(message as object), gasLimit }, { initialLogs: undefined })
    if (message.depth === 0) this.postMessageCleanup()
    result.executionGasUsed += message.gasLimit - gasLimit
    return { execResult: result }
  }
}

/** EthereumJS's own `_executeCall`, once the change is in (tests compare the two). */
export let ethereumjsExecuteCall: unknown

/** Puts the change into `EVM.prototype` (once, from ./interpreterPatch.ts). */
export function patchExecuteCall(): void {
  const proto = EVM.prototype as unknown as { _executeCall: ExecuteCall }
  ethereumjsExecuteCall = proto._executeCall
  proto._executeCall = executeCallOf(proto._executeCall)
}
