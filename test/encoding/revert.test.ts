import { execFileSync } from 'node:child_process'
import { hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { revertMessage } from '../../src/encoding/revert.ts'

const word = (n: number | bigint) => BigInt(n).toString(16).padStart(64, '0')
const errorString = (s: string) =>
  hexToBytes(`0x08c379a0${word(32)}${word(s.length)}${Buffer.from(s).toString('hex').padEnd(Math.ceil(s.length / 32) * 64, '0')}`)
const panic = (code: number) => hexToBytes(`0x4e487b71${word(code)}`)

describe('revertMessage (geth UnpackRevert)', () => {
  it('decodes Error(string)', () => {
    expect(revertMessage(errorString('user error'))).toBe('execution reverted: user error')
  })
  it('decodes Panic codes with geth texts, and unknown codes in hex', () => {
    expect(revertMessage(panic(0x01))).toBe('execution reverted: assert(false)')
    expect(revertMessage(panic(0x12))).toBe('execution reverted: division or modulo by zero')
    expect(revertMessage(panic(0x11))).toBe('execution reverted: arithmetic underflow or overflow')
    expect(revertMessage(panic(0x99))).toBe('execution reverted: unknown panic code: 0x99')
  })
  it('leaves custom errors, empty and malformed data undecoded', () => {
    expect(revertMessage(hexToBytes('0x03eb8b54'))).toBe('execution reverted')
    expect(revertMessage(new Uint8Array())).toBe('execution reverted')
    expect(revertMessage(hexToBytes(`0x08c379a0${word(32)}${word(100)}`))).toBe('execution reverted')
  })
})

/**
 * A revert reason that is not valid UTF-8, as geth shows it: geth's JSON is Go's encoding/json,
 * which writes one U+FFFD per byte that starts no valid sequence. The expected strings below are
 * Go's own output (test/support/go/jsonError.go, run here when `go` is installed) for the same bytes.
 */
describe('a reason that is not valid UTF-8 (geth’s encoding/json)', () => {
  const reasonOf = (hex: string) => {
    const bytes = Buffer.from(hex, 'hex')
    return hexToBytes(`0x08c379a0${word(32)}${word(bytes.length)}${bytes.toString('hex').padEnd(Math.ceil(bytes.length / 32) * 64, '0')}`)
  }
  /** [reason bytes, the message Go's encoding/json writes (as parsed from its JSON)]. */
  const GO: [string, string][] = [
    // A, a lone 0xff, B, a truncated 3-byte sequence (e2 82), C, a truncated 2-byte one (c3).
    ['41ff42e28243c3', 'execution reverted: A\ufffdB\ufffd\ufffdC\ufffd'],
    // Overlong, surrogate and out-of-range sequences: each byte on its own.
    ['c080eda080f4908080', `execution reverted: ${'\ufffd'.repeat(9)}`],
    // Valid sequences of each length, and a valid U+FFFD, stay as they are.
    ['c3a9e282acf09f9880efbfbd', 'execution reverted: é€😀\ufffd'],
  ]
  it.each(GO)('%s', (hex, message) => {
    expect(revertMessage(reasonOf(hex))).toBe(message)
  })
  it('differs from TextDecoder, which writes one U+FFFD per truncated sequence', () => {
    expect(new TextDecoder().decode(Buffer.from('41ff42e28243c3', 'hex'))).toBe('A\ufffdB\ufffdC\ufffd')
  })
  it.runIf(hasGo())('the expected strings are Go’s', () => {
    for (const [hex, message] of GO) {
      const out = execFileSync('go', ['run', GO_PROGRAM, hex], { env: { ...process.env, GO111MODULE: 'off' }, encoding: 'utf8' })
      expect((JSON.parse(out) as { message: string }).message).toBe(message)
    }
  }, 60_000)
})

const GO_PROGRAM = new URL('../support/go/jsonError.go', import.meta.url).pathname

function hasGo(): boolean {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
