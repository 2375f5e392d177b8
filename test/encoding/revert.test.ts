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
