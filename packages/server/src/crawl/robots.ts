import { globFromParts, globLength, globMatches, type Glob } from './glob.js';
import { HEX, hexValue } from './percent.js';

/**
 * robots.txt as RFC 9309 reads it, from hostile text, without regular expressions.
 *
 * - Parsed on an engine thread under the task deadline (Engine.parseRobots): only the lookup of
 *   compiled rules runs on the event loop.
 * - Only the first ROBOTS_MAX_BYTES (500 KiB, the RFC's minimum) are read; a line cut there is
 *   dropped. At most ROBOTS_MAX_LINES lines and ROBOTS_MAX_RULES rules of the chosen groups count.
 * - Groups: one or more `User-agent` lines then rules; a `User-agent` line after a rule starts a
 *   new group. Our product token is the user agent's text before its first '/' (its leading
 *   letters, '-' and '_'), compared case-insensitively with each line's leading token. Every
 *   group naming it is merged; only when none does, every `*` group is merged instead.
 * - Allow/Disallow: the rule with the longest pattern (in characters, after the percent-encoding
 *   normalisation below, runs of `*` counted once) wins; Allow wins a tie. No matching rule: allowed. An empty value is no
 *   rule. `*` is any run of characters, a final `$` anchors the end, anything else is literal.
 *   A pattern not starting with '/' or '*' gets a leading '/'. `/robots.txt` is always allowed.
 * - Percent-encoding: paths and patterns compare after one pass that decodes encoded printable
 *   ASCII (except '%'), upper-cases the remaining escapes and UTF-8-encodes anything else, so
 *   `/%62az` and `/baz`, `/ツ` and `/%E3%83%84` are the same.
 * - A pattern longer than ROBOTS_MAX_PATTERN is cut: a Disallow to its first characters (it
 *   then covers more, never less), an Allow dropped (it can only free less).
 * - Only the first ROBOTS_MAX_WILDCARD_RULES rules with a `*` keep it (each may scan the whole
 *   path at every lookup): a later Disallow keeps its part before the first `*` (it covers more),
 *   a later Allow is dropped. A lookup thus costs at most 500 scans of the path plus prefix
 *   comparisons bounded by the file's size.
 * - Crawl-delay (not in the RFC): the first valid value of the chosen groups, clamped to 0..60 s.
 * - Sitemap lines anywhere in the file, absolute http(s) URLs only, up to ROBOTS_MAX_SITEMAPS.
 */

/**
 * One rule, compiled: plain data, so that an engine thread can parse the file and send the rules
 * back (see `robotsFromCompiled`).
 */
export interface RobotsRule {
  glob: Glob;
  /** Specificity: the normalised pattern's length. */
  length: number;
  allow: boolean;
}

/** A robots.txt read for one user agent, as plain data: its rules sorted longest first. */
export interface CompiledRobots {
  rules: RobotsRule[];
  crawlDelayS: number | null;
  sitemaps: string[];
}

export interface RobotsRules {
  /** Whether a path (with its query), as sent in the request line, may be fetched. */
  allowed(pathAndQuery: string): boolean;
  /** Seconds between requests the site asks of us, or null. */
  crawlDelayS: number | null;
  /** Sitemap URLs the file lists. */
  sitemaps: string[];
}

export const ROBOTS_MAX_BYTES = 500 * 1024;
const ROBOTS_MAX_LINES = 50_000;
export const ROBOTS_MAX_RULES = 10_000;
const ROBOTS_MAX_PATTERN = 2_048;
/**
 * A rule with a `*` may scan the whole path; one without costs a prefix comparison. The first
 * this many wildcard rules keep their wildcards, so one lookup scans a path at most this often.
 */
export const ROBOTS_MAX_WILDCARD_RULES = 500;
const ROBOTS_MAX_SITEMAPS = 1_000;
export const ROBOTS_MAX_CRAWL_DELAY_S = 60;

interface Group {
  agents: string[];
  rules: { allow: boolean; pattern: string }[];
  crawlDelayS: number | null;
}

const ALWAYS_ALLOWED = '/robots.txt';

/** The product token of a user agent: `ADAM/1.2 (+https://…)` → `adam`. */
export function productToken(userAgent: string): string {
  const head = userAgent.split('/')[0]!.trim();
  return leadingToken(head);
}

/** The leading run of letters, '-' and '_' (lowercased): what a `User-agent` line names. */
function leadingToken(value: string): string {
  let end = 0;
  while (end < value.length) {
    const c = value.charCodeAt(end);
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (!letter && c !== 45 && c !== 95) break;
    end++;
  }
  return value.slice(0, end).toLowerCase();
}

function encodeChar(ch: string): string {
  try {
    return encodeURIComponent(ch);
  } catch {
    // A lone surrogate: what a browser would send for it (U+FFFD).
    return '%EF%BF%BD';
  }
}

