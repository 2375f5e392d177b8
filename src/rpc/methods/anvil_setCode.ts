import { editHead } from '../dev.ts'
import { anvilBytes } from '../devParams.ts'
import { InvalidParamsError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { address } from '../validators.ts'

/** EIP-170's limit, which Anvil does not apply here; the double bounds the edit by it twice over. */
const MAX_CODE_BYTES = 2 * 24_576

/** Sets an account's code, outside any transaction (a state edit of the head); `0x` removes it. */
export const anvil_setCode = defineMethod({
  name: 'anvil_setCode',
  params: [address, anvilBytes],
  async run([account, code], { chain }) {
    if ((code.length - 2) / 2 > MAX_CODE_BYTES) throw new InvalidParamsError(`code: at most ${MAX_CODE_BYTES} bytes`)
    await editHead(chain, [{ address: account, code }])
    return null
  },
})
