/**
 * The response serializer splices pre-encoded results (RawJson) and writes string results
 * directly: its bytes must be exactly those of JSON.stringify with the hex replacer.
 */
import { describe, expect, it } from 'vitest'
import { jsonReplacer } from '../../src/encoding/hex.ts'
import { jsonRpcResponse } from '../../src/gateway/response.ts'
import { RawJson } from '../../src/encoding/rawJson.ts'
import { serializeResponses } from '../../src/rpc/rawJson.ts'

const text = (body: string | Buffer) => (typeof body === 'string' ? body : body.toString('utf8'))
import type { JsonRpcResponse } from '../../src/rpc/types.ts'

const receipts = [{ status: '0x1', logs: [{ data: '0x', topics: [] }], to: null, note: 'quote " and \u2028 and é' }]

describe('serializeResponses', () => {
  const cases: [string, JsonRpcResponse | JsonRpcResponse[]][] = [
    ['a RawJson result', { jsonrpc: '2.0', id: 7, result: RawJson.of(receipts) }],
    ['a string result, string id with escapes', { jsonrpc: '2.0', id: 'a"b\\c\u2028', result: '0x1a' }],
    ['a null id', { jsonrpc: '2.0', id: null, result: '0x0' }],
    ['a bigint and bytes result', { jsonrpc: '2.0', id: 1, result: { n: 26n, b: Uint8Array.of(1, 2) } }],
    ['a null result', { jsonrpc: '2.0', id: 1, result: null }],
    ['an empty list (an idle filter poll)', { jsonrpc: '2.0', id: 1, result: [] }],
    ['a list of strings with escapes (a block filter\'s hashes)', { jsonrpc: '2.0', id: 'x', result: ['0xab', 'quote " and \u2028 and é'] }],
    ['a list of strings and a bigint', { jsonrpc: '2.0', id: 1, result: ['0xab', 26n] }],
    ['a list of byte arrays', { jsonrpc: '2.0', id: 1, result: [Uint8Array.of(1, 2)] }],
    ['a sparse list', { jsonrpc: '2.0', id: 1, result: ['0x1', , '0x3'] as unknown as string[] }],
    ['an error', { jsonrpc: '2.0', id: 2, error: { code: -32000, message: 'header not found' } }],
    ['keys in another order', { id: 3, jsonrpc: '2.0', result: '0x2' } as unknown as JsonRpcResponse],
    [
      'a batch of all kinds',
      [
        { jsonrpc: '2.0', id: 1, result: RawJson.of([]) },
        { jsonrpc: '2.0', id: 2, result: '0x2' },
        { jsonrpc: '2.0', id: 3, error: { code: 3, message: 'execution reverted', data: '0x' } },
      ],
    ],
  ]
  for (const [name, payload] of cases) {
    it(`${name}: the bytes of JSON.stringify`, () => {
      const plain = JSON.parse(JSON.stringify(payload, jsonReplacer)) as unknown
      expect(text(serializeResponses(payload))).toBe(JSON.stringify(payload, jsonReplacer))
      expect(JSON.parse(text(serializeResponses(payload)))).toStrictEqual(plain)
    })
  }

  it('a RawJson writes its value through JSON.stringify too', () => {
    expect(JSON.stringify({ result: RawJson.of(receipts) })).toBe(JSON.stringify({ result: receipts }))
  })

  it("a single RawJson answer comes in parts, the result's bytes the RawJson's own, concatenated only when the body is read", () => {
    const raw = RawJson.of(receipts)
    const payload: JsonRpcResponse = { jsonrpc: '2.0', id: 'x', result: raw }
    const response = jsonRpcResponse(payload)
    expect(response.parts).toHaveLength(3)
    expect(response.parts![1]).toBe(raw.bytes)
    expect(Buffer.concat(response.parts!).toString('utf8')).toBe(JSON.stringify(payload, jsonReplacer))
    expect(Number(response.headers['content-length'])).toBe(Buffer.concat(response.parts!).byteLength)
    expect(text(response.body)).toBe(JSON.stringify(payload, jsonReplacer))
    expect(jsonRpcResponse({ jsonrpc: '2.0', id: 1, result: '0x1' }).parts).toBeUndefined()
  })
})
