/**
 * The WebSocket handshake's own checks, after the gateway's request rules passed: gorilla/websocket's
 * `Upgrader.Upgrade` in its order (the service's WebSocket server is Go), and the few the `ws`
 * package makes beyond it, so that an upgrade the gateway accepts is one `ws` completes.
 */
import { WebSocketHandshakeError } from '../errors.ts'
import type { GatewayRequest } from '../request.ts'

const NOT_WEBSOCKET = 'websocket: the client is not using the websocket protocol: '
/** 16 bytes in base64 (RFC 6455 4.1; the `ws` package's test). */
const CHALLENGE_KEY_RE = /^[+/0-9A-Za-z]{22}==$/
/** A list of RFC 7230 tokens, as `Sec-WebSocket-Protocol` must be. */
const TOKEN_LIST_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?:[ \t]*,[ \t]*[!#$%&'*+\-.^_`|~0-9A-Za-z]+)*$/

function values(request: GatewayRequest, name: string): string[] {
  const v = request.headers[name]
  if (v === undefined) return []
  return (typeof v === 'string' ? [v] : [...v]).flatMap((line) => line.split(','))
}

/** gorilla's `tokenListContainsValue`: any comma-separated value equal to `token`, case aside. */
function hasToken(request: GatewayRequest, name: string, token: string): boolean {
  return values(request, name).some((v) => v.trim().toLowerCase() === token)
}

function single(request: GatewayRequest, name: string): string | undefined {
  const v = request.headers[name]
  return typeof v === 'string' ? v : v?.join(', ')
}

/** Throws the handshake's refusal, or returns when the request is a WebSocket upgrade `ws` will complete. */
export function checkHandshake(request: GatewayRequest): void {
  if (!hasToken(request, 'connection', 'upgrade')) {
    throw new WebSocketHandshakeError(400, `${NOT_WEBSOCKET}'upgrade' token not found in 'Connection' header`)
  }
  if (!hasToken(request, 'upgrade', 'websocket')) {
    throw new WebSocketHandshakeError(426, `${NOT_WEBSOCKET}'websocket' token not found in 'Upgrade' header`)
  }
  if (request.method !== 'GET') throw new WebSocketHandshakeError(405, `${NOT_WEBSOCKET}request method is not GET`)
  if (!hasToken(request, 'sec-websocket-version', '13')) {
    throw new WebSocketHandshakeError(400, "websocket: unsupported version: 13 not found in 'Sec-Websocket-Version' header")
  }
  const key = single(request, 'sec-websocket-key')
  if (key === undefined || !CHALLENGE_KEY_RE.test(key)) {
    throw new WebSocketHandshakeError(400, "websocket: not a websocket handshake: 'Sec-WebSocket-Key' header must be Base64 encoded value of 16-byte in length")
  }
  // Where gorilla is lenient and `ws` is not (an Upgrade header listing more than websocket, a
  // malformed subprotocol list): refused here in gorilla's words for a bad handshake.
  if (single(request, 'upgrade')?.trim().toLowerCase() !== 'websocket') {
    throw new WebSocketHandshakeError(400, `${NOT_WEBSOCKET}'Upgrade' header names more than websocket`)
  }
  const protocols = single(request, 'sec-websocket-protocol')
  if (protocols !== undefined && !TOKEN_LIST_RE.test(protocols.trim())) {
    throw new WebSocketHandshakeError(400, 'websocket: invalid Sec-WebSocket-Protocol header')
  }
}

/** Whether a request asks to switch to WebSocket (what the transport hands to `gateway.upgrade`). */
export function isWebSocketUpgrade(headers: GatewayRequest['headers']): boolean {
  const upgrade = headers.upgrade
  const text = typeof upgrade === 'string' ? upgrade : upgrade?.join(',')
  return text !== undefined && text.split(',').some((v) => v.trim().toLowerCase() === 'websocket')
}
