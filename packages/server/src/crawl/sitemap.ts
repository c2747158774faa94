import zlib from 'node:zlib';
import { FetchError, formatBytes } from '../scraping/fetch-error.js';
import { normaliseUrl } from './url-normalise.js';

/**
 * Sitemaps (sitemaps.org protocol) from hostile bytes: a forward-only scan for the elements that
 * matter, no regular expression, no DTD or entity expansion (only the five XML entities and
 * numeric references are decoded), so its cost is linear in the input.
 *
 * - XML: `<urlset>` gives kind 'urlset', `<sitemapindex>` kind 'index'; each `<url>` or
 *   `<sitemap>` gives one entry from its own `<loc>` and `<lastmod>` children (namespace prefixes
 *   ignored; an extension's `<image:loc>` nested deeper is not the page's). CDATA is read.
 * - Plain text (the first character is not '<'): one URL a line, kind 'urlset'.
 * - Entries: absolute http(s) URLs only, normalised with normaliseUrl, deduplicated, the
 *   sitemap's own URL (`base`) dropped (an index listing itself would loop); others counted in
 *   `ignored`. `lastmod` kept when it looks like a W3C date (starts with a year), else null.
 * - Bounds (the protocol's): SITEMAP_MAX_ENTRIES entries and SITEMAP_MAX_BYTES of text; past
 *   either the rest is not read and `truncated` is true. A gzip body inflates to at most
 *   SITEMAP_MAX_BYTES (gunzipBounded), else it is refused as a decompression bomb.
 */

export const SITEMAP_MAX_ENTRIES = 50_000;
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;
/** A `<loc>` longer than this is no usable URL (normaliseUrl allows 2,048): not kept whole. */
const FIELD_MAX_CHARS = 4_096;
const LASTMOD_MAX_CHARS = 64;

export interface SitemapLimits {
  maxEntries?: number;
  /** Characters of text read (bytes for ASCII, which URLs are). */
  maxBytes?: number;
}

export interface SitemapEntry {
  loc: string;
  lastmod: string | null;
}

export interface ParsedSitemap {
  kind: 'urlset' | 'index';
  /** How the file was written: XML, or one URL a line. */
  format: 'xml' | 'text';
  entries: SitemapEntry[];
  /** The file had more than the bounds allow: its rest was not read. */
  truncated: boolean;
  /** Entries dropped: not absolute http(s), too long, duplicates, the sitemap itself. */
  ignored: number;
}

/** Collects entries under the bounds, normalising and deduplicating their URLs. */
class Entries {
  readonly list: SitemapEntry[] = [];
  private readonly seen = new Set<string>();
  ignored = 0;
  full = false;

  constructor(
    private readonly self: string | null,
    private readonly max: number,
  ) {}

  add(loc: string | null, lastmod: string | null): void {
    if (this.full) return;
    if (this.list.length >= this.max) {
      // One entry more than the bound: the file is cut here.
      this.full = true;
      return;
    }
    const url = loc ? normaliseUrl(loc) : null;
    if (!url || url === this.self || this.seen.has(url)) {
      this.ignored++;
      return;
    }
    this.seen.add(url);
    this.list.push({ loc: url, lastmod: lastmod && looksLikeDate(lastmod) ? lastmod : null });
  }
}

