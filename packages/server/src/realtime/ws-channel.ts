import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyWebsocket from '@fastify/websocket';
import fp from 'fastify-plugin';
import {
  roleAllows,
  WS_CLOSE_FORBIDDEN,
  WS_CLOSE_UNAUTHORIZED,
  type ClientMessageType,
  type LiveStats,
  type RealtimeMetrics,
  type Role,
  type ServerMessage,
  type ServerMessageFields,
  type ServerMessageOf,
  type ServerMessageType,
} from '@adam/contracts';
import { AppError } from '../lib/errors.js';
import { foreignOriginDetail, originAllowed, originSet } from '../lib/origin.js';
import { presentedKey } from '../lib/presented-key.js';
import type { Logger } from '../logging.js';
import { roleOf, type AuthContext, type AuthService } from '../services/auth.service.js';
import type { HealthService } from '../services/health.service.js';
import type { LogRow } from '../store/log.repository.js';
import type { BusEventName, BusEvents, EventBus } from '../lib/event-bus.js';

/** Refused keys close with the contract's WS_CLOSE_*; these three are the protocol's own. */
const CLOSE_GOING_AWAY = 1001;
/** Policy violation: what a socket that keeps flooding the channel is closed with. */
const CLOSE_POLICY_VIOLATION = 1008;
const CLOSE_INTERNAL_ERROR = 1011;

/**
 * Bus events named like a server message are sent to the console, each as that message; the
 * others are internal. A new bus event with a message's name does not compile until it is here.
 */
type Forwarded = Extract<BusEventName, ServerMessageType>;
const FORWARD: { [K in Forwarded]: (payload: BusEvents[K]) => ServerMessageOf<K> } = {
  job_created: ({ type, ...job }) => serverMessage('job_created', { ...job, job_type: type }),
  job_progress: (p) => serverMessage('job_progress', p),
  job_completed: (p) => serverMessage('job_completed', p),
  job_failed: (p) => serverMessage('job_failed', p),
  job_cancelled: (p) => serverMessage('job_cancelled', p),
  job_deleted: (p) => serverMessage('job_deleted', p),
  segment_progress: (p) => serverMessage('segment_progress', p),
  model_warning: (p) => serverMessage('model_warning', p),
  model_progress: (p) => serverMessage('model_progress', p),
  'settings.updated': (p) => serverMessage('settings.updated', p),
  quality_alert: ({ lost_texts: _texts, ...alert }) => serverMessage('quality_alert', alert),
  quality_alert_dismissed: (p) => serverMessage('quality_alert_dismissed', p),
};
/** Events that change the counts of stats_update: a debounced push follows them. */
const STATS_EVENTS: readonly BusEventName[] = [
  'snippets.added',
  'snippets.deleted',
  // Job counts by status are part of the stats too.
  'job_created',
  'job_completed',
  'job_failed',
  'job_cancelled',
  'job_deleted',
  'backup.restored',
];

export interface ChannelLimits {
  /** Above this many bytes waiting for a socket, its messages are dropped (and counted). */
  maxBufferedBytes: number;
  /** Per socket; the rest of a second's flood is dropped and counted. */
  logEntriesPerSecond: number;
  /** Ping period; a socket that has not answered the previous ping is terminated. */
  keepaliveMs: number;
  /** Period of the re-check of each socket's key (expiry, revocation without an event). */
  authCheckMs: number;
  /** At most one pushed stats_update per this period after snippets or jobs change. */
  statsPushMs: number;
  /** How often congested sockets are looked at to tell them what they missed. */
  drainCheckMs: number;
  /** On shutdown, sockets that have not finished the close handshake by then are cut. */
  closeGraceMs: number;
  /** Client messages a socket may send per second, on average (its token bucket's refill). */
  messagesPerSecond: number;
  /** How many client messages a socket may send at once (its token bucket's size). */
  messageBurst: number;
  /**
   * A socket over its rate for this long is flooding and is closed with 1008. Time it spends
   * paused for its rate counts, and so does each gap shorter than floodGapMs between a refused
   * message (or the end of such a pause) and the next refused message.
   */
  floodCloseMs: number;
  /** This long without a refused message (after the socket was last resumed) ends a flood. */
  floodGapMs: number;
  /**
   * A socket gets at most one stats_update per this period for its request_update: one asked
   * sooner is answered at the end of the period, and those asked meanwhile share that answer.
   */
  updateMinIntervalMs: number;
}

