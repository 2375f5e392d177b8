/**
 * `LocalhostWebSocket`: the `ws` package's WebSocket, connecting `ws://*.localhost` URLs to
 * 127.0.0.1 with `localhostLookup` (the Host header stays the URL's, so the gateway routes on it).
 * ethers: `new WebSocketProvider(() => new LocalhostWebSocket(url))`; viem's `webSocket()` takes
 * no factory and uses `globalThis.WebSocket` when there is one (docs/websocket.md).
 */
import { WebSocket } from 'ws'
import type { ClientOptions } from 'ws'
import { localhostLookup } from './client.ts'

/** Takes what `ws`'s WebSocket takes: `(url, protocols?, options?)` or `(url, options)`. */
export class LocalhostWebSocket extends WebSocket {
  constructor(address: string | URL, protocols?: string | string[] | ClientOptions, options?: ClientOptions) {
    if (protocols !== undefined && typeof protocols === 'object' && !Array.isArray(protocols)) {
      super(address, { lookup: localhostLookup, ...protocols })
    } else {
      super(address, protocols, { lookup: localhostLookup, ...options })
    }
  }
}
