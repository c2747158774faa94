import dns from 'node:dns';
import net from 'node:net';
import http from 'node:http';
import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import type { Agent, Dispatcher } from 'undici';
import { withoutCredentials } from '../lib/url.js';
import { whenAborted } from '../lib/when-aborted.js';
import {
  addressRange,
  allowedPortsFor,
  bareHost,
  describeBlockedAddress,
  isAllowed,
  parseAllowList,
  type AllowEntry,
} from './address-policy.js';
import { FetchError, formatBytes, formatDuration } from './fetch-error.js';

// undici takes ~0.2 s of CPU to load (more on a busy machine): loaded at the first fetch, not
// while the server starts.
let undiciModule: typeof Undici | undefined;
const undici = (): typeof Undici =>
  (undiciModule ??= createRequire(import.meta.url)('undici') as typeof Undici);

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** DNS as the fetcher uses it: every address of a host name. Tests pass their own. */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

interface SafeFetcherOptions {
  /** 'host' or 'host:port' entries (ADAM_FETCH_ALLOW) reachable despite the address block. */
  allow: readonly string[];
  /** Covers the whole fetch: DNS, every redirect hop and the body. */
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  userAgent?: string;
  lookup?: HostLookup;
}

interface FetchInit {
  accept?: string;
  /** Sent to the first URL's origin only: a redirect elsewhere does not carry them. */
  headers?: Record<string, string>;
  /**
   * Runs on the first URL and on every redirect target before any request (e.g. deny rules);
   * the hop waits for it (a crawler spaces its requests to a host there).
   */
  guard?: (url: URL) => void | Promise<void>;
  /**
   * Called as each hop's request goes out: when undici writes it on its connection, not when
   * it is queued (a crawler counts the delay between two requests to a host from there).
   */
  onSend?: (url: URL) => void;
  /** Sent instead of the fetcher's own on every hop (the crawler's, from its settings). */
  userAgent?: string;
  /**
   * Aborting it stops the fetch at once, whatever hop or body byte it waits on: the socket is
   * destroyed and the fetch rejects with the signal's reason (not a FetchError).
   */
  signal?: AbortSignal;
}

export interface StreamInit extends FetchInit {
  /**
   * Asks for the body from this byte on (`Range: bytes=N-`), on every hop: a model hub's
   * redirect to its CDN must carry it. The caller checks for 206 and Content-Range.
   */
  rangeFrom?: number;
  /** The body's cap (default: the fetcher's maxBytes); a larger body fails with too_large. */
  maxBytes?: number;
  /**
   * No byte for this long (waiting for each hop's headers, then between body chunks) is a
   * timeout; default the fetcher's timeoutMs. The body has no overall deadline: a model file
   * of hundreds of MB may take minutes.
   */
  idleTimeoutMs?: number;
}

export interface FetchResult {
  /** The final URL, after redirects. */
  url: string;
  /**
   * 2xx, or 304 (with an empty body) when the request was conditional (If-None-Match or
   * If-Modified-Since in `headers`): "not modified" is that request's normal answer, not an error.
   */
  status: number;
  headers: Record<string, string>;
  contentType: string;
  body: Buffer;
  /** Every redirect target followed, in order. */
  redirects: string[];
}

export interface StreamResult extends Omit<FetchResult, 'body'> {
  /** The declared Content-Length, if any. */
  contentLength: number | null;
  /**
   * The body, read once. Over the cap, idle too long or aborted, it throws a FetchError (or
   * the signal's reason); leaving a `for await` early releases the connection.
   */
  body: AsyncIterable<Buffer>;
  /** Drops a body that will not be read. */
  cancel(): void;
}

/** Where a fetch is on its way through redirects; errors and messages read it. */
interface HopState {
  readonly start: string;
  current: URL;
  redirects: string[];
}