const DEFAULT_LIMITS: ChannelLimits = {
  maxBufferedBytes: 1024 * 1024,
  logEntriesPerSecond: 50,
  keepaliveMs: 30_000,
  authCheckMs: 30_000,
  statsPushMs: 1000,
  drainCheckMs: 250,
  closeGraceMs: 1000,
  // The console sends a request_update per refresh tick (1 s at the fastest) and an occasional
  // ping: 20 a second is ten times that, and a burst of 40 covers a reconnect and quick clicks.
  // Beyond it the socket is no longer read until its bucket is full again, so a flood waits in
  // the kernel's buffers and TCP flow control slows the flooder, at no cost to the server.
  messagesPerSecond: 20,
  messageBurst: 40,
  floodCloseMs: 5000,
  floodGapMs: 1000,
  updateMinIntervalMs: 500,
};

/** What the hub needs of a socket (a `ws` WebSocket; a fake one in unit tests). */
export interface ChannelSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  ping(): void;
  /** Stops reading the connection (messages already read may still come), and starts again. */
  pause(): void;
  resume(): void;
  on(event: 'message', fn: (data: unknown, isBinary: boolean) => void): unknown;
  on(event: 'pong' | 'close', fn: () => void): unknown;
}
const OPEN = 1;

export interface RealtimeDeps {
  auth: Pick<AuthService, 'authenticate' | 'redeemTicket'>;
  bus: EventBus;
  /** The log sink: each stored line goes out as log_entry. */
  sink: { onEntry(fn: (row: LogRow) => void): () => void };
  metrics: { realtime(): RealtimeMetrics };
  /** resources.metrics_refresh_ms, re-read when the resources settings change. */
  metricsRefreshMs: () => number;
  getStats: () => Promise<LiveStats> | LiveStats;
  health?: Pick<HealthService, 'register'>;
  log: Logger;
  /** Clock for key expiry (the auth service's). */
  now?: () => number;
  /** Monotonic milliseconds for the per-socket limits; performance.now unless a test fakes it. */
  clock?: () => number;
  limits?: Partial<ChannelLimits>;
  /** Origins besides the server's own whose pages may open the socket (ADAM_ALLOWED_ORIGINS). */
  allowedOrigins?: readonly string[];
}

interface Client {
  socket: ChannelSocket;
  /** Kept in memory only, to re-check the key while the socket stays open. */
  key: string;
  keyId: number;
  /** The key's user's role, as of the last check (at connect, then each re-check). */
  role: Role;
  expiresAt: number;
  alive: boolean;
  congested: boolean;
  dropped: number;
  logSecond: number;
  logCount: number;
  /** The socket's token bucket: messages it may still send now, refilled since `tokensAt`. */
  tokens: number;
  tokensAt: number;
  /**
   * When the current flood began (null: no flood), and when it was last seen: a message refused,
   * or the end of a pause for the rate.
   */
  floodSince: number | null;
  lastRefusedAt: number;
  /** Set while the socket is not read because it is over its rate; ends the pause. */
  resumeTimer: NodeJS.Timeout | null;
  /** A stats_update waiting or being gathered for this socket, and when the last one began. */
  updatePending: boolean;
  updateTimer: NodeJS.Timeout | null;
  lastUpdateAt: number;
  refused: number;
}

/**
 * Every role may read the live stats; a user who must still change their one-time password may
 * not (as with every route but the password change). Refused with WS_CLOSE_FORBIDDEN rather than
 * WS_CLOSE_UNAUTHORIZED, so the console tells "not allowed" from "not logged in".
 */
function mayUseChannel(ctx: AuthContext): boolean {
  return !ctx.user.must_change_password;
}

/** Log lines name users and addresses: they go to whom GET /admin/logs answers (an operator). */
const mayReadLogs = (role: Role) => roleAllows(role, 'operator');

