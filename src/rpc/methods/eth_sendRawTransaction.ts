import { TxDecodeError } from '../../chain/pool/rawTransaction.ts'
import { TxRejectedError } from '../../chain/pool/poolRules.ts'
import { reportMinedConsole } from '../consoleReport.ts'
import { ServerError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { ArgumentError } from '../params.ts'
import type { Param } from '../params.ts'
import { bytesOfHexDigits } from '../../encoding/hex.ts'

/** geth's `hexutil.Bytes` param: a 0x-prefixed string of whole bytes (`""` is empty bytes). */
const rawBytes: Param<Uint8Array> = {
  parse(v) {
    const typeError = (what: string): ArgumentError =>
      new ArgumentError(`json: cannot unmarshal ${what} into Go value of type hexutil.Bytes`)
    if (typeof v !== 'string') throw typeError('non-string')
    if (v === '') return new Uint8Array()
    if (!/^0[xX]/.test(v)) throw typeError('hex string without 0x prefix')
    const digits = v.slice(2)
    if (digits.length % 2 === 1) throw typeError('hex string of odd length')
    if (!/^[0-9a-fA-F]*$/.test(digits)) throw typeError('invalid hex string')
    return bytesOfHexDigits(digits)
  },
}

/**
 * Submits a signed transaction: geth's decoding (`rlp: ...`, `typed transaction too short`), its
 * RPC checks (1 ether fee cap, EIP-155 only) and its pool's rules (`nonce too low: next nonce N,
 * tx nonce M`, `insufficient funds for gas * price + value: balance B, tx cost C, overshot O`,
 * ...), all -32000 with geth's words. In the chain's `auto` mining mode the transaction is mined
 * into a new block before the answer; in `manual` mode it waits for the next `mine()`. Returns the
 * transaction hash. Spec: eth_sendRawTransaction (ethereum/execution-apis).
 */
export const eth_sendRawTransaction = defineMethod({
  name: 'eth_sendRawTransaction',
  params: [rawBytes],
  async run([raw], ctx) {
    try {
      const hash = await ctx.chain.sendRawTransaction(raw)
      reportMinedConsole(ctx, hash)
      return hash
    } catch (err) {
      if (err instanceof TxDecodeError || err instanceof TxRejectedError) throw new ServerError(err.message)
      throw err
    }
  },
})
