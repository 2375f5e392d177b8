/**
 * The gateway's side of one WebSocket connection, transport-free: the key and network its
 * upgrade was accepted for, its messages in flight, its subscriptions (./subscriptions.ts) and
 * their notifications (held while a `stall` fault lasts), its idle timer and its send buffer's bound.
 * The transport (src/http/webSocketServer.ts) hands it each message (`receive`) and tells it when
 * the connection is gone (`ended`); it answers through a `SocketSink` (frames out, close,
 * terminate). What a message does (rules, credits, faults, the calls, the request log) is the
 * gateway core's (`SessionPort.message`), the same path a POST takes; what a notification costs,
 * and whether a fault takes it, too (`SessionPort.event`).
 */
import type { KeySettings } from '../config.ts'
import type { Network, RequestState } from '../request.ts'
import { CLOSE_DAILY_LIMIT, CLOSE_IDLE } from './limits.ts'
import type { SocketLimits } from './limits.ts'
import { frameDataBytes } from './frames.ts'
import type { FrameData } from './frames.ts'
import { SessionSubscriptions } from './subscriptions.ts'
import type { Notification } from './subscriptions.ts'

/** What the transport gives a session: one connection's outgoing side. */
export interface SocketSink {
  /** Sends one text frame. */
  send(data: FrameData): void
  /** Starts the closing handshake; the transport calls `ended` once the connection is gone. */
  close(code: number, reason: string): void
  /** Destroys the connection at once, no close frame (the client sees 1006). */
  terminate(): void
  /** Bytes handed to `send` and not yet written to the network. */
  readonly bufferedBytes: number
  /** Stops reading messages from the client (backpressure), and starts again. */
  pause(): void
  resume(): void
}

/** What a message comes to, for the session to carry out. */
/** What ends a connection: the daily limit (this final frame, then close 1008), or a scripted fault (terminate, close with a code). */
type ConnectionEnd =
  | { readonly kind: 'sever'; readonly data: string }
  | { readonly kind: 'drop' }
  | { readonly kind: 'close'; readonly code: number; readonly reason: string }

export type MessageOutcome =
  /** Frames to send (undefined: nothing, e.g. a message of notifications only). */
  | { readonly kind: 'send'; readonly data: string | Buffer | undefined }
  | ConnectionEnd
  /** A scripted fault that leaves the message unanswered. */
  | { readonly kind: 'none' }

/** What a notification comes to: sent (charged and logged), the daily limit, or a fault. */
export type EventOutcome =
  | { readonly kind: 'send' }
  /** The key could not pay it (sever), or a scripted fault. */
  | ConnectionEnd
  /** Hold this and every later notification for `ms`, then send them in order. */
  | { readonly kind: 'stall'; readonly ms: number }

/** The gateway core, as a session sees it. */
export interface SessionPort {
  readonly limits: SocketLimits
  /** One message through the gateway's path, its request log entry written. Never rejects. */
  message(session: SocketSession, data: Buffer | string): Promise<MessageOutcome>
  /**
   * A notification about to be sent: a fault (unless it was held by one: `held`), the charge and
   * its log entry (written once the event's frames are out: ./socketSide.ts). Synchronous, so
   * charges keep the order of the chain's events.
   */
  event(session: SocketSession, notification: Notification, held: boolean): EventOutcome
  /** The gateway's clock, in ms. */
  now(): number
  /** The connection is over: forget the session. */
  ended(session: SocketSession): void
  /** The session's own failure (a bug): logged; the connection is terminated. */
  failed(err: unknown): void
}

type Phase = 'open' | 'closing' | 'closed'

export class SocketSession {
  /** The connection's number in the request log. */
  readonly connection: number
  /** The accepted upgrade's rule state (key, network, secret checked): the call rules read it. */
  readonly state: RequestState
  /** Its eth_subscribe subscriptions, on its network's chain. */
  readonly subscriptions: SessionSubscriptions
  readonly #port: SessionPort
  readonly #sink: SocketSink
  readonly #limits: SocketLimits
  readonly #gone = new AbortController()
  #phase: Phase = 'open'
  #inFlight = 0
  #inFlightBytes = 0
  #paused = false
  #idle: NodeJS.Timeout | undefined
  /** Notifications held by a stall, and their bytes; undefined when none is in force. */
  #held: Notification[] | undefined
  #heldBytes = 0
  #stall: NodeJS.Timeout | undefined

  constructor(connection: number, state: RequestState, sink: SocketSink, port: SessionPort) {
    this.connection = connection
    this.state = state
    this.#sink = sink
    this.#port = port
    this.#limits = port.limits
    this.subscriptions = new SessionSubscriptions({
      chain: state.network!.chain,
      maxSubscriptions: port.limits.maxSubscriptions,
      maxSubscriptionBytes: port.limits.maxSubscriptionBytes,
      now: () => port.now(),
      notify: (notification) => this.notify(notification),
      onError: (err) => port.failed(err),
    })
    state.subscriptions = this.subscriptions
    this.#touch()
  }

  get key(): KeySettings {
    return this.state.key!
  }

  get network(): Network {
    return this.state.network!
  }

  /** Aborted when the connection is gone: releases a message a fault is holding. */
  get signal(): AbortSignal {
    return this.#gone.signal
  }

  get open(): boolean {
    return this.#phase === 'open'
  }