/**
 * One pass over a path or a pattern's literal part: encoded printable ASCII but '%' decoded,
 * other escapes upper-cased, a stray '%' encoded, spaces, controls and non-ASCII UTF-8-encoded.
 */
export function normalisePercent(s: string): string {
  let plain = true;
  for (let i = 0; i < s.length && plain; i++) {
    const c = s.charCodeAt(i);
    plain = c > 0x20 && c < 0x7f && c !== 0x25;
  }
  if (plain) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      const hi = i + 2 < s.length ? hexValue(s.charCodeAt(i + 1)) : -1;
      const lo = hi >= 0 ? hexValue(s.charCodeAt(i + 2)) : -1;
      if (lo < 0) {
        out += '%25';
        continue;
      }
      const v = hi * 16 + lo;
      out += v > 0x20 && v < 0x7f && v !== 0x25 ? String.fromCharCode(v) : `%${HEX[hi]}${HEX[lo]}`;
      i += 2;
    } else if (c > 0x20 && c < 0x7f) {
      out += s[i];
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      out += encodeChar(s.slice(i, i + 2));
      i++;
    } else {
      out += encodeChar(s[i]!);
    }
  }
  return out;
}

function compileRule(raw: string, allow: boolean): RobotsRule | null {
  let pattern = raw.startsWith('/') || raw.startsWith('*') ? raw : `/${raw}`;
  const anchoredEnd = pattern.endsWith('$');
  if (anchoredEnd) pattern = pattern.slice(0, -1);
  // Wildcards are found in the raw pattern: an encoded '*' (%2A) stays a literal star.
  let glob = globFromParts(pattern.split('*').map(normalisePercent), anchoredEnd);
  let length = globLength(glob);
  if (length > ROBOTS_MAX_PATTERN) {
    if (allow) return null;
    const kept: string[] = [];
    let room = ROBOTS_MAX_PATTERN;
    for (const part of glob.parts) {
      kept.push(part.slice(0, room));
      room -= part.length + 1;
      if (room < 0) break;
    }
    // Cut short, the Disallow covers more than written, never less.
    glob = globFromParts(kept, false);
    length = globLength(glob);
  }
  return { glob, length, allow };
}

/**
 * A wildcard rule past the ROBOTS_MAX_WILDCARD_RULES first: a Disallow keeps its literal head
 * (it covers more, and costs a prefix comparison), an Allow is dropped.
 */
function withoutWildcards(rule: RobotsRule): RobotsRule | null {
  if (rule.glob.parts.length === 1 || rule.allow) return rule.glob.parts.length === 1 ? rule : null;
  const glob = globFromParts([rule.glob.parts[0]!], false);
  return { glob, length: globLength(glob), allow: false };
}

function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length && lines.length < ROBOTS_MAX_LINES; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) {
      lines.push(text.slice(start, i));
      if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
      start = i + 1;
    }
  }
  if (start < text.length && lines.length < ROBOTS_MAX_LINES) lines.push(text.slice(start));
  return lines;
}

