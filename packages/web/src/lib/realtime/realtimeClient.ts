/**
 * The realtime channel's client (spec 001 §4, §6, §7), framework-free so its rules are unit
 * tested with a fake socket: one WebSocket per session, `request_update` on open, reconnect
 * with backoff 1 s doubling up to 5 attempts, and no reconnect after one authentication failure
 * (close 401/403 or the server's 4401/4403, or a 401/403 answer to the ticket call).
 *
 * With `getTicket` (the console) each attempt first asks the server for a single-use ticket and
 * connects with `?ticket=`, so the key never appears in a URL; without it, with the key as the
 * spec's `?api_key=`.
 */
import {
  ServerMessage,
  WS_CLOSE_FORBIDDEN,
  WS_CLOSE_UNAUTHORIZED,
  type ClientMessage,
} from '@adam/contracts';

const RECONNECT_BASE_DELAY_MS = 1000;
export const MAX_RECONNECT_ATTEMPTS = 5;
const MAX_AUTH_FAILURES = 1;
export const WS_AUTH_FAILURE_MESSAGE = 'WebSocket authentication failed – check login or API key.';

const AUTH_CLOSE_CODES = new Set([401, 403, WS_CLOSE_UNAUTHORIZED, WS_CLOSE_FORBIDDEN]);
/** What a browser reports for a connection that failed without a close frame. */
const CLOSE_ABNORMAL = 1006;

export type RealtimeStatus =
  /** Not started, or disconnected on purpose. */
  | 'idle'
  | 'connecting'
  | 'open'
  /** Closed, a reconnect is scheduled. */
  | 'reconnecting'
  /** Gave up after MAX_RECONNECT_ATTEMPTS. */
  | 'closed'
  /** The server refused the key: no more attempts until connect() is called again. */
  | 'auth_failed';

/** A message the contract knows, or any other type passed through as received. */
export type RealtimeMessage = ServerMessage | { type: string; [field: string]: unknown };

