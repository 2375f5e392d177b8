/**
 * The one error a fixture source can produce. Its message always starts with the file and the
 * entry (a JSON path such as `blocks[2].transactions[1]`), so a user can find the line to fix.
 */
export class FixtureSourceError extends Error {
  override readonly name = 'FixtureSourceError'
  readonly file: string
  readonly entry: string
  readonly reason: string

  constructor(file: string, entry: string, reason: string) {
    super(entry === '' ? `${file}: ${reason}` : `${file}: ${entry}: ${reason}`)
    this.file = file
    this.entry = entry
    this.reason = reason
  }
}

/**
 * Where in a source file a value sits. Builders of nested entries extend it with `at(...)`, so
 * every check can report its location without threading strings through by hand.
 */
export class SourceLocation {
  readonly file: string
  readonly entry: string

  constructor(file: string, entry = '') {
    this.file = file
    this.entry = entry
  }

  /** A location below this one: `at('blocks', 2)` gives `blocks[2]`, `at('from')` gives `….from`. */
  at(...parts: (string | number)[]): SourceLocation {
    let entry = this.entry
    for (const part of parts) {
      if (typeof part === 'number') entry += `[${part}]`
      else entry += entry === '' ? part : `.${part}`
    }
    return new SourceLocation(this.file, entry)
  }

  error(reason: string): FixtureSourceError {
    return new FixtureSourceError(this.file, this.entry, reason)
  }
}
