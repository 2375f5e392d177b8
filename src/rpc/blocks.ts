/** geth's errors for a block that state-reading methods cannot find (code -32000). */
import { ServerError } from './errors.ts'

export class HeaderNotFoundError extends ServerError {
  constructor() {
    super('header not found')
  }
}
