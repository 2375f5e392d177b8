/**
 * The bytes of HTTP request bodies a server holds at once: read, and not yet answered. Each body
 * is at most 5 MiB, but a request can wait long for its answer (its turn on a block's VM behind
 * heavy calls, a scripted latency), and how many come at once is the clients' choice: 200
 * concurrent 5 MiB calls would hold a gigabyte. Past `maxBytes`, a new request's body is not read
 * until answers give room back: it waits (TCP holds the rest), nothing is refused or lost.
 */

/** Default bound: 128 MiB of bodies, 25 maximal ones (a parsed body weighs about twice its bytes). */
export const MAX_BODIES_IN_FLIGHT_BYTES = 128 * 1024 * 1024

export class BodyBudget {
  readonly maxBytes: number
  #used = 0
  readonly #waiting: { bytes: number; grant: () => void }[] = []

  constructor(maxBytes = MAX_BODIES_IN_FLIGHT_BYTES) {
    this.maxBytes = maxBytes
  }

  /** Bytes held now (granted, not yet given back). */
  get used(): number {
    return this.#used
  }

  /** Requests waiting for room. */
  get waiting(): number {
    return this.#waiting.length
  }

  /**
   * Takes `bytes` (a body's declared size, or the most it can be): at once (undefined) while the
   * bytes held are under the bound and nobody waits, else when `give` makes room, first come first
   * served. So the bound is passed by one body at most.
   */
  take(bytes: number): Promise<void> | undefined {
    // A request without a body holds nothing: it never waits.
    if (bytes === 0) return undefined
    if (this.#used < this.maxBytes && this.#waiting.length === 0) {
      this.#used += bytes
      return undefined
    }
    return new Promise((grant) => this.#waiting.push({ bytes, grant }))
  }

  /** Gives back what `take` took, once the request is answered. */
  give(bytes: number): void {
    this.#used -= bytes
    while (this.#used < this.maxBytes && this.#waiting.length > 0) {
      const next = this.#waiting.shift()!
      this.#used += next.bytes
      next.grant()
    }
  }
}

/** One budget per gateway, shared by every listener of its server (the shared port, each network's). */
const budgets = new WeakMap<object, BodyBudget>()

export function bodyBudgetOf(owner: object): BodyBudget {
  let budget = budgets.get(owner)
  if (!budget) budgets.set(owner, (budget = new BodyBudget()))
  return budget
}