interface OpenOptions {
  /** Aborted when the fetch stops (asked for when needed: a DNS lookup). */
  signal: () => AbortSignal;
  /** The error to throw instead of a network error once `signal` has fired (why it fired). */
  abortError: () => Error | undefined;
  /** Sent on every hop, unlike init.headers. */
  everyHop?: Record<string, string>;
  /** Called before each hop's request. */
  onHop?: () => void;
  /** A 304 is answered as a response, not thrown (a conditional request's normal answer). */
  notModified?: boolean;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 5;
const DEFAULT_USER_AGENT = 'ADAM/0.1 (knowledge-snippet fetcher)';
const DEFAULT_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.5';
const DEFAULT_STREAM_ACCEPT = '*/*';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Sites whose connections are kept alive at once; the least recently used is closed. */
const MAX_AGENTS = 32;
/** Literal hosts whose vetting is remembered (forgotten all at once past this). */
const MAX_LITERALS_VETTED = 256;
/** Bytes of an unwanted body (a redirect's, an error page's) read before its connection is dropped, as undici's dump. */
const DROP_LIMIT = 128 * 1024;

const systemLookup: HostLookup = async (hostname) =>
  dns.promises.lookup(hostname, { all: true, verbatim: true });

/**
 * Fetches public http(s) pages and refuses everything an attacker could aim it at: other
 * schemes, private, loopback, link-local and other special addresses (literal, resolved or
 * reached by redirect). It connects to the address it checked, so DNS cannot rebind in between.
 */
export class SafeFetcher {
  private readonly allow: AllowEntry[];
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly maxRedirects: number;
  private readonly userAgent: string;
  private readonly lookup: HostLookup;
  /**
   * Pinned dispatchers by origin and vetted addresses, most recently used last: a second page
   * of a site reuses the kept-alive connection (and TLS session) instead of opening one, and a
   * host that now resolves elsewhere gets a dispatcher of its own.
   */
  private readonly agents = new Map<string, Agent>();
  /** Literal hosts ('127.0.0.1:8080', '[::1]') already vetted and allowed, with their address. */
  private readonly literalsVetted = new Map<string, ResolvedAddress[]>();
  /** fetch()'s deadlines: one timer for all (see Deadlines). */
  private readonly deadlines: Deadlines;

  constructor(opts: SafeFetcherOptions) {
    this.allow = parseAllowList(opts.allow);
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
    this.maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    this.userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
    this.lookup = opts.lookup ?? systemLookup;
    this.deadlines = new Deadlines(this.timeoutMs);
  }

  async fetch(url: string, init: FetchInit = {}): Promise<FetchResult> {
    const state: HopState = { start: url, current: parseTarget(url), redirects: [] };
    const { signal } = init;
    if (signal?.aborted) throw abortReason(signal);
    const stopper = new Stopper();
    const endDeadline = this.deadlines.add(() => stopper.stop('timeout'));
    const endWatch = signal ? whenAborted(signal, () => stopper.stop('cancelled')) : null;
    const abortError = (): Error | undefined =>
      stopper.why === 'cancelled'
        ? abortReason(signal)
        : stopper.why === 'timeout'
          ? this.timeoutError(state)
          : undefined;

    try {
      const res = await this.open(
        state,
        init,
        { signal: () => stopper.signal(), abortError, notModified: isConditional(init.headers) },
        (hop) => sendBuffered(hop, stopper, this.maxBytes),
      );
      return {
        url: state.current.href,
        status: res.statusCode,
        headers: flatHeaders(res.headers),
        contentType: header(res.headers, 'content-type') ?? '',
        body: res.body,
        redirects: state.redirects,
      };
    } catch (err) {
      if (err instanceof FetchError) throw err;
      throw abortError() ?? networkError(err, state.current.href);
    } finally {
      endDeadline();
      endWatch?.();
    }
  }

