import { Unprocessable } from '../lib/errors.js';
import { compileGlob, globMatches, type Glob } from './glob.js';

/**
 * Which URLs a crawl may follow.
 *
 * Scope (against any of the start URLs):
 * - 'host': the same host, port included (http and https of one host are the same host, since
 *   their default ports are dropped);
 * - 'domain': that host or any of its subdomains, on the same port; a start host's leading
 *   `www.` is dropped first, so `www.example.com` covers `example.com` and `docs.example.com`
 *   (an IP address covers itself only);
 * - 'prefix': the same host, and a path equal to the start's path or under it at a '/'
 *   boundary: a start `/docs` covers `/docs`, `/docs/` and `/docs/a`, not `/docs-old`; a start
 *   `/docs/` covers `/docs/…` only. The start's query is ignored.
 *
 * Include/exclude patterns: `*` matches any run of characters (`/` included; `**` is the same);
 * every other character is literal (`?` too: it is the URL's query mark). A pattern matches the
 * whole text: a pattern starting with '/' is matched against the path and query, any other
 * against the whole normalised URL (`https://host/path?query`, scheme and host lower-case).
 * A URL passes when it matches no exclude pattern and, if there are include patterns, one of
 * them. At most PATTERN_MAX_COUNT patterns a list, each at most PATTERN_MAX_LENGTH characters,
 * without spaces or control characters.
 */

export type CrawlScope = 'host' | 'domain' | 'prefix';

export const PATTERN_MAX_COUNT = 100;
export const PATTERN_MAX_LENGTH = 500;

function parse(url: string): URL | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : null;
  } catch {
    return null;
  }
}

const stripDot = (host: string) => (host.endsWith('.') ? host.slice(0, -1) : host);

function isIpHost(host: string): boolean {
  if (host.startsWith('[')) return true;
  // The URL parser writes every IPv4 form as four decimal parts.
  const parts = host.split('.');
  return parts.length === 4 && parts.every((p) => p !== '' && p.length <= 3 && isDigits(p));
}

function isDigits(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function underPrefix(path: string, prefix: string): boolean {
  if (path === prefix) return true;
  if (!path.startsWith(prefix)) return false;
  return prefix.endsWith('/') || path.charCodeAt(prefix.length) === 47;
}

function inScopeOf(u: URL, start: URL, scope: CrawlScope): boolean {
  const host = stripDot(u.hostname);
  const startHost = stripDot(start.hostname);
  if (scope === 'domain') {
    if (u.port !== start.port) return false;
    if (isIpHost(startHost)) return host === startHost;
    const root = startHost.startsWith('www.') ? startHost.slice(4) : startHost;
    return host === root || host.endsWith(`.${root}`);
  }
  if (host !== startHost || u.port !== start.port) return false;
  return scope === 'host' || underPrefix(u.pathname, start.pathname);
}

/** Whether `url` is within `scope` of any of the start URLs (see the module comment). */
export function inScope(url: string, starts: string[], scope: CrawlScope): boolean {
  const u = parse(url);
  if (!u) return false;
  return starts.some((s) => {
    const start = parse(s);
    return start !== null && inScopeOf(u, start, scope);
  });
}

/**
 * The first problem of a pattern list, as a sentence for a 422, or null when every pattern is
 * usable. `which` names the list in the message ('include' or 'exclude').
 */
export function patternProblem(patterns: string[], which: 'include' | 'exclude'): string | null {
  if (patterns.length > PATTERN_MAX_COUNT) {
    return `At most ${PATTERN_MAX_COUNT} ${which} patterns are allowed, got ${patterns.length}`;
  }
  for (const [i, p] of patterns.entries()) {
    const what = `The ${which} pattern ${i + 1}`;
    if (p.length === 0) return `${what} is empty`;
    if (p.length > PATTERN_MAX_LENGTH) {
      return `${what} is ${p.length} characters long; at most ${PATTERN_MAX_LENGTH} are allowed`;
    }
    for (let j = 0; j < p.length; j++) {
      const c = p.charCodeAt(j);
      if (c <= 0x20 || c === 0x7f) {
        return `${what} contains a space or a control character at position ${j + 1}`;
      }
    }
  }
  return null;
}

/** A list of patterns that fails patternProblem: a 422 with that sentence. */
export class BadCrawlPattern extends Unprocessable {
  constructor(message: string) {
    super(message);
    this.name = 'BadCrawlPattern';
  }
}

interface CompiledPattern {
  glob: Glob;
  /** Matched against the path and query rather than the whole URL. */
  pathOnly: boolean;
}

const compile = (p: string): CompiledPattern => ({
  glob: compileGlob(p, true),
  pathOnly: p.startsWith('/'),
});

function anyMatches(patterns: CompiledPattern[], url: string, pathAndQuery: string): boolean {
  return patterns.some((p) => globMatches(p.glob, p.pathOnly ? pathAndQuery : url));
}

/**
 * A filter from include and exclude patterns (see the module comment): 'ok' when `url` passes,
 * 'pattern' when the patterns skip it. Throws BadCrawlPattern for an unusable list.
 */
export function compilePatterns(
  include: string[],
  exclude: string[],
): (url: string) => 'ok' | 'pattern' {
  const problem = patternProblem(include, 'include') ?? patternProblem(exclude, 'exclude');
  if (problem) throw new BadCrawlPattern(problem);
  const inc = include.map(compile);
  const exc = exclude.map(compile);
  return (url) => {
    const u = parse(url);
    const pathAndQuery = u ? `${u.pathname}${u.search}` : url;
    if (anyMatches(exc, url, pathAndQuery)) return 'pattern';
    if (inc.length > 0 && !anyMatches(inc, url, pathAndQuery)) return 'pattern';
    return 'ok';
  };
}
