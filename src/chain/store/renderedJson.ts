/**
 * The chain's blocks as answers already rendered to JSON text (a block with its transactions' hashes
 * or in full, a block's receipts, a newHeads header), so a block asked again is spliced into the
 * response, not rendered and encoded again. The store owns it and bounds it in bytes: at most
 * `RENDERED_JSON_BYTES` of text, the least recently used going first. Before, each rendering was
 * kept beside its block for as long as the block lived, so every block ever asked for held its
 * JSON (a 200-transaction block's receipts: 324 KB of text and as much again encoded).
 *
 * Entries are keyed by the block's hash and the form: a hash names a block's contents, so an entry
 * is never stale, and a block a rewind dropped leaves nothing behind but text that goes in turn.
 */
import type { RawJson } from '../../encoding/rawJson.ts'
import type { BlockRecord } from '../blocks/types.ts'

/** At most this many bytes of rendered text (counted twice: the text and, once written, its UTF-8 bytes). */
export const RENDERED_JSON_BYTES = 16 * 1024 * 1024

/** A Map entry's slots, its key and the RawJson's own fields, estimated. */
const ENTRY_OVERHEAD = 200

/** What is rendered of a block: each form its own entry. */
export type RenderedForm = 'block' | 'fullBlock' | 'receipts' | 'newHead'

export class RenderedJson {
  readonly #entries = new Map<string, { raw: RawJson; bytes: number }>()
  #bytes = 0
  readonly #limit: number
  /**
   * What `of` answered last, when kept: asked for again before anything else (each newHeads
   * subscriber's frame asks for the block's header in turn, 100 times a block with 100
   * subscribers), it is already the most recently used, and is answered without building its key
   * (a new string, hashed again by the Map) or moving it.
   */
  #last: { record: BlockRecord; form: RenderedForm; raw: RawJson } | undefined

  constructor(limit = RENDERED_JSON_BYTES) {
    this.#limit = limit
  }

  /** `record`'s `form`, rendered by `render` when not kept (and kept when it fits). */
  of(record: BlockRecord, form: RenderedForm, render: () => RawJson): RawJson {
    const last = this.#last
    if (last !== undefined && last.record === record && last.form === form) return last.raw
    const key = form + record.hash
    const kept = this.#entries.get(key)
    if (kept !== undefined) {
      // Most recently used last: re-inserted.
      this.#entries.delete(key)
      this.#entries.set(key, kept)
      this.#last = { record, form, raw: kept.raw }
      return kept.raw
    }
    const raw = render()
    const bytes = 2 * raw.json.length + key.length + ENTRY_OVERHEAD
    this.#last = undefined
    if (bytes > this.#limit) return raw
    while (this.#bytes + bytes > this.#limit) this.#evictOldest()
    this.#entries.set(key, { raw, bytes })
    this.#bytes += bytes
    this.#last = { record, form, raw }
    return raw
  }

  /** Bytes held, as counted against the limit. */
  get bytes(): number {
    return this.#bytes
  }

  #evictOldest(): void {
    const [key, oldest] = this.#entries.entries().next().value!
    this.#entries.delete(key)
    this.#bytes -= oldest.bytes
  }
}
