/**
 * geth's words for what goes wrong in a call: the EVM's halts (core/vm/errors.go, with the opcode
 * geth names), and EthereumJS's validation failures as geth's estimator and eth_call word them.
 */
import type { VM } from '@ethereumjs/vm'
import { withoutEthereumJsContext } from '../vm/ethereumjsMessage.ts'
import { loadedVmLibraries } from '../vm/vmLibraries.ts'
import { CallError } from './callArgs.ts'

/** geth's names for the EVM's halts (core/vm/errors.go), keyed by EthereumJS's. */
export const GETH_HALT_NAMES: Record<string, string> = {
  'out of gas': 'out of gas',
  'code store out of gas': 'contract creation code storage out of gas',
  'code size to deposit exceeds maximum code size': 'max code size exceeded',
  'stack underflow': 'stack underflow',
  'stack overflow': 'stack limit reached 1024 (1023)',
  'invalid JUMP': 'invalid jump destination',
  'invalid opcode': 'invalid opcode',
  revert: 'execution reverted',
  'static state change': 'write protection',
  'create collision': 'contract address collision',
  'insufficient balance': 'insufficient balance for transfer',
  'invalid bytecode deployed': 'invalid code: must not begin with 0xef',
  'initcode exceeds max initcode size': 'max initcode size exceeded',
  'value out of range': 'return data out of bounds',
}

/** geth's wording of an EVM halt. EthereumJS adds the location to a bad jump and omits the opcode. */
export function gethHaltName(vm: VM, halt: string, opcode: number | undefined): string {
  if (halt.startsWith('invalid JUMP')) return 'invalid jump destination'
  if (halt === 'invalid opcode') return `invalid opcode: ${opcodeName(vm, opcode)}`
  return GETH_HALT_NAMES[halt] ?? halt
}

/** geth's name of the halting opcode (`core/vm/opcodes.go`): `INVALID`, or `opcode 0xc not defined`. */
function opcodeName(vm: VM, opcode: number | undefined): string {
  if (opcode === undefined) return 'INVALID'
  const known = loadedVmLibraries().evm.getOpcodesForHF(vm.common).opcodes.get(opcode)
  return known ? known.name : `opcode 0x${opcode.toString(16)} not defined`
}

/** EthereumJS's validation failures in geth's words, as geth's estimator wraps them. */
export function gethCallError(err: unknown, gasLimit: bigint, from: string): CallError {
  const message = withoutEthereumJsContext(err)
  if (/INTRINSIC_GAS_TOO_LOW|gasLimit is too low|floor/i.test(message)) {
    return new CallError(`intrinsic gas too low: have ${gasLimit}`, true)
  }
  // Checked at construction by EthereumJS, by geth's `buyGas` with the balance (the caller words it).
  if (/cannot exceed MAX_INTEGER/.test(message)) return new CallError(`insufficient funds for gas * price + value: address ${from} required balance exceeds 256 bits`)
  let m: RegExpMatchArray | null
  if ((m = message.match(/(?:upfront|max) cost is: (\d+) and the sender's account \(\S+\) only has: (\d+)/))) {
    return new CallError(`insufficient funds for gas * price + value: address ${from} have ${m[2]} want ${m[1]}`)
  }
  if ((m = message.match(/(?:maxFeePerGas|gasPrice) \((\d+)\) is less than the block's baseFeePerGas \((\d+)\)/))) {
    return new CallError(`max fee per gas less than block base fee: address ${from}, maxFeePerGas: ${m[1]}, baseFee: ${m[2]}`)
  }
  if (/maxFeePerBlobGas/.test(message)) return new CallError('max fee per blob gas less than block blob gas fee')
  if (/gas limit.*(?:EIP-7825|exceeds|maximum)/i.test(message)) {
    return new CallError(`transaction gas limit too high (cap: 16777216, tx: ${gasLimit})`)
  }
  return new CallError(message)
}