  /**
   * Like fetch, with the same vetting of every hop, redirect rules and errors, but hands the
   * body over as a stream instead of buffering it: for files too large to hold in memory (model
   * weights). The fetcher's timeoutMs bounds the time to the final response's headers.
   */
  async fetchStream(url: string, init: StreamInit = {}): Promise<StreamResult> {
    const state: HopState = { start: url, current: parseTarget(url), redirects: [] };
    const maxBytes = init.maxBytes ?? this.maxBytes;
    const idleMs = init.idleTimeoutMs ?? this.timeoutMs;
    const { signal } = init;
    const controller = new AbortController();
    let why: 'timeout' | 'idle' | 'cancelled' | undefined;
    const stop = (reason: typeof why) => {
      why ??= reason;
      controller.abort();
    };
    const abortError = (): Error | undefined => {
      if (why === 'cancelled') return abortReason(signal);
      if (why === 'idle')
        return new FetchError(
          'timeout',
          `Timed out: no data for ${formatDuration(idleMs)} from ${state.current.href}`,
          state.current.href,
        );
      if (why === 'timeout') return this.timeoutError(state);
      return undefined;
    };
    let idleTimer: NodeJS.Timeout | undefined;
    const touch = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => stop('idle'), idleMs);
    };
    const headTimer = setTimeout(() => stop('timeout'), this.timeoutMs);
    const onAbort = () => stop('cancelled');
    const release = () => {
      clearTimeout(headTimer);
      clearTimeout(idleTimer);
      signal?.removeEventListener('abort', onAbort);
    };
    if (signal?.aborted) throw abortReason(signal);
    signal?.addEventListener('abort', onAbort, { once: true });

    let res: UndiciResponse;
    try {
      const streamed = await this.open(
        state,
        { ...init, accept: init.accept ?? DEFAULT_STREAM_ACCEPT },
        {
          signal: () => controller.signal,
          abortError,
          everyHop: init.rangeFrom ? { range: `bytes=${init.rangeFrom}-` } : undefined,
          onHop: touch,
        },
        (hop) => sendStreamed(hop, controller.signal),
      );
      res = streamed.res;
      // The idle clock restarts when the body is read: the caller may prepare first.
      clearTimeout(headTimer);
      clearTimeout(idleTimer);
      checkDeclaredLength(res, state.current.href, maxBytes);
    } catch (err) {
      release();
      if (err instanceof FetchError) throw err;
      throw abortError() ?? networkError(err, state.current.href);
    }

