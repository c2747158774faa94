import dns from 'node:dns';
import net from 'node:net';
import http from 'node:http';
import { Agent, request as undiciRequest } from 'undici';
import { withoutCredentials } from '../lib/url.js';
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
  /** Runs on the first URL and on every redirect target before any request (e.g. deny rules). */
  guard?: (url: URL) => void;
}

export interface FetchResult {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  headers: Record<string, string>;
  contentType: string;
  body: Buffer;
  /** Every redirect target followed, in order. */
  redirects: string[];
}

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 5;
const DEFAULT_USER_AGENT = 'ADAM/0.1 (knowledge-snippet fetcher)';
const DEFAULT_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.5';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Sites whose connections are kept alive at once; the least recently used is closed. */
const MAX_AGENTS = 32;

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

  constructor(opts: SafeFetcherOptions) {
    this.allow = parseAllowList(opts.allow);
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
    this.maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    this.userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
    this.lookup = opts.lookup ?? systemLookup;
  }

  async fetch(url: string, init: FetchInit = {}): Promise<FetchResult> {
    let current = parseTarget(url);
    const firstOrigin = current.origin;
    const redirects: string[] = [];
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    const timeoutError = () =>
      new FetchError(
        'timeout',
        `Timed out after ${formatDuration(this.timeoutMs)} fetching ${current.href}` +
          (redirects.length
            ? ` (reached through ${redirects.length} redirect(s) from ${url})`
            : ''),
        current.href,
      );

    try {
      for (;;) {
        init.guard?.(current);
        const from = redirects.length ? (redirects[redirects.length - 2] ?? url) : undefined;
        const addresses = await this.vet(current, controller.signal, from);
        if (timedOut) throw timeoutError();
        // Shared by the site's fetches in flight: a failed request's socket is dropped by undici,
        // the dispatcher stays for the others.
        const agent = this.agentFor(current, addresses);
        const headers: Record<string, string> = {
          ...(current.origin === firstOrigin ? init.headers : {}),
          accept: init.accept ?? DEFAULT_ACCEPT,
          'user-agent': this.userAgent,
        };
        // undici's request, not its fetch: the same socket pool for a third of fetch's CPU (no
        // WHATWG streams or Headers), and it never follows redirects itself.
        let res: UndiciResponse;
        try {
          res = await undiciRequest(current.href, {
            dispatcher: agent,
            method: 'GET',
            signal: controller.signal,
            headers,
          });
        } catch (err) {
          if (timedOut) throw timeoutError();
          throw networkError(err, current.href);
        }

        const status = res.statusCode;
        if (REDIRECT_STATUSES.has(status)) {
          await res.body.dump().catch(() => undefined);
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
          current = next;
          continue;
        }

        if (status < 200 || status > 299) {
          await res.body.dump().catch(() => undefined);
          const reason = http.STATUS_CODES[status];
          throw new FetchError(
            'http_status',
            `${current.href} answered HTTP ${status}${reason ? ` ${reason}` : ''}`,
            current.href,
            status,
          );
        }

        const body = await this.readBody(res, current.href, () => timedOut, timeoutError);
        const responseHeaders: Record<string, string> = {};
        for (const [key, value] of Object.entries(res.headers)) {
          if (value !== undefined)
            responseHeaders[key] = Array.isArray(value) ? value.join(', ') : value;
        }
        return {
          url: current.href,
          status,
          headers: responseHeaders,
          contentType: header(res.headers, 'content-type') ?? '',
          body,
          redirects,
        };
      }
    } catch (err) {
      if (err instanceof FetchError) throw err;
      if (timedOut) throw timeoutError();
      throw networkError(err, current.href);
    } finally {
      clearTimeout(timer);
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
  private async vet(url: URL, signal: AbortSignal, from?: string): Promise<ResolvedAddress[]> {
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
      addresses = await this.resolve(host, url.href, signal);
    }
    if (hostAllowed) return addresses;
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

  private async readBody(
    res: UndiciResponse,
    url: string,
    timedOut: () => boolean,
    timeoutError: () => FetchError,
  ): Promise<Buffer> {
    const declared = Number(header(res.headers, 'content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > this.maxBytes) {
      res.body.destroy();
      throw new FetchError(
        'too_large',
        `${url} is too large: it declares ${declared} bytes, over the ${formatBytes(this.maxBytes)} limit`,
        url,
      );
    }
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        total += chunk.byteLength;
        if (total > this.maxBytes) {
          res.body.destroy();
          throw new FetchError(
            'too_large',
            `${url} is too large: stopped reading past the ${formatBytes(this.maxBytes)} limit`,
            url,
          );
        }
        chunks.push(chunk);
      }
    } catch (err) {
      if (err instanceof FetchError) throw err;
      if (timedOut()) throw timeoutError();
      throw networkError(err, url);
    }
    return Buffer.concat(chunks);
  }
}

type UndiciResponse = Awaited<ReturnType<typeof undiciRequest>>;

function header(headers: http.IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
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
  return new Agent({
    connect: { lookup, timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
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

function networkError(err: unknown, url: string): FetchError {
  // undici's fetch rejects with TypeError('fetch failed') and the reason in `cause`.
  const cause = (err as { cause?: unknown }).cause ?? err;
  const code = (cause as { code?: string }).code;
  const message = (cause as { message?: string }).message ?? String(cause);
  const why = code ? `${NETWORK_TEXT[code] ?? message} (${code})` : message;
  return new FetchError('network', `Could not fetch ${url}: ${why}`, url);
}
