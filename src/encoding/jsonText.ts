/**
 * JSON text of a parsed JSON value without recursion. `JSON.stringify` recurses, and a value a
 * client nested 10,000 deep (which `JSON.parse` reads fine) overflows the stack; error messages
 * that quote a client's value (geth quotes the raw JSON of a bad param) use this instead.
 *
 * `maxChars` cuts the text (with `…`) once it is that long, so a message quoting a 5 MiB value
 * stays short; without it the whole text is written.
 */
export function jsonText(value: unknown, maxChars = Number.POSITIVE_INFINITY): string {
  if (value === undefined) return 'undefined'
  let out = ''
  // Each frame: the container, its keys (objects), and the next index.
  const stack: { node: unknown[] | Record<string, unknown>; keys: string[] | null; i: number }[] = []
  const open = (v: unknown): void => {
    if (Array.isArray(v)) {
      out += '['
      stack.push({ node: v, keys: null, i: 0 })
    } else if (typeof v === 'object' && v !== null) {
      out += '{'
      stack.push({ node: v as Record<string, unknown>, keys: Object.keys(v), i: 0 })
    } else {
      out += scalar(v)
    }
  }
  open(value)
  while (stack.length > 0 && out.length < maxChars) {
    const top = stack[stack.length - 1]!
    const length = top.keys === null ? (top.node as unknown[]).length : top.keys.length
    if (top.i >= length) {
      out += top.keys === null ? ']' : '}'
      stack.pop()
      continue
    }
    if (top.i > 0) out += ','
    if (top.keys === null) {
      open((top.node as unknown[])[top.i++])
    } else {
      const key = top.keys[top.i++]!
      out += `${JSON.stringify(key)}:`
      open((top.node as Record<string, unknown>)[key])
    }
  }
  return out.length > maxChars || stack.length > 0 ? `${out.slice(0, maxChars)}…` : out
}

function scalar(v: unknown): string {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null) return JSON.stringify(v)
  if (typeof v === 'bigint') return v.toString()
  return 'null'
}
