/**
 * One key per page for the crawl's frontier and dedupe. The rules:
 *
 * - Relative references resolve against `base`; only http and https remain (javascript:,
 *   mailto:, data:, ftp:… give null), and so does nothing over URL_MAX_LENGTH (2,048) characters,
 *   before or after normalising.
 * - Scheme and host lower-cased, an IDN host in punycode, the default port dropped, dot segments
 *   resolved, an empty path made '/' (all by the WHATWG URL parser); a final dot of the host
 *   dropped (`example.com.` is `example.com`).
 * - User name and password dropped: a crawler never sends credentials a page linked to.
 * - The fragment dropped: it never reaches the server.
 * - Percent-encoding: escapes of unreserved characters (letters, digits, '-', '.', '_', '~')
 *   decoded, every other escape's hex upper-cased (RFC 3986 §6.2.2).
 * - Query: tracking parameters (utm_*, gclid, fbclid, msclkid, mc_cid, mc_eid, _ga, ref_src…:
 *   TRACKING_PARAMS) removed by name, case-insensitively; empty pairs dropped; the others kept
 *   as written and in their order (order can matter to a site); a query left empty is dropped.
 * - Trailing slash: kept as the site gives it. `/dir` and `/dir/` are two keys; when they are
 *   the same page, the page's canonical link or its content hash makes them one source. Guessing
 *   would merge pages that differ (`/api` and `/api/` often do).
 */
import { HEX, hexValue } from './percent.js';

export const URL_MAX_LENGTH = 2_048;

/** Parameters that identify a campaign or a click, never the page. */
const TRACKING_PARAMS: ReadonlySet<string> = new Set([
  'gclid',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'yclid',
  'twclid',
  'igshid',
  'mc_cid',
  'mc_eid',
  '_ga',
  '_gl',
  '_hsenc',
  '_hsmi',
  'mkt_tok',
  'ref_src',
  'ref_url',
  'oly_anon_id',
  'oly_enc_id',
  'vero_id',
  'wickedid',
]);
const TRACKING_PREFIX = 'utm_';

function isUnreserved(c: number): boolean {
  return (
    (c >= 65 && c <= 90) ||
    (c >= 97 && c <= 122) ||
    (c >= 48 && c <= 57) ||
    c === 45 ||
    c === 46 ||
    c === 95 ||
    c === 126
  );
}

/** Decodes escapes of unreserved characters and upper-cases the others (one pass). */
export function normaliseEscapes(s: string): string {
  if (s.indexOf('%') < 0) return s;
  let out = '';
  let from = 0;
  for (let i = s.indexOf('%'); i >= 0 && i + 2 < s.length; i = s.indexOf('%', i + 1)) {
    const hi = hexValue(s.charCodeAt(i + 1));
    const lo = hexValue(s.charCodeAt(i + 2));
    if (hi < 0 || lo < 0) continue;
    const v = hi * 16 + lo;
    out += s.slice(from, i) + (isUnreserved(v) ? String.fromCharCode(v) : `%${HEX[hi]}${HEX[lo]}`);
    from = i + 3;
    i += 2;
  }
  return out + s.slice(from);
}

/** A query parameter's name, decoded and lower-cased, to compare with TRACKING_PARAMS. */
function paramName(pair: string): string {
  const eq = pair.indexOf('=');
  const raw = (eq < 0 ? pair : pair.slice(0, eq)).replaceAll('+', ' ');
  try {
    return decodeURIComponent(raw).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

function isTrackingParam(name: string): boolean {
  return name.startsWith(TRACKING_PREFIX) || TRACKING_PARAMS.has(name);
}

/** The query without tracking parameters and empty pairs, '' when nothing is left. */
function cleanQuery(search: string): string {
  if (search.length <= 1) return '';
  const kept = search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '' && !isTrackingParam(paramName(pair)));
  return kept.length ? `?${normaliseEscapes(kept.join('&'))}` : '';
}

/** The crawl key of `raw` (resolved against `base`), or null when it is not a usable page URL. */
export function normaliseUrl(raw: string, base?: string): string | null {
  if (raw.length > URL_MAX_LENGTH) return null;
  let u: URL;
  try {
    u = new URL(raw, base);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  let host = u.hostname;
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (!host) return null;
  const port = u.port ? `:${u.port}` : '';
  const path = normaliseEscapes(u.pathname || '/');
  const out = `${u.protocol}//${host}${port}${path}${cleanQuery(u.search)}`;
  return out.length > URL_MAX_LENGTH ? null : out;
}