/** Builds `{type, ...payload, timestamp}`; a payload's own `type` becomes e.g. `job_type`. */
export function toMessage(type: string, payload: object = {}): Record<string, unknown> {
  const msg: Record<string, unknown> = { type };
  for (const [k, v] of Object.entries(payload)) {
    if (k === 'type') msg[`${type.split(/[._]/)[0]}_type`] = v;
    else msg[k] = v;
  }
  msg.timestamp ??= new Date().toISOString();
  return msg;
}

/** A server message with its timestamp (now unless given), checked against the contract. */
function serverMessage<T extends ServerMessageType>(
  type: T,
  fields: ServerMessageFields<T> & { timestamp?: string },
): ServerMessageOf<T> {
  return toMessage(type, fields) as ServerMessageOf<T>;
}

/** What the channel answers each client message with. */
type ClientHandlers = { [T in ClientMessageType]: (client: Client) => void };

/**
 * The realtime channel without HTTP: authenticated sockets, the bus forwarded to them, and the
 * rules that keep one slow or dead client from costing the server anything.
 */
export class RealtimeHub {
  private readonly clients = new Set<Client>();
  private readonly limits: ChannelLimits;
  private readonly unsubscribe: (() => void)[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private metricsTimer: NodeJS.Timeout | null = null;
  private metricsPeriodMs = 0;
  private statsTimer: NodeJS.Timeout | null = null;
  private lastStatsPush = 0;
  private sent = 0;
  private droppedTotal = 0;
  private refusedTotal = 0;
  private closed = false;

  constructor(private readonly deps: RealtimeDeps) {
    this.limits = { ...DEFAULT_LIMITS, ...deps.limits };
  }

  private now = (): number => (this.deps.now ?? Date.now)();
  private clock = (): number => (this.deps.clock ?? performance.now.bind(performance))();

  start(): void {
    const { bus } = this.deps;
    const statsEvents = new Set<string>(STATS_EVENTS);
    this.unsubscribe.push(
      bus.onAny(({ type, payload }) => {
        if (isForwarded(type)) this.broadcast(forward(type, payload));
        if (statsEvents.has(type)) this.scheduleStatsPush();
      }),
      bus.on('auth.key_revoked', ({ key_id }) => {
        for (const c of this.clients) {
          if (c.keyId === key_id) this.end(c, WS_CLOSE_UNAUTHORIZED, 'API key revoked');
        }
      }),
      bus.on('settings.updated', ({ section }) => {
        if (section === 'resources' && this.metricsTimer) this.startMetrics();
      }),
      this.deps.sink.onEntry((row) => this.broadcast(serverMessage('log_entry', row), true)),
    );
    const every = (ms: number, fn: () => void) => {
      const t = setInterval(fn, ms);
      t.unref();
      this.timers.push(t);
    };
    every(this.limits.keepaliveMs, () => this.keepalive());
    every(this.limits.authCheckMs, () => this.recheckKeys());
    every(this.limits.drainCheckMs, () => {
      for (const c of this.clients) if (c.dropped > 0) this.notifyDropped(c);
    });
    this.deps.health?.register('realtime', () => ({ status: 'healthy', details: this.stats() }));
  }

  stats(): {
    clients: number;
    messages_sent: number;
    messages_dropped: number;
    client_messages_refused: number;
    /** How often metrics.update goes out; null while no client listens. */
    metrics_period_ms: number | null;
  } {
    return {
      clients: this.clients.size,
      messages_sent: this.sent,
      messages_dropped: this.droppedTotal,
      client_messages_refused: this.refusedTotal,
      metrics_period_ms: this.metricsTimer ? this.metricsPeriodMs : null,
    };
  }

  /**
   * Authenticates a freshly opened socket, then sends it initial_state. A ticket stands for the
   * key that asked for it: from then on the socket is that key's, re-checked and closed like one.
   */
  connect(socket: ChannelSocket, presented: string | undefined, ticket?: string): void {
    if (this.closed) {
      socket.close(CLOSE_GOING_AWAY, 'Server shutting down');
      return;
    }
    let ctx: AuthContext;
    let key = presented;
    try {
      if (ticket !== undefined) key = this.deps.auth.redeemTicket(ticket);
      ctx = this.deps.auth.authenticate(key);
    } catch (e) {
      if (e instanceof AppError && e.status === 401) {
        this.deps.log.info({ component: 'realtime' }, `Realtime connection refused: ${e.message}`);
        socket.close(WS_CLOSE_UNAUTHORIZED, e.message);
      } else {
        this.deps.log.error({ component: 'realtime', err: e }, 'Realtime authentication failed');
        socket.close(CLOSE_INTERNAL_ERROR, 'Internal error');
      }
      return;
    }
    if (!mayUseChannel(ctx)) {
      socket.close(WS_CLOSE_FORBIDDEN, 'This API key may not use the realtime channel');
      return;
    }

    const client: Client = {
      socket,
      key: key ?? '',
      keyId: ctx.key.id,
      role: roleOf(ctx),
      expiresAt: Date.parse(ctx.key.expires_at),
      alive: true,
      congested: false,
      dropped: 0,
      logSecond: 0,
      logCount: 0,
      tokens: this.limits.messageBurst,
      tokensAt: this.clock(),
      floodSince: null,
      lastRefusedAt: 0,
      resumeTimer: null,
      updatePending: false,
      updateTimer: null,
      lastUpdateAt: -Infinity,
      refused: 0,
    };
    this.clients.add(client);
    socket.on('pong', () => (client.alive = true));
    socket.on('close', () => {
      if (!this.remove(client)) return;
      this.deps.log.debug(
        { component: 'realtime' },
        `Realtime client disconnected (${this.clients.size} open)`,
      );
    });
    socket.on('message', (data, isBinary) => this.receive(client, data, isBinary));
    if (this.clients.size === 1) this.startMetrics();
    this.deps.log.debug(
      { component: 'realtime' },
      `Realtime client connected for ${ctx.user.email} (${this.clients.size} open)`,
    );
    void this.sendStats(client, 'initial_state');
  }

  /** Closes every socket with 1001; sockets that do not finish the handshake in time are cut. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const off of this.unsubscribe.splice(0)) off();
    for (const t of this.timers.splice(0)) clearInterval(t);
    this.stopMetrics();
    if (this.statsTimer) clearTimeout(this.statsTimer);
    this.statsTimer = null;
    const sockets = [...this.clients].map((c) => c.socket);
    for (const c of this.clients) this.clearTimers(c);
    this.clients.clear();
    await Promise.all(
      sockets.map(
        (socket) =>
          new Promise<void>((resolve) => {
            if (socket.readyState > OPEN) {
              socket.terminate();
              return resolve();
            }
            const cut = setTimeout(() => {
              socket.terminate();
              resolve();
            }, this.limits.closeGraceMs);
            socket.on('close', () => {
              clearTimeout(cut);
              resolve();
            });
            socket.close(CLOSE_GOING_AWAY, 'Server shutting down');
          }),
      ),
    );
  }

  private receive(client: Client, data: unknown, isBinary: boolean): void {
    // Closed by the server (a flood's 1008): what `ws` still reads of it is ignored.
    if (!this.clients.has(client)) return;
    client.alive = true;
    // First, before the message is decoded: a flood must cost as little as possible.
    if (!this.admit(client)) return;
    if (this.now() >= client.expiresAt) {
      this.end(client, WS_CLOSE_UNAUTHORIZED, 'API key expired');
      return;
    }
    const text = isBinary ? null : String(data);
    let type: unknown = text === 'request_update' ? text : undefined;
    if (type === undefined && text !== null) {
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed && typeof parsed === 'object') type = (parsed as { type?: unknown }).type;
      } catch {
        // answered below
      }
    }
    if (typeof type !== 'string') {
      this.send(
        client,
        serverMessage('error', {
          message: 'Malformed message: expected JSON like {"type":"request_update"}',
        }),
      );
    } else if (Object.hasOwn(this.answer, type)) {
      this.answer[type as ClientMessageType](client);
    } else {
      this.send(
        client,
        serverMessage('error', { message: `Unknown message type '${type.slice(0, 64)}'` }),
      );
    }
  }

  /**
   * The socket's token bucket: true if the message may be handled. The first message over the
   * rate pauses the socket until its bucket is full again; that message, and those `ws` had
   * already read (the rest of the chunk), are dropped and counted. The first of a flood is
   * answered once with an error, and a socket still flooding after floodCloseMs is closed with
   * 1008.
   */
  private admit(c: Client): boolean {
    const { messagesPerSecond, messageBurst, floodCloseMs, floodGapMs } = this.limits;
    if (c.resumeTimer) return this.refuse(c);
    const t = this.clock();
    c.tokens = Math.min(messageBurst, c.tokens + ((t - c.tokensAt) * messagesPerSecond) / 1000);
    c.tokensAt = t;
    if (c.tokens >= 1) {
      c.tokens -= 1;
      return true;
    }
    if (c.floodSince === null || t - c.lastRefusedAt > floodGapMs) {
      c.floodSince = t;
      this.send(
        c,
        serverMessage('error', {
          message: `Too many messages: at most ${messagesPerSecond} a second; the extra ones are dropped`,
        }),
      );
    }
    c.lastRefusedAt = t;
    if (t - c.floodSince >= floodCloseMs) {
      this.closeFlooding(c);
      return this.refuse(c);
    }
    // Until the bucket is full, not until it holds one message: each resume reads what waits
    // (up to a 64 KiB chunk) at once, so resuming per message would read the flood at full speed.
    // The pause ends earlier when the flood's time is up, to close the socket then.
    const refillMs = ((messageBurst - c.tokens) * 1000) / messagesPerSecond;
    const wait = Math.max(0, Math.min(refillMs, c.floodSince + floodCloseMs - t));
    c.socket.pause();
    c.resumeTimer = setTimeout(() => this.resume(c), wait);
    c.resumeTimer.unref();
    return this.refuse(c);
  }

  private refuse(c: Client): false {
    c.refused++;
    this.refusedTotal++;
    return false;
  }

  /** The end of a pause for the rate: the paused time counts as flooding. */
  private resume(c: Client): void {
    c.resumeTimer = null;
    if (!this.clients.has(c)) return;
    const t = this.clock();
    c.lastRefusedAt = t;
    if (c.floodSince !== null && t - c.floodSince >= this.limits.floodCloseMs) {
      return this.closeFlooding(c);
    }
    c.socket.resume();
  }

  /**
   * 1008, left paused: the close frame still goes out, and the client's answer is not waited
   * for (it may sit behind megabytes of its flood); the connection is cut after closeGraceMs.
   */
  private closeFlooding(c: Client): void {
    this.deps.log.warn(
      { component: 'realtime' },
      `Realtime socket closed for flooding (${c.refused} messages dropped)`,
    );
    c.socket.pause();
    const cut = setTimeout(() => c.socket.terminate(), this.limits.closeGraceMs);
    cut.unref();
    c.socket.on('close', () => clearTimeout(cut));
    this.end(
      c,
      CLOSE_POLICY_VIOLATION,
      `Too many messages: over ${this.limits.messagesPerSecond} a second`,
    );
  }

  /**
   * Coalesces request_update: at most one stats_update pending per socket (more requests meanwhile
   * are dropped, that one answers them) and at most one per updateMinIntervalMs.
   */
  private requestUpdate(c: Client): void {
    if (c.updatePending) return;
    c.updatePending = true;
    const run = () => {
      c.updateTimer = null;
      c.lastUpdateAt = this.clock();
      void this.sendStats(c, 'stats_update').finally(() => (c.updatePending = false));
    };
    const wait = c.lastUpdateAt + this.limits.updateMinIntervalMs - this.clock();
    if (wait <= 0) return run();
    c.updateTimer = setTimeout(run, wait);
    c.updateTimer.unref();
  }

  private readonly answer: ClientHandlers = {
    request_update: (client) => this.requestUpdate(client),
    // Browsers cannot send protocol pings; this lets the console measure the round trip.
    ping: (client) => this.send(client, serverMessage('pong', {})),
  };

  private async gatherStats(): Promise<LiveStats | null> {
    try {
      return await this.deps.getStats();
    } catch (e) {
      this.deps.log.error({ component: 'realtime', err: e }, 'Could not gather live stats');
      return null;
    }
  }

  private async sendStats(client: Client, type: 'initial_state' | 'stats_update'): Promise<void> {
    const stats = await this.gatherStats();
    if (!this.clients.has(client)) return;
    if (stats) this.send(client, serverMessage(type, { stats }));
    else this.send(client, serverMessage('error', { message: 'Could not gather live stats' }));
  }

  /** After snippets change: one stats_update to everyone, at most once per statsPushMs. */
  private scheduleStatsPush(): void {
    if (this.statsTimer || this.clients.size === 0) return;
    const wait = Math.max(0, this.lastStatsPush + this.limits.statsPushMs - Date.now());
    this.statsTimer = setTimeout(() => {
      this.statsTimer = null;
      this.lastStatsPush = Date.now();
      void this.gatherStats().then((stats) => {
        if (stats) this.broadcast(serverMessage('stats_update', { stats }));
      });
    }, wait);
    this.statsTimer.unref();
  }

  private startMetrics(): void {
    this.stopMetrics();
    this.metricsPeriodMs = Math.max(1000, this.deps.metricsRefreshMs());
    this.metricsTimer = setInterval(() => {
      this.broadcast(serverMessage('metrics.update', this.deps.metrics.realtime()));
    }, this.metricsPeriodMs);
    this.metricsTimer.unref();
  }

  private stopMetrics(): void {
    if (this.metricsTimer) clearInterval(this.metricsTimer);
    this.metricsTimer = null;
  }

  /** Serialises once for all clients; never waits on any of them. */
  private broadcast(msg: ServerMessage, isLog = false): void {
    if (this.clients.size === 0) return;
    const data = JSON.stringify(msg);
    for (const c of this.clients) if (!isLog || mayReadLogs(c.role)) this.deliver(c, data, isLog);
  }

  private send(client: Client, msg: ServerMessage): void {
    this.deliver(client, JSON.stringify(msg), false);
  }

  private deliver(c: Client, data: string, isLog: boolean): void {
    if (c.socket.readyState !== OPEN) return;
    if (isLog) {
      const second = Math.floor(Date.now() / 1000);
      if (second !== c.logSecond) {
        c.logSecond = second;
        c.logCount = 0;
      }
      if (c.logCount >= this.limits.logEntriesPerSecond) return this.drop(c);
      c.logCount++;
    }
    // Past the high-water mark nothing is queued until the socket is down to half of it.
    const buffered = c.socket.bufferedAmount;
    c.congested =
      buffered > (c.congested ? this.limits.maxBufferedBytes / 2 : this.limits.maxBufferedBytes);
    if (c.congested) return this.drop(c);
    if (c.dropped > 0) this.notifyDropped(c);
    this.write(c, data);
  }

  private drop(c: Client): void {
    c.dropped++;
    this.droppedTotal++;
  }

  /** Tells a client how many messages it missed, once it can take messages again. */
  private notifyDropped(c: Client): void {
    if (c.socket.readyState !== OPEN) return;
    if (c.socket.bufferedAmount > this.limits.maxBufferedBytes / 2) return;
    c.congested = false;
    const count = c.dropped;
    c.dropped = 0;
    this.write(c, JSON.stringify(serverMessage('dropped', { count })));
  }

  private write(c: Client, data: string): void {
    try {
      c.socket.send(data);
      this.sent++;
    } catch {
      // A socket that fails while closing is removed by its close event.
    }
  }

  private keepalive(): void {
    for (const c of this.clients) {
      if (!c.alive) {
        this.remove(c);
        c.socket.terminate();
        continue;
      }
      c.alive = false;
      try {
        c.socket.ping();
      } catch {
        // closing: its close event removes it
      }
    }
  }

  /** Catches what no event announces: expiry, and keys revoked by a password change. */
  private recheckKeys(): void {
    for (const c of this.clients) {
      try {
        const ctx = this.deps.auth.authenticate(c.key);
        c.expiresAt = Date.parse(ctx.key.expires_at);
        c.role = roleOf(ctx);
      } catch (e) {
        const reason = e instanceof AppError && e.status === 401 ? e.message : 'Invalid API key';
        this.end(
          c,
          WS_CLOSE_UNAUTHORIZED,
          reason === 'Invalid API key' ? 'API key revoked' : reason,
        );
      }
    }
  }

  private end(c: Client, code: number, reason: string): void {
    this.remove(c);
    c.socket.close(code, reason);
  }

  private remove(c: Client): boolean {
    if (!this.clients.delete(c)) return false;
    this.clearTimers(c);
    if (this.clients.size === 0) this.stopMetrics();
    return true;
  }

  private clearTimers(c: Client): void {
    if (c.updateTimer) clearTimeout(c.updateTimer);
    c.updateTimer = null;
    if (c.resumeTimer) clearTimeout(c.resumeTimer);
    c.resumeTimer = null;
  }
}

const isForwarded = (type: BusEventName): type is Forwarded => Object.hasOwn(FORWARD, type);

/** The message a forwarded bus event becomes. */
function forward<K extends Forwarded>(type: K, payload: unknown): ServerMessage {
  return FORWARD[type](payload as BusEvents[K]);
}

const firstQuery = (req: FastifyRequest, name: string): string | undefined => {
  const q = (req.query as Record<string, unknown> | undefined)?.[name];
  const first = Array.isArray(q) ? (q as unknown[])[0] : q;
  return typeof first === 'string' ? first.trim() : undefined;
};

/**
 * What a socket presents: `?ticket=` (the console's way), else the key as `?api_key=` (what
 * browsers can send), header or cookie. A ticket, even a bad one, is never topped up by the
 * cookie a browser sends along: a refused ticket closes the socket.
 */
function socketCredential(req: FastifyRequest): { key?: string; ticket?: string } {
  const ticket = firstQuery(req, 'ticket');
  if (ticket !== undefined) return { ticket };
  return { key: firstQuery(req, 'api_key') || presentedKey(req) };
}

/**
 * `GET /api/v1/ws`: the realtime channel. It authenticates on its own rather than through the
 * auth guard: a refused key must reach the console as close code 4401 on an opened socket, not
 * as an HTTP 401 it cannot read.
 *
 * Registered app-wide (fastify-plugin) and after the other routes: the websocket plugin's hooks
 * then see every upgrade request, so one aimed at another route is answered as plain HTTP and
 * its socket destroyed instead of lingering half-open (which would also hold up shutdown).
 */
export function realtimeChannel(deps: RealtimeDeps, path = '/api/v1/ws') {
  return fp(
    async (app: FastifyInstance) => {
      const hub = new RealtimeHub(deps);
      const allowedOrigins = originSet(deps.allowedOrigins ?? []);
      await app.register(fastifyWebsocket, {
        options: { maxPayload: 64 * 1024 },
        errorHandler: (err, socket) => {
          deps.log.debug({ component: 'realtime', err }, 'Realtime socket error');
          socket.terminate();
        },
        preClose: async () => {
          await hub.close();
          app.websocketServer.close();
        },
      });
      app.route({
        method: 'GET',
        url: path,
        config: { public: true },
        // Cross-site WebSocket hijacking: a page elsewhere could open the socket with the
        // console's cookie. Refused here, after the websocket plugin's own hooks, so the refused
        // upgrade's socket is closed after the 403.
        onRequest: async (req, reply) => {
          if (!originAllowed(req.headers, allowedOrigins)) {
            return reply.status(403).send({ detail: foreignOriginDetail(req.headers.origin) });
          }
        },
        schema: {
          tags: ['realtime'],
          summary: 'Realtime channel (WebSocket)',
          description: `Upgrade with a ticket from POST /api/v1/auth/ws-ticket as ?ticket=, or the API key as ?api_key=, X-API-Key or the login cookie. A refused key or ticket closes the socket with ${WS_CLOSE_UNAUTHORIZED} (${WS_CLOSE_FORBIDDEN}: not allowed).`,
        },
        handler: (_req, reply) =>
          reply
            .status(426)
            .header('upgrade', 'websocket')
            .send({ detail: 'This is a WebSocket endpoint: connect with Upgrade: websocket' }),
        wsHandler: (socket, req) => {
          const { key, ticket } = socketCredential(req);
          hub.connect(socket, key, ticket);
        },
      });
      hub.start();
    },
    { name: 'adam-realtime', fastify: '5.x' },
  );
}