function looksLikeDate(s: string): boolean {
  if (s.length < 4 || s.length > LASTMOD_MAX_CHARS) return false;
  for (let i = 0; i < 4; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Entries of a sitemap's text; `base` is the sitemap's own URL. */
export function parseSitemap(xml: string, base: string, limits: SitemapLimits = {}): ParsedSitemap {
  const maxEntries = Math.min(limits.maxEntries ?? SITEMAP_MAX_ENTRIES, SITEMAP_MAX_ENTRIES);
  const maxBytes = Math.min(limits.maxBytes ?? SITEMAP_MAX_BYTES, SITEMAP_MAX_BYTES);
  let text = xml.length > maxBytes ? xml.slice(0, maxBytes) : xml;
  let truncated = xml.length > maxBytes;
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const entries = new Entries(normaliseUrl(base), maxEntries);

  const first = firstNonSpace(text);
  const isText = first < text.length && text.charCodeAt(first) !== 60; // not '<'
  const kind = isText ? 'urlset' : scanXml(text, entries);
  if (isText) scanLines(text, entries, truncated);
  truncated ||= entries.full;
  return {
    kind,
    format: isText ? 'text' : 'xml',
    entries: entries.list,
    truncated,
    ignored: entries.ignored,
  };
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

function firstNonSpace(s: string): number {
  let i = 0;
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  return i;
}

function scanLines(text: string, entries: Entries, cut: boolean): void {
  let start = 0;
  while (start < text.length && !entries.full) {
    let end = text.indexOf('\n', start);
    // A line cut at the byte bound is incomplete: a cut URL would be a wrong one.
    if (end < 0) {
      if (cut) return;
      end = text.length;
    }
    const line = text.slice(start, end).trim();
    if (line !== '') entries.add(line.length > FIELD_MAX_CHARS ? null : line, null);
    start = end + 1;
  }
}

/** The name of the tag at `lt` ('<name' or '</name'), lower-cased, without its prefix. */
function tagName(s: string, from: number, gt: number): string {
  let end = from;
  while (end < gt) {
    const c = s.charCodeAt(end);
    if (isSpace(c) || c === 47 /* / */) break;
    end++;
  }
  const name = s.slice(from, end);
  const colon = name.lastIndexOf(':');
  return (colon >= 0 ? name.slice(colon + 1) : name).toLowerCase();
}

/** Skips a construct opened at `at` until `close`; the index after it, or the text's end. */
function skipTo(s: string, at: number, close: string): number {
  const end = s.indexOf(close, at);
  return end < 0 ? s.length : end + close.length;
}

/** Reads an element's text from `from` up to its next tag (CDATA included); bounded. */
function readText(s: string, from: number): { text: string | null; next: number } {
  let out = '';
  let tooLong = false;
  let pos = from;
  while (pos < s.length) {
    const lt = s.indexOf('<', pos);
    const stop = lt < 0 ? s.length : lt;
    if (!tooLong) out += s.slice(pos, stop);
    pos = stop;
    if (lt >= 0 && s.startsWith('<![CDATA[', lt)) {
      const end = s.indexOf(']]>', lt + 9);
      const cdataEnd = end < 0 ? s.length : end;
      if (!tooLong) out += s.slice(lt + 9, cdataEnd);
      pos = end < 0 ? s.length : end + 3;
    } else if (lt >= 0 && s.startsWith('<!--', lt)) {
      pos = skipTo(s, lt + 4, '-->');
    } else {
      break;
    }
    tooLong ||= out.length > FIELD_MAX_CHARS;
  }
  tooLong ||= out.length > FIELD_MAX_CHARS;
  return { text: tooLong ? null : decodeEntities(out).trim(), next: pos };
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The five XML entities and numeric references; anything else is left as written. */
export function decodeEntities(s: string): string {
  if (s.indexOf('&') < 0) return s;
  let out = '';
  let from = 0;
  for (let amp = s.indexOf('&'); amp >= 0; amp = s.indexOf('&', amp + 1)) {
    const semi = s.indexOf(';', amp + 1);
    // Entity names are short: a far ';' belongs to something else.
    if (semi < 0 || semi - amp > 10) continue;
    const name = s.slice(amp + 1, semi);
    let ch: string | undefined = NAMED[name];
    if (ch === undefined && name.startsWith('#')) {
      const code =
        name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
      if (Number.isInteger(code) && code > 0 && code <= 0x10ffff) ch = String.fromCodePoint(code);
    }
    if (ch === undefined) continue;
    out += s.slice(from, amp) + ch;
    from = semi + 1;
    amp = semi;
  }
  return out + s.slice(from);
}

/** Scans XML for entries; answers the kind its root element names ('urlset' if neither). */
function scanXml(s: string, entries: Entries): 'urlset' | 'index' {
  let kind: 'urlset' | 'index' | null = null;
  let inEntry = false;
  /** Elements open inside the current entry: only its direct children are its fields. */
  let depth = 0;
  let loc: string | null = null;
  let lastmod: string | null = null;
  const flush = () => {
    if (inEntry && loc !== null) entries.add(loc, lastmod);
    else if (inEntry) entries.ignored++;
    inEntry = false;
    depth = 0;
    loc = null;
    lastmod = null;
  };

  let i = 0;
  while (i < s.length && !entries.full) {
    const lt = s.indexOf('<', i);
    if (lt < 0) break;
    if (s.startsWith('<!--', lt)) {
      i = skipTo(s, lt + 4, '-->');
      continue;
    }
    if (s.startsWith('<![CDATA[', lt)) {
      i = skipTo(s, lt + 9, ']]>');
      continue;
    }
    // Declarations and processing instructions: read past, never interpreted (no DTD).
    if (s.startsWith('<?', lt) || s.startsWith('<!', lt)) {
      i = skipTo(s, lt + 2, '>');
      continue;
    }
    const gt = s.indexOf('>', lt);
    if (gt < 0) break;
    i = gt + 1;
    const closing = s.charCodeAt(lt + 1) === 47;
    const name = tagName(s, closing ? lt + 2 : lt + 1, gt);
    const selfClosing = !closing && s.charCodeAt(gt - 1) === 47;

    if (closing) {
      if (inEntry && depth === 0 && (name === 'url' || name === 'sitemap')) flush();
      else if (depth > 0) depth--;
      continue;
    }
    if (name === 'urlset' || name === 'sitemapindex') {
      kind ??= name === 'urlset' ? 'urlset' : 'index';
      continue;
    }
    if (name === 'url' || name === 'sitemap') {
      // An entry left open (malformed) ends where the next begins.
      flush();
      inEntry = !selfClosing;
      continue;
    }
    if (!inEntry || selfClosing) continue;
    if (depth === 0 && (name === 'loc' || name === 'lastmod')) {
      const { text, next } = readText(s, i);
      if (name === 'loc') loc ??= text ?? '';
      else lastmod ??= text;
      i = next;
    }
    depth++;
  }
  if (!entries.full) flush();
  return kind ?? 'urlset';
}

/**
 * Inflates a gzip body to at most `maxBytes`: zlib stops as soon as its output passes the bound
 * (maxOutputLength), so a decompression bomb costs at most that much memory and time.
 */
export function gunzipBounded(buf: Uint8Array, maxBytes: number): Uint8Array {
  try {
    return zlib.gunzipSync(buf, { maxOutputLength: maxBytes });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new FetchError(
        'too_large',
        `The gzip content inflates past ${formatBytes(maxBytes)}: refused (a decompression bomb?)`,
      );
    }
    throw new FetchError('bad_response', `The content is not valid gzip: ${(e as Error).message}`);
  }
}

const GZIP_TYPES = new Set(['application/gzip', 'application/x-gzip']);

/** Whether bytes are gzip: said so, a gzip content type, or the gzip magic number. */
function isGzip(bytes: Uint8Array, contentType: string, gz: boolean | undefined): boolean {
  if (gz) return true;
  const mime = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return GZIP_TYPES.has(mime) || (bytes[0] === 0x1f && bytes[1] === 0x8b);
}

/**
 * A fetched sitemap's bytes parsed (the engine runs this on a worker thread): inflated when
 * gzip (by `gz`, the content type or the magic number), decoded as UTF-8 (the protocol's
 * encoding), then parseSitemap. Throws FetchError 'too_large' for a gzip bomb.
 */
export function parseSitemapBytes(
  bytes: Uint8Array,
  meta: { url: string; contentType: string; gz?: boolean },
  limits: SitemapLimits = {},
): ParsedSitemap {
  const maxBytes = Math.min(limits.maxBytes ?? SITEMAP_MAX_BYTES, SITEMAP_MAX_BYTES);
  let body = bytes;
  if (isGzip(bytes, meta.contentType, meta.gz)) {
    try {
      body = gunzipBounded(bytes, maxBytes);
    } catch (e) {
      if (e instanceof FetchError)
        throw new FetchError(e.code, `${meta.url}: ${e.message}`, meta.url);
      throw e;
    }
  }
  const cut = body.byteLength > maxBytes;
  const text = new TextDecoder('utf-8').decode(cut ? body.subarray(0, maxBytes) : body);
  const parsed = parseSitemap(text, meta.url, limits);
  return cut ? { ...parsed, truncated: true } : parsed;
}
