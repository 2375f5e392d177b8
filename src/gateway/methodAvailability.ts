/**
 * Which methods a network leaves out (config `networks.<name>.excludeMethods`). The service does
 * not serve every method on every network (Infura Sepolia answered txpool_content with
 * `-32601 The method txpool_content does not exist/is not available`); a network's config can
 * leave out single methods (`"txpool_content"`) or whole families (`"debug_*"`: every method of
 * the namespace). A call to a left-out method is answered and charged exactly as a method the
 * double does not serve at all: -32601 with the service's text, HTTP 400 for a single call,
 * `UNKNOWN_METHOD_COST` credits (./credits.ts). By default a network serves every method.
 */
import { METHODS } from '../rpc/registry.ts'

export interface MethodExclusions {
  /** The entries as configured. */
  readonly entries: readonly string[]
  /** Whether `method` is left out. */
  has(method: string): boolean
}

const METHOD_RE = /^[a-z][a-z0-9]*_[A-Za-z0-9]+$/
const FAMILY_RE = /^([a-z][a-z0-9]*_)\*$/

/**
 * Validates a list of methods and families (`<namespace>_*`) to leave out. Each must name what the
 * double serves (`served`: the double's own methods unless given): a misspelt entry would
 * otherwise leave out nothing. Throws an `Error` whose message is `<where>[i]: <problem>`.
 */
export function compileMethodExclusions(list: readonly string[], where: string, served: readonly string[] = Object.keys(METHODS)): MethodExclusions {
  const methods = new Set<string>()
  const prefixes: string[] = []
  list.forEach((entry, i) => {
    const family = FAMILY_RE.exec(entry)
    if (family) {
      const prefix = family[1]!
      if (!served.some((m) => m.startsWith(prefix))) throw new Error(`${where}[${i}]: no method of the family ${JSON.stringify(entry)} is served`)
      prefixes.push(prefix)
    } else if (METHOD_RE.test(entry)) {
      if (!served.includes(entry)) throw new Error(`${where}[${i}]: ${JSON.stringify(entry)} is not a method served`)
      methods.add(entry)
    } else {
      throw new Error(`${where}[${i}]: not a method name or a family (<namespace>_*): ${JSON.stringify(entry)}`)
    }
  })
  return {
    entries: [...list],
    has: (method) => methods.has(method) || prefixes.some((p) => method.startsWith(p)),
  }
}
