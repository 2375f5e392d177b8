/**
 * JSON text standing for a value: what a result already rendered is kept as (a block, its receipts,
 * a trace), spliced into responses as it is by ../rpc/rawJson.ts's serializer.
 */
import { jsonReplacer } from './hex.ts'

/** JSON text standing for a value. `JSON.stringify` of it writes the same value (`toJSON`). */
export class RawJson {
  readonly json: string
  #bytes: Buffer | undefined
  constructor(json: string) {
    this.json = json
  }

  /** The text in UTF-8, encoded on first use. */
  get bytes(): Buffer {
    this.#bytes ??= Buffer.from(this.json, 'utf8')
    return this.#bytes
  }

  /** The value as `JSON.stringify(value, jsonReplacer)` writes it. */
  static of(value: unknown): RawJson {
    return new RawJson(JSON.stringify(value, jsonReplacer))
  }

  toJSON(): unknown {
    return JSON.parse(this.json)
  }
}