    const href = state.current.href;
    const raw = res.body;
    async function* read(): AsyncGenerator<Buffer> {
      let total = 0;
      try {
        touch();
        for await (const chunk of raw as AsyncIterable<Buffer>) {
          total += chunk.byteLength;
          if (total > maxBytes) throw tooLarge(href, maxBytes);
          // Time spent by the consumer (writing to disk) is not the server's idleness.
          clearTimeout(idleTimer);
          yield chunk;
          touch();
        }
      } catch (err) {
        if (err instanceof FetchError) throw err;
        throw abortError() ?? bodyError(err, href);
      } finally {
        release();
        if (!raw.readableEnded) discard(raw);
      }
    }
    const declared = Number(header(res.headers, 'content-length') ?? NaN);
    return {
      url: href,
      status: res.statusCode,
      headers: flatHeaders(res.headers),
      contentType: header(res.headers, 'content-type') ?? '',
      redirects: state.redirects,
      contentLength: Number.isFinite(declared) ? declared : null,
      body: read(),
      cancel: () => {
        release();
        discard(raw);
      },
    };
  }

  private timeoutError(state: HopState): FetchError {
    return new FetchError(
      'timeout',
      `Timed out after ${formatDuration(this.timeoutMs)} fetching ${state.current.href}` +
        (state.redirects.length
          ? ` (reached through ${state.redirects.length} redirect(s) from ${state.start})`
          : ''),
      state.current.href,
    );
  }

  /**
   * Follows redirects from state.current, vetting every hop before connecting, up to a 2xx
   * response; any other status is an http_status error.
   */
  private async open<A extends Answer>(
    state: HopState,
    init: FetchInit,
    opts: OpenOptions,
    send: (hop: Hop) => Promise<A>,
  ): Promise<A> {
    const url = state.start;
    const firstOrigin = state.current.origin;
    const { redirects } = state;
    for (;;) {
      const current = state.current;
      await init.guard?.(current);
      const from = redirects.length ? (redirects[redirects.length - 2] ?? url) : undefined;
      const addresses = await this.vet(current, opts.signal, from);
      const aborted = opts.abortError();
      if (aborted) throw aborted;
      // Shared by the site's fetches in flight: a failed request's socket is dropped by undici,
      // the dispatcher stays for the others.
      const agent = this.agentFor(current, addresses);
      const headers: Record<string, string> = {
        ...(current.origin === firstOrigin ? init.headers : {}),
        ...opts.everyHop,
        accept: init.accept ?? DEFAULT_ACCEPT,
        'user-agent': init.userAgent ?? this.userAgent,
      };
      opts.onHop?.();
      let res: A;
      try {
        const onSend = init.onSend && (() => init.onSend!(current));
        res = await send({ url: current, agent, headers, ...(onSend && { onSend }) });
      } catch (err) {
        if (err instanceof FetchError) throw err;
        throw opts.abortError() ?? networkError(err, current.href);
      }

      const status = res.statusCode;
      if (REDIRECT_STATUSES.has(status)) {
        await res.drop().catch(() => undefined);
        const location = header(res.headers, 'location');
        if (!location) {
          throw new FetchError(
            'http_status',
            `${current.href} answered HTTP ${status} (a redirect) without a Location header`,
            current.href,
            status,
          );
        }
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          throw new FetchError(
            'bad_response',
            `${current.href} redirected to '${location}', which is not a valid URL`,
            current.href,
          );
        }
        if (redirects.length >= this.maxRedirects) {
          throw new FetchError(
            'too_many_redirects',
            `Gave up on ${url}: more than ${this.maxRedirects} redirects (the next one went to ${next.href})`,
            current.href,
          );
        }
        if (next.protocol !== 'http:' && next.protocol !== 'https:') {
          throw new FetchError(
            'bad_scheme',
            `Refused to follow the redirect from ${current.href} to ${next.href}: only http and https URLs can be fetched`,
            next.href,
          );
        }
        redirects.push(next.href);
        state.current = next;
        continue;
      }

      if (status === 304 && opts.notModified) return res;
      if (status < 200 || status > 299) {
        await res.drop().catch(() => undefined);
        const reason = http.STATUS_CODES[status];
        throw new FetchError(
          'http_status',
          `${current.href} answered HTTP ${status}${reason ? ` ${reason}` : ''}`,
          current.href,
          status,
          header(res.headers, 'retry-after'),
        );
      }
      return res;
    }
  }

  private agentFor(url: URL, addresses: ResolvedAddress[]): Agent {
    const key = `${url.origin} ${addresses.map((a) => a.address).join(',')}`;
    let agent = this.agents.get(key);
    if (agent) this.agents.delete(key);
    else agent = pinnedAgent(addresses, this.timeoutMs);
    this.agents.set(key, agent);
    for (const [k, old] of this.agents) {
      if (this.agents.size <= MAX_AGENTS) break;
      this.agents.delete(k);
      old.close().catch(() => undefined);
    }
    return agent;
  }

  /** Closes the kept connections. */
  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((a) => a.destroy().catch(() => undefined)));
  }

  /** The addresses the fetcher may connect to for this URL, or a refusal. */
  private async vet(
    url: URL,
    signal: () => AbortSignal,
    from?: string,
  ): Promise<ResolvedAddress[]> {
    // A literal address's verdict depends on nothing but itself and the allow-list.
    const vetted = this.literalsVetted.get(url.host);
    if (vetted) return vetted;
    const host = bareHost(url.hostname);
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    const hostAllowed = isAllowed(this.allow, host, port);
    let addresses: ResolvedAddress[];
    const literal = net.isIP(host) !== 0;
    if (literal) {
      // As written (unbracketed), so '::ffff:7f00:1' is reported as such, then judged as 127.0.0.1.
      const address = url.hostname.replace(/^\[(.*)\]$/, '$1');
      addresses = [{ address, family: net.isIP(address) }];
    } else {
      addresses = await this.resolve(host, url.href, signal());
    }
    if (hostAllowed) return literal ? this.rememberLiteral(url, addresses) : addresses;
    for (const { address } of addresses) {
      const range = addressRange(address);
      if (range === 'unicast' || isAllowed(this.allow, host, port, address)) continue;
      const ports = allowedPortsFor(this.allow, host, address);
      const hint = ports.length
        ? `the fetch allow-list opens it on port ${ports.join(', ')} only, not ${port}`
        : 'add it to ADAM_FETCH_ALLOW to reach it on purpose';
      const what = from
        ? `Refused to follow the redirect from ${from} to ${url.href}`
        : `Refused to fetch ${url.href}`;
      throw new FetchError(
        'blocked_address',
        `${what}: ${describeBlockedAddress(address, range, literal ? undefined : host)} (${hint})`,
        url.href,
      );
    }
    return literal ? this.rememberLiteral(url, addresses) : addresses;
  }

  /** A literal address allowed: not checked again (a name is resolved at every fetch). */
  private rememberLiteral(url: URL, addresses: ResolvedAddress[]): ResolvedAddress[] {
    if (this.literalsVetted.size >= MAX_LITERALS_VETTED) this.literalsVetted.clear();
    this.literalsVetted.set(url.host, addresses);
    return addresses;
  }

  private async resolve(host: string, url: string, signal: AbortSignal) {
    let addresses: ResolvedAddress[];
    try {
      addresses = await raceAbort(this.lookup(host), signal);
    } catch (err) {
      if (signal.aborted) throw err;
      const code = (err as { code?: string }).code;
      throw new FetchError(
        'dns',
        `Could not resolve the host '${host}' of ${url}` +
          (code === 'ENOTFOUND' ? ': no such host' : `: ${code ?? (err as Error).message}`),
        url,
      );
    }
    if (addresses.length === 0) {
      throw new FetchError(
        'dns',
        `Could not resolve the host '${host}' of ${url}: no addresses`,
        url,
      );
    }
    return addresses;
  }
}