  /** One message from the client (text or binary frame: both are read as UTF-8 JSON, as geth does). */
  receive(data: Buffer | string): void {
    if (this.#phase !== 'open') return
    this.#touch()
    const bytes = data.length
    this.#inFlight++
    this.#inFlightBytes += bytes
    if (this.#full() && !this.#paused) {
      this.#paused = true
      this.#sink.pause()
    }
    void this.#port.message(this, data).then((outcome) => {
      this.#inFlight--
      this.#inFlightBytes -= bytes
      if (this.#paused && !this.#full() && this.#phase === 'open') {
        this.#paused = false
        this.#sink.resume()
      }
      this.#carryOut(outcome)
    }).catch((err: unknown) => {
      this.#port.failed(err)
      this.terminate()
    })
  }

  /** Whether the messages in flight are at a bound: reading waits for answers to go out. */
  #full(): boolean {
    return this.#inFlight >= this.#limits.maxInFlight || this.#inFlightBytes >= this.#limits.maxInFlightBytes
  }

  #carryOut(outcome: MessageOutcome): void {
    if (outcome.kind === 'send') {
      if (outcome.data !== undefined) this.send(outcome.data)
    } else if (outcome.kind !== 'none') this.#end(outcome)
  }

  /** An outcome that ends the connection, for a message or a notification alike. */
  #end(outcome: ConnectionEnd): void {
    switch (outcome.kind) {
      case 'sever':
        this.sever(outcome.data)
        return
      case 'drop':
        this.terminate()
        return
      case 'close':
        this.close(outcome.code, outcome.reason)
        return
    }
  }

  /**
   * Sends a frame, unless the client is not reading: when frames already wait and this one
   * would take them past `maxBufferedBytes`, the connection is terminated instead (a close frame
   * would wait behind them). False when nothing was sent.
   */
  send(data: FrameData): boolean {
    if (this.#phase !== 'open') return false
    const waiting = this.#sink.bufferedBytes
    const bytes = frameDataBytes(data)
    if (waiting > 0 && waiting + bytes > this.#limits.maxBufferedBytes) {
      this.terminate()
      return false
    }
    this.#sink.send(data)
    this.#touch()
    return true
  }

  /** A subscription's notifications for one event: sent unless a fault or the daily limit stops them, held while stalled. */
  notify(notification: Notification): void {
    if (this.#phase !== 'open') return
    if (this.#held) this.#hold(notification)
    else this.#deliver(notification, false)
  }

  #deliver(notification: Notification, held: boolean): void {
    const outcome = this.#port.event(this, notification, held)
    switch (outcome.kind) {
      case 'send':
        for (const frame of notification.frames) if (!this.send(frame)) return
        return
      case 'sever':
      case 'drop':
      case 'close':
        this.#end(outcome)
        return
      case 'stall':
        this.#held = []
        this.#hold(notification)
        this.#stall = setTimeout(() => this.#release(), outcome.ms)
        this.#stall.unref()
        return
    }
  }

  /** Held notifications count toward the send buffer's bound: past it, the connection is terminated. */
  #hold(notification: Notification): void {
    const bytes = notification.frames.reduce((sum, f) => sum + frameDataBytes(f), 0)
    if (this.#sink.bufferedBytes + this.#heldBytes + bytes > this.#limits.maxBufferedBytes) {
      this.terminate()
      return
    }
    this.#held!.push(notification)
    this.#heldBytes += bytes
  }

  /** The stall is over: what it held goes out in order (charged now, no fault tried again). */
  #release(): void {
    const held = this.#held ?? []
    this.#held = undefined
    this.#heldBytes = 0
    this.#stall = undefined
    for (const notification of held) {
      if (this.#phase !== 'open') return
      this.#deliver(notification, true)
    }
  }

  /** The daily limit: a final frame (the 402 body), then close 1008. */
  sever(finalFrame: string): void {
    if (this.send(finalFrame)) this.close(CLOSE_DAILY_LIMIT.code, CLOSE_DAILY_LIMIT.reason)
  }

  /** Starts the closing handshake (a reason of at most 123 bytes). */
  close(code: number, reason: string): void {
    if (this.#phase !== 'open') return
    this.#phase = 'closing'
    this.#stopTimers()
    this.#sink.close(code, reason)
  }

  /** Destroys the connection at once. */
  terminate(): void {
    if (this.#phase === 'closed') return
    this.#phase = 'closing'
    this.#stopTimers()
    this.#sink.terminate()
  }

  /** The transport: the connection is gone (closed by either side, or broken). */
  ended(): void {
    if (this.#phase === 'closed') return
    this.#phase = 'closed'
    this.#stopTimers()
    this.#gone.abort()
    this.#port.ended(this)
  }

  /** Something went either way: the idle timer starts again. */
  #touch(): void {
    if (this.#phase !== 'open') return
    if (this.#idle !== undefined) this.#idle.refresh()
    else {
      this.#idle = setTimeout(() => this.close(CLOSE_IDLE.code, CLOSE_IDLE.reason), this.#limits.idleMs)
      this.#idle.unref()
    }
  }

  /** The connection is closing: timers stop, subscriptions end, held notifications are dropped. */
  #stopTimers(): void {
    if (this.#idle !== undefined) clearTimeout(this.#idle)
    this.#idle = undefined
    if (this.#stall !== undefined) clearTimeout(this.#stall)
    this.#stall = undefined
    this.#held = undefined
    this.#heldBytes = 0
    this.subscriptions.close()
  }
}