/** The part of the browser WebSocket the client uses. */
export interface SocketLike {
  onopen: ((event: unknown) => void) | null;
  onclose: ((event: { code: number; reason?: string }) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export interface RealtimeClientOptions {
  /** The session key now (it rotates on refresh); no key: no connection. */
  getKey: () => string | null;
  /**
   * A fresh single-use ticket for the next attempt (POST /auth/ws-ticket). A rejection whose
   * `status` is 401 or 403 counts as an authentication failure; any other as a failed attempt.
   */
  getTicket?: () => Promise<string>;
  /** Base URL of the channel, e.g. ws://host/api/v1/ws. */
  url: string;
  createSocket?: (url: string) => SocketLike;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

type Listener<T> = (value: T) => void;

/** Delay before reconnect attempt `attempt` (1-based): 1 s, 2 s, 4 s, 8 s, 16 s. */
export function reconnectDelay(attempt: number): number {
  return RECONNECT_BASE_DELAY_MS * 2 ** (attempt - 1);
}

/** Parses one frame: contract messages typed, unknown types passed through, junk dropped. */
export function parseMessage(data: unknown): RealtimeMessage | null {
  if (typeof data !== 'string') return null;
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  const parsed = ServerMessage.safeParse(value);
  if (parsed.success) return parsed.data;
  if (
    value &&
    typeof value === 'object' &&
    typeof (value as { type?: unknown }).type === 'string'
  ) {
    const type = (value as { type: string }).type;
    // A known type with a malformed body is dropped rather than half-applied to the cache.
    if (KNOWN_TYPES.has(type)) return null;
    return value as RealtimeMessage;
  }
  return null;
}

const KNOWN_TYPES = new Set<string>(
  ServerMessage.options.map((option) => option.shape.type.value as string),
);

export class RealtimeClient {
  private socket: SocketLike | null = null;
  private keyInUse: string | null = null;
  private attempts = 0;
  private authFailures = 0;
  private timer: unknown = null;
  /** Bumped by connect() and disconnect(): a ticket that arrives after either is not used. */
  private run = 0;
  private current: RealtimeStatus = 'idle';
  private readonly messageListeners = new Set<Listener<RealtimeMessage>>();
  private readonly statusListeners = new Set<Listener<RealtimeStatus>>();
  private readonly createSocket: (url: string) => SocketLike;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;

  constructor(private readonly options: RealtimeClientOptions) {
    this.createSocket =
      options.createSocket ?? ((url) => new WebSocket(url) as unknown as SocketLike);
    this.setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = options.clearTimer ?? ((h) => clearTimeout(h as number));
  }

  get status(): RealtimeStatus {
    return this.current;
  }

  /** Starts (or restarts after a give-up or an auth failure) with fresh counters. */
  connect(): void {
    this.run += 1;
    this.attempts = 0;
    this.authFailures = 0;
    this.cancelTimer();
    this.open();
  }

  /** Closes on purpose: no reconnect. */
  disconnect(): void {
    this.run += 1;
    this.cancelTimer();
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onclose = null;
      socket.onmessage = null;
      socket.onerror = null;
      socket.close(1000, 'Client disconnect');
    }
    this.setStatus('idle');
  }

  /** Sends a client message when open; returns whether it went out. */
  send(message: ClientMessage): boolean {
    if (this.current !== 'open' || !this.socket) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  onMessage(listener: Listener<RealtimeMessage>): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }

  onStatus(listener: Listener<RealtimeStatus>): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  private open(): void {
    const key = this.options.getKey();
    if (!key) {
      this.setStatus('idle');
      return;
    }
    this.keyInUse = key;
    this.setStatus('connecting');
    const getTicket = this.options.getTicket;
    if (!getTicket) {
      this.openSocket(`api_key=${encodeURIComponent(key)}`);
      return;
    }
    const run = this.run;
    getTicket().then(
      (ticket) => {
        if (run === this.run) this.openSocket(`ticket=${encodeURIComponent(ticket)}`);
      },
      (error: unknown) => {
        if (run !== this.run) return;
        const status = (error as { status?: unknown } | null)?.status;
        // Refused like a socket would be: the same auth-failure path; else a failed attempt.
        this.handleClose(status === 401 || status === 403 ? status : CLOSE_ABNORMAL);
      },
    );
  }

  private openSocket(credential: string): void {
    const separator = this.options.url.includes('?') ? '&' : '?';
    const socket = this.createSocket(`${this.options.url}${separator}${credential}`);
    this.socket = socket;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.attempts = 0;
      this.setStatus('open');
      this.send({ type: 'request_update' });
    };
    socket.onmessage = (event) => {
      if (this.socket !== socket) return;
      const message = parseMessage(event.data);
      if (message) for (const listener of this.messageListeners) listener(message);
    };
    socket.onerror = () => {
      // A close event always follows; the decision is taken there.
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.handleClose(event.code);
    };
  }

  private handleClose(code: number): void {
    if (AUTH_CLOSE_CODES.has(code)) {
      // The key was rotated by a refresh meanwhile: the old one's socket is closed, not refused.
      const key = this.options.getKey();
      if (key && key !== this.keyInUse) {
        this.open();
        return;
      }
      this.authFailures += 1;
      if (this.authFailures >= MAX_AUTH_FAILURES) {
        this.setStatus('auth_failed');
        return;
      }
    }
    if (this.attempts >= MAX_RECONNECT_ATTEMPTS) {
      this.setStatus('closed');
      return;
    }
    this.attempts += 1;
    this.setStatus('reconnecting');
    this.timer = this.setTimer(() => {
      this.timer = null;
      this.open();
    }, reconnectDelay(this.attempts));
  }

  private cancelTimer(): void {
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
  }

  private setStatus(status: RealtimeStatus): void {
    if (status === this.current) return;
    this.current = status;
    for (const listener of this.statusListeners) listener(status);
  }
}
