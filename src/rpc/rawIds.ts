/**
 * The ids of a JSON-RPC body as the client wrote them. geth keeps a request's id as raw JSON and
 * echoes those bytes; `JSON.parse` turns `18446744073709551615` into 18446744073709552000, `1.0`
 * into 1, `1e400` into Infinity and `"\u0041"` into "A". The gateway parses as usual and, only when
 * an id may have been written otherwise than `JSON.stringify` writes it back (a number, or a
 * string in a body with a backslash), asks these scanners for its text (see `needsRawId`).
 *
 * The scanners read the body once, skipping strings with `indexOf` and nested values by depth,
 * without recursion; they expect text `JSON.parse` has already accepted.
 */

/** An id as the client wrote it: its JSON text, echoed as it is (see `idJson` in ./rawJson.ts). */
export class RawId {
  readonly json: string
  constructor(json: string) {
    this.json = json
  }

  /** For `JSON.stringify` elsewhere (the wire goes through `idJson`): the parsed value. */
  toJSON(): unknown {
    return JSON.parse(this.json)
  }
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const COMMA = 0x2c

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++
  return i
}

/** The index after the string that opens at `i`. */
function skipString(text: string, i: number): number {
  let from = i + 1
  for (;;) {
    const close = text.indexOf('"', from)
    if (close < 0) return text.length
    let backslashes = 0
    while (text.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return close + 1
    from = close + 1
  }
}

/** The index after the value that starts at `i`. */
function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i)
  if (c === QUOTE) return skipString(text, i)
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0
    while (i < text.length) {
      const d = text.charCodeAt(i)
      if (d === QUOTE) {
        i = skipString(text, i)
        continue
      }
      if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++
      else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
        depth--
        if (depth === 0) return i + 1
      }
      i++
    }
    return i
  }
  // A number or a literal: up to the next delimiter.
  while (i < text.length) {
    const d = text.charCodeAt(i)
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || isSpace(d)) break
    i++
  }
  return i
}

/** Scans the object that opens at `i`: the raw text of its (last, as `JSON.parse` keeps) `id` member, and where it ends. */
function scanObject(text: string, i: number): { id: string | undefined; end: number } {
  let id: string | undefined
  i = skipSpace(text, i + 1)
  if (text.charCodeAt(i) === CLOSE_BRACE) return { id, end: i + 1 }
  while (i < text.length) {
    const keyEnd = skipString(text, i)
    const rawKey = text.slice(i + 1, keyEnd - 1)
    const key = rawKey.includes('\\') ? (JSON.parse(`"${rawKey}"`) as string) : rawKey
    i = skipSpace(text, skipSpace(text, keyEnd) + 1) // past the colon
    const valueEnd = skipValue(text, i)
    if (key === 'id') id = text.slice(i, valueEnd)
    i = skipSpace(text, valueEnd)
    if (text.charCodeAt(i) !== COMMA) return { id, end: i + 1 }
    i = skipSpace(text, i + 1)
  }
  return { id, end: i }
}

/** The raw text of a single request's `id`, when the body is an object that has one. */
export function rawIdOf(text: string): string | undefined {
  const i = skipSpace(text, 0)
  return text.charCodeAt(i) === OPEN_BRACE ? scanObject(text, i).id : undefined
}

/** The raw text of each batch element's `id` (undefined for an element that is no object or has none). */
export function rawBatchIds(text: string): (string | undefined)[] {
  const ids: (string | undefined)[] = []
  let i = skipSpace(text, 0)
  if (text.charCodeAt(i) !== OPEN_BRACKET) return ids
  i = skipSpace(text, i + 1)
  if (text.charCodeAt(i) === CLOSE_BRACKET) return ids
  while (i < text.length) {
    if (text.charCodeAt(i) === OPEN_BRACE) {
      const { id, end } = scanObject(text, i)
      ids.push(id)
      i = end
    } else {
      ids.push(undefined)
      i = skipValue(text, i)
    }
    i = skipSpace(text, i)
    if (text.charCodeAt(i) !== COMMA) break
    i = skipSpace(text, i + 1)
  }
  return ids
}

/**
 * Whether an id parsed from `text` may read otherwise in the body than `JSON.stringify` writes it:
 * any number (digits beyond 2^53, fractions, exponents, `-0`), or a string when the body has a
 * backslash (escapes such as `\u0041` or `\/`); otherwise the parsed id is written back the same.
 */
export function needsRawId(id: unknown, text: string): boolean {
  if (typeof id === 'string') return text.includes('\\')
  if (typeof id !== 'number') return false
  return !(Number.isSafeInteger(id) && !Object.is(id, -0) && writtenPlainly(id, text))
}

/**
 * The common case, cheaply (most clients write `"id":7`): the body has `"id":<the integer>` followed
 * by a delimiter, no other `"id"` and no backslash (so the top-level key is not written with an
 * escape); then that is the top-level id, written as `JSON.stringify` writes it.
 */
function writtenPlainly(id: number, text: string): boolean {
  const token = `"id":${id}`
  const at = text.indexOf(token)
  if (at < 0) return false
  const next = text.charCodeAt(at + token.length)
  if (next !== COMMA && next !== CLOSE_BRACE && !isSpace(next)) return false
  return text.indexOf('"id"', at + 1) < 0 && !text.includes('\\')
}