type UndiciResponse = Awaited<ReturnType<typeof Undici.request>>;

/** One hop's request, vetted: sent on the agent pinned to its addresses. */
interface Hop {
  url: URL;
  agent: Agent;
  headers: Record<string, string>;
  /** Called as the request is written on its connection. */
  onSend?: () => void;
}

/** One hop's answer as open() reads it. */
interface Answer {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  /** Drops the body unread (a redirect's, an error's). */
  drop(): Promise<unknown>;
}

/** fetchStream's hop: undici's request, its body a stream. */
async function sendStreamed(
  hop: Hop,
  signal: AbortSignal,
): Promise<Answer & { res: UndiciResponse }> {
  // undici's request, not its fetch: the same socket pool for a third of fetch's CPU (no
  // WHATWG streams or Headers), and it never follows redirects itself.
  const res = await undici().request(hop.url.href, {
    dispatcher: hop.onSend ? withSendHook(hop.agent) : hop.agent,
    method: 'GET',
    signal,
    headers: hop.headers,
    // Read by the agent's send hook (undici hands a request's options to its dispatcher).
    ...(hop.onSend && { [SEND_HOOK]: hop.onSend }),
  } as Parameters<typeof Undici.request>[1]);
  return { statusCode: res.statusCode, headers: res.headers, drop: () => res.body.dump(), res };
}

/**
 * fetch()'s hop: dispatched on the agent with a handler of our own that keeps the body in
 * memory (up to `maxBytes`; a longer or a declared longer one fails with too_large) and drops
 * an unwanted one (a redirect's, an error's: past DROP_LIMIT its connection is closed). No
 * request handler, body stream or send-hook dispatcher in between: an unchanged page's
 * conditional request is mostly this path, and those layers were most of its CPU.
 */