function absoluteHttpUrl(value: string): string | null {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

function parseDelay(value: string): number | null {
  const n = Number(value);
  if (value === '' || !Number.isFinite(n) || n < 0) return null;
  return Math.min(n, ROBOTS_MAX_CRAWL_DELAY_S);
}

/** The line cut at the limit is incomplete: a cut pattern could say the opposite. */
function withoutCutLine(body: string): string {
  const lastBreak = Math.max(body.lastIndexOf('\n'), body.lastIndexOf('\r'));
  return lastBreak >= 0 ? body.slice(0, lastBreak) : '';
}

/**
 * Rules for `userAgent` from a robots.txt answer's bytes, as plain data: what the engine's
 * `robots` task runs. Only the first ROBOTS_MAX_BYTES are decoded; more bytes than that (the
 * caller may keep just one more) mean the file was cut there.
 */
export function compileRobotsBytes(bytes: Uint8Array, userAgent: string): CompiledRobots {
  const cut = bytes.byteLength > ROBOTS_MAX_BYTES;
  const text = new TextDecoder().decode(cut ? bytes.subarray(0, ROBOTS_MAX_BYTES) : bytes);
  return compileBody(cut ? withoutCutLine(text) : text, userAgent);
}

/** Rules for `userAgent` from a robots.txt body, as plain data (see the module comment). */
function compileRobots(text: string, userAgent: string): CompiledRobots {
  const cut = text.length > ROBOTS_MAX_BYTES;
  return compileBody(cut ? withoutCutLine(text.slice(0, ROBOTS_MAX_BYTES)) : text, userAgent);
}

/** Rules for `userAgent` from a robots.txt body (see the module comment for each choice). */
export function parseRobots(text: string, userAgent: string): RobotsRules {
  return robotsFromCompiled(compileRobots(text, userAgent));
}

function compileBody(text: string, userAgent: string): CompiledRobots {
  let body = text;
  if (body.charCodeAt(0) === 0xfeff) body = body.slice(1);

  const groups: Group[] = [];
  const sitemaps = new Set<string>();
  let current: Group | null = null;
  let inAgents = false;
  for (const line of splitLines(body)) {
    const hash = line.indexOf('#');
    const content = hash >= 0 ? line.slice(0, hash) : line;
    const colon = content.indexOf(':');
    if (colon < 0) continue;
    const key = content.slice(0, colon).trim().toLowerCase();
    const value = content.slice(colon + 1).trim();
    if (key === 'user-agent') {
      if (!inAgents || !current) {
        current = { agents: [], rules: [], crawlDelayS: null };
        groups.push(current);
        inAgents = true;
      }
      current.agents.push(value.startsWith('*') ? '*' : leadingToken(value));
    } else if (key === 'sitemap' || key === 'site-map') {
      const url = absoluteHttpUrl(value);
      if (url && sitemaps.size < ROBOTS_MAX_SITEMAPS) sitemaps.add(url);
    } else if (key === 'allow' || key === 'disallow') {
      inAgents = false;
      // Rules before any User-agent line belong to no group.
      if (current && value !== '') current.rules.push({ allow: key === 'allow', pattern: value });
    } else if (key === 'crawl-delay') {
      inAgents = false;
      if (current && current.crawlDelayS === null) current.crawlDelayS = parseDelay(value);
    }
  }

  const token = productToken(userAgent);
  const named = token ? groups.filter((g) => g.agents.includes(token)) : [];
  const chosen = named.length > 0 ? named : groups.filter((g) => g.agents.includes('*'));

  const rules: RobotsRule[] = [];
  let crawlDelayS: number | null = null;
  let wildcards = 0;
  for (const g of chosen) {
    crawlDelayS ??= g.crawlDelayS;
    for (const r of g.rules) {
      if (rules.length >= ROBOTS_MAX_RULES) break;
      let rule = compileRule(r.pattern, r.allow);
      if (rule && rule.glob.parts.length > 1 && ++wildcards > ROBOTS_MAX_WILDCARD_RULES) {
        rule = withoutWildcards(rule);
      }
      if (rule) rules.push(rule);
    }
  }
  // Longest first, Allow before Disallow at equal length: the first match decides.
  rules.sort((a, b) => b.length - a.length || Number(b.allow) - Number(a.allow));
  return { rules, crawlDelayS, sitemaps: [...sitemaps] };
}

/**
 * The lookup over compiled rules (sorted longest first): a path costs at most
 * ROBOTS_MAX_WILDCARD_RULES scans plus prefix comparisons, cheap enough for the event loop.
 */
export function robotsFromCompiled(compiled: CompiledRobots): RobotsRules {
  const { rules, crawlDelayS, sitemaps } = compiled;
  return {
    allowed(pathAndQuery: string): boolean {
      const path = normalisePercent(
        pathAndQuery.startsWith('/') ? pathAndQuery : `/${pathAndQuery}`,
      );
      if (path === ALWAYS_ALLOWED) return true;
      for (const rule of rules) if (globMatches(rule.glob, path)) return rule.allow;
      return true;
    },
    crawlDelayS,
    sitemaps,
  };
}

const ALLOW_ALL: RobotsRules = Object.freeze({
  allowed: () => true,
  crawlDelayS: null,
  sitemaps: Object.freeze([]) as unknown as string[],
});
const DISALLOW_ALL: RobotsRules = Object.freeze({
  allowed: () => false,
  crawlDelayS: null,
  sitemaps: Object.freeze([]) as unknown as string[],
});

/**
 * The rules a robots.txt answer implies without a body to read (RFC 9309 §2.3.1): null for a
 * 2xx (parse the body); allow all for a 4xx but 429 ("unavailable") and for redirects that did
 * not end (more than five); disallow all for a 429, a 5xx, anything else, and for no answer at
 * all (`status` null: DNS, connection, timeout — "unreachable"). A crawler may treat a robots.txt
 * unreachable for 30 days as unavailable; that is the caller's memory, not this function's.
 */
export function robotsFromStatus(status: number | null): RobotsRules | null {
  if (status === null) return DISALLOW_ALL;
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) return ALLOW_ALL;
  if (status >= 400 && status < 500 && status !== 429) return ALLOW_ALL;
  return DISALLOW_ALL;
}

/** What robots rules are asked about for a URL: its path and query, as sent. */
export function robotsPath(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}