function sendBuffered(
  hop: Hop,
  stopper: Stopper,
  maxBytes: number,
): Promise<Answer & { body: Buffer }> {
  const href = hop.url.href;
  return new Promise((resolve, reject) => {
    let abort: ((err: Error) => void) | null = null;
    let settled = false;
    let statusCode = 0;
    let headers: http.IncomingHttpHeaders = {};
    let kept = false;
    let total = 0;
    const chunks: Buffer[] = [];
    const settle = (err: Error | null) => {
      if (settled) return;
      settled = true;
      stopper.onStop = null;
      if (err) reject(err);
      else {
        const body = Buffer.concat(chunks);
        resolve({ statusCode, headers, body, drop: () => Promise.resolve() });
      }
    };
    // A stop (timeout, the caller's signal) rejects at once; the request, once on its
    // connection, is aborted (its socket destroyed), or as soon as it gets there.
    stopper.onStop = () => {
      settle(new Error('stopped'));
      abort?.(new Error('stopped'));
    };
    const stopWith = (err: Error) => {
      settle(err);
      abort?.(err);
    };
    const handler: Dispatcher.DispatchHandler = {
      onConnect(a: (err?: Error) => void) {
        abort = a;
        if (settled) return a(new Error('stopped'));
        if (hop.onSend) afterWrite(hop.onSend);
      },
      onHeaders(status: number, raw: Buffer[]) {
        statusCode = status;
        headers = undici().util.parseHeaders(raw) as http.IncomingHttpHeaders;
        kept = (status >= 200 && status <= 299) || status === 304;
        const declared = Number(header(headers, 'content-length') ?? NaN);
        if (kept && Number.isFinite(declared) && declared > maxBytes) {
          stopWith(
            new FetchError(
              'too_large',
              `${href} is too large: it declares ${declared} bytes, over the ${formatBytes(maxBytes)} limit`,
              href,
            ),
          );
        }
        return true;
      },
      onData(chunk: Buffer) {
        if (settled) return true;
        total += chunk.byteLength;
        if (!kept) {
          if (total > DROP_LIMIT) {
            settle(null);
            abort?.(new Error('dropped'));
          }
        } else if (total > maxBytes) stopWith(tooLarge(href, maxBytes));
        else chunks.push(chunk);
        return true;
      },
      onComplete() {
        settle(null);
      },
      onError(err: Error) {
        settle(err);
      },
    } as Dispatcher.DispatchHandler;
    const { pathname, search } = hop.url;
    hop.agent.dispatch(
      { origin: hop.url.origin, path: pathname + search, method: 'GET', headers: hop.headers },
      handler,
    );
  });
}

/** Why one fetch() stopped, and who to tell: the hop in flight, a DNS lookup. */
class Stopper {
  why: 'timeout' | 'cancelled' | undefined;
  /** The hop in flight's own stop. */
  onStop: (() => void) | null = null;
  private controller: AbortController | null = null;

  stop(why: 'timeout' | 'cancelled'): void {
    if (this.why) return;
    this.why = why;
    this.controller?.abort();
    this.onStop?.();
  }

  /** A signal for what needs one (a DNS lookup); made only then. */
  signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.why) this.controller.abort();
    }
    return this.controller.signal;
  }
}

/**
 * The deadlines of a fetcher's fetches, all `ms` long: kept in start order (hence deadline
 * order), with one timer at the oldest's, moved on when it fires. A timer set and cleared per
 * fetch was a measurable part of an unchanged re-sync's CPU. Unref'd: a fetch in flight holds
 * its own socket or lookup.
 */
export class Deadlines {
  private readonly live = new Set<{ at: number; expire: () => void }>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly ms: number) {}

  /** Calls `expire` once the deadline passes; answers the function that drops it. */
  add(expire: () => void): () => void {
    const entry = { at: performance.now() + this.ms, expire };
    this.live.add(entry);
    if (!this.timer) this.arm(this.ms);
    return () => this.live.delete(entry);
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.fire(), Math.max(0, Math.ceil(ms)));
    this.timer.unref();
  }

  private fire(): void {
    this.timer = null;
    const now = performance.now();
    for (const entry of this.live) {
      if (entry.at > now) return this.arm(entry.at - now);
      this.live.delete(entry);
      entry.expire();
    }
  }
}

/** Whether the request carries a validator, so that a 304 is its normal answer. */
function isConditional(headers: Record<string, string> | undefined): boolean {
  for (const name in headers) {
    const lower = name.toLowerCase();
    if (lower === 'if-none-match' || lower === 'if-modified-since') return true;
  }
  return false;
}

function header(headers: http.IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) flat[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** Refuses up front a body whose Content-Length is over the cap. */
function checkDeclaredLength(res: UndiciResponse, url: string, maxBytes: number): void {
  const declared = Number(header(res.headers, 'content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(res.body);
    throw new FetchError(
      'too_large',
      `${url} is too large: it declares ${declared} bytes, over the ${formatBytes(maxBytes)} limit`,
      url,
    );
  }
}

/** Destroys a body nobody reads; undici then emits an abort error that no one is waiting for. */
function discard(body: UndiciResponse['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

function tooLarge(url: string, maxBytes: number): FetchError {
  return new FetchError(
    'too_large',
    `${url} is too large: stopped reading past the ${formatBytes(maxBytes)} limit`,
    url,
  );
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new DOMException('The fetch was aborted', 'AbortError');
}

/** Parses and checks the scheme; the WHATWG parser turns 2130706433 or 0x7f.1 into 127.0.0.1. */
function parseTarget(input: string): URL {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new FetchError(
      'invalid_url',
      `Invalid URL '${withoutCredentials(input)}': it must be an absolute http(s) URL`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError(
      'bad_scheme',
      `Refused to fetch ${url.href}: only http and https URLs can be fetched, not ${url.protocol}`,
      url.href,
    );
  }
  if (url.username || url.password) {
    const shown = withoutCredentials(url.href);
    throw new FetchError(
      'invalid_url',
      `Invalid URL '${shown}': credentials in URLs are not supported`,
      shown,
    );
  }
  return url;
}

/**
 * A dispatcher whose every connection goes to the vetted addresses: the socket asks this
 * lookup instead of DNS, while the URL (hence Host header and TLS server name) stays as is.
 */
function pinnedAgent(addresses: ResolvedAddress[], timeoutMs: number): Agent {
  const lookup: net.LookupFunction = (_hostname, options, callback) => {
    const first = addresses[0] as ResolvedAddress;
    if (options.all)
      callback(
        null,
        addresses.map((a) => ({ ...a })),
      );
    else callback(null, first.address, first.family);
  };
  return new (undici().Agent)({
    connect: { lookup, timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
}

/**
 * Runs `onSend` once undici has written the request: it calls the handler's start just before it
 * builds and writes the headers, in the same turn. A crawler counts a host's delay from this
 * moment, so it must not come before the write (a GC pause there made two writes 19.2 ms apart at
 * a 20 ms delay).
 */
function afterWrite(onSend: () => void): void {
  process.nextTick(onSend);
}

/** The request option withSendHook reads: a hop's `onSend`. */
const SEND_HOOK = 'adamOnSend';
/** Each agent's send-hook dispatcher, composed once: composing one per request was ~0.06 ms. */
const sendHooks = new WeakMap<Agent, Dispatcher>();

/**
 * The agent, calling a request's SEND_HOOK option as the request is written on its connection
 * (onRequestStart); a request without one goes through as it is.
 */
function withSendHook(agent: Agent): Dispatcher {
  let hooked = sendHooks.get(agent);
  if (hooked) return hooked;
  hooked = agent.compose((dispatch) => (opts, handler) => {
    const onSend = (opts as { [SEND_HOOK]?: () => void })[SEND_HOOK];
    if (!onSend) return dispatch(opts, handler);
    return dispatch(opts, {
      onRequestStart: (controller, context) => {
        afterWrite(onSend);
        handler.onRequestStart?.(controller, context);
      },
      onRequestUpgrade: (...a) => handler.onRequestUpgrade?.(...a),
      onResponseStart: (...a) => handler.onResponseStart?.(...a),
      onResponseData: (...a) => handler.onResponseData?.(...a),
      onResponseEnd: (...a) => handler.onResponseEnd?.(...a),
      onResponseError: (...a) => handler.onResponseError?.(...a),
    });
  });
  sendHooks.set(agent, hooked);
  return hooked;
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

const NETWORK_TEXT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'the connection closed unexpectedly',
  UND_ERR_HEADERS_TIMEOUT: 'no response headers in time',
  UND_ERR_BODY_TIMEOUT: 'the body stopped arriving',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate does not match the host',
};

/** A streamed body that failed: undici's own idle timer (the agent's bodyTimeout) is a timeout. */
function bodyError(err: unknown, url: string): FetchError {
  const code = (err as { code?: string }).code;
  if (code === 'UND_ERR_BODY_TIMEOUT')
    return new FetchError('timeout', `Timed out: the body of ${url} stopped arriving`, url);
  return networkError(err, url);
}

function networkError(err: unknown, url: string): FetchError {
  // undici's fetch rejects with TypeError('fetch failed') and the reason in `cause`.
  const cause = (err as { cause?: unknown }).cause ?? err;
  const code = (cause as { code?: string }).code;
  const message = (cause as { message?: string }).message ?? String(cause);
  const why = code ? `${NETWORK_TEXT[code] ?? message} (${code})` : message;
  return new FetchError('network', `Could not fetch ${url}: ${why}`, url);
}
