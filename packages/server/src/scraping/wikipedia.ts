import { BadRequest, NotFound, Unprocessable } from '../lib/errors.js';
import { SECTION_SEPARATOR, sectionLine } from '../pipeline/sections.js';
import { isApparatusHeading, stripMarkers } from './boilerplate.js';
import { FetchError } from './fetch-error.js';
import type { SafeFetcher } from './safe-fetcher.js';

interface EncyclopediaArticle {
  /** The article's title after normalisation and redirects. */
  title: string;
  /** Plain text, reference sections dropped, headings as section lines (pipeline/sections.ts). */
  text: string;
  /** The article's page. */
  url: string;
  language: string;
  /** The title asked for, when a redirect led elsewhere. */
  redirected_from?: string;
}

interface EncyclopediaClientOptions {
  /** 'https://{lang}.wikipedia.org' (ADAM_WIKIPEDIA_URL) or a plain base such as a local fake. */
  baseUrl: string;
  fetcher: SafeFetcher;
}

/** MediaWiki's byte limit for a title. */
const MAX_TITLE_BYTES = 255;

/** 'Article 'Xyz' not found on en.wikipedia' while staying a NotFound (404). */
class ArticleNotFound extends NotFound {
  constructor(title: string, wiki: string) {
    super('article', title);
    this.message = `Article '${title}' not found on ${wiki}`;
  }
}

/** Reads encyclopedia articles as plain text through the MediaWiki action API (TextExtracts). */
export class EncyclopediaClient {
  private readonly baseUrl: string;
  private readonly fetcher: SafeFetcher;

  constructor(opts: EncyclopediaClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.fetcher = opts.fetcher;
  }

  async fetchArticle(title: string, language = 'en'): Promise<EncyclopediaArticle> {
    const lang = validateLanguage(language);
    const wanted = sanitizeTitle(title);
    const wiki = `${lang}.wikipedia`;
    const base = this.baseUrl.replaceAll('{lang}', lang);
    const params = new URLSearchParams({
      action: 'query',
      prop: 'extracts',
      explaintext: '1',
      exsectionformat: 'wiki',
      redirects: '1',
      format: 'json',
      formatversion: '2',
      titles: wanted,
    });
    const res = await this.fetcher.fetch(`${base}/w/api.php?${params}`, {
      accept: 'application/json',
    });

    let data: ApiAnswer;
    try {
      data = JSON.parse(res.body.toString('utf8')) as ApiAnswer;
    } catch {
      throw new FetchError(
        'bad_response',
        `The encyclopedia API at ${res.url} did not answer JSON (Content-Type '${res.contentType}')`,
        res.url,
      );
    }
    if (data.error) {
      throw new FetchError(
        'bad_response',
        `The encyclopedia API (${wiki}) refused the request: ${data.error.info ?? data.error.code ?? 'unknown error'}`,
        res.url,
      );
    }

    const page = data.query?.pages?.[0];
    if (!page) {
      throw new FetchError(
        'bad_response',
        `The encyclopedia API (${wiki}) answered no page for '${wanted}'`,
        res.url,
      );
    }
    if (page.invalid) {
      throw new BadRequest(
        `Invalid title '${wanted}' for ${wiki}: ${page.invalidreason ?? 'not a valid title'}`,
      );
    }
    if (page.missing || page.extract === undefined) throw new ArticleNotFound(wanted, wiki);

    const text = cleanExtract(page.extract);
    if (!text) throw new Unprocessable(`Article '${page.title}' on ${wiki} has no text`);
    const finalTitle = page.title ?? wanted;
    const redirected = (data.query?.redirects?.length ?? 0) > 0;
    return {
      title: finalTitle,
      text,
      url: `${base}/wiki/${encodeURIComponent(finalTitle.replace(/ /g, '_'))}`,
      language: lang,
      ...(redirected ? { redirected_from: wanted } : {}),
    };
  }
}

interface ApiAnswer {
  error?: { code?: string; info?: string };
  query?: {
    normalized?: { from: string; to: string }[];
    redirects?: { from: string; to: string }[];
    pages?: {
      title?: string;
      missing?: boolean;
      invalid?: boolean;
      invalidreason?: string;
      extract?: string;
    }[];
  };
}

/** 'en', 'fr', 'als': a 2–3 letter code, lower-cased; anything else is a 400. */
function validateLanguage(language: string): string {
  const lang = language.trim().toLowerCase();
  if (!/^[a-z]{2,3}$/.test(lang)) {
    throw new BadRequest(
      `Invalid language '${language}': use a 2 or 3 letter code such as 'en' or 'fr'`,
    );
  }
  return lang;
}

/**
 * A title as MediaWiki accepts it: a pasted article URL gives its title; percent-escapes are
 * decoded; '#' starts a section anchor, so it and what follows go; the other characters
 * MediaWiki forbids (<>[]|{}) and control characters are removed; underscores become spaces;
 * whitespace collapses; at most 255 UTF-8 bytes. Empty → 400 'Title is required'.
 */
export function sanitizeTitle(title: string): string {
  let t = title.trim();
  const fromUrl = /^https?:\/\/[^/]+\/wiki\/([^?]+)/i.exec(t);
  if (fromUrl?.[1]) t = fromUrl[1];
  if (/%[0-9a-f]{2}/i.test(t)) {
    try {
      t = decodeURIComponent(t);
    } catch {
      // not a valid escape sequence: keep the text as typed
    }
  }
  t = t.split('#')[0] ?? '';
  t = t
    // eslint-disable-next-line no-control-regex
    .replace(/[<>[\]|{}\u0000-\u001f\u007f]/g, '')
    .replace(/_/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (Buffer.byteLength(t, 'utf8') > MAX_TITLE_BYTES) {
    const bytes = Buffer.from(t, 'utf8').subarray(0, MAX_TITLE_BYTES);
    // Decoding drops a character cut in half as U+FFFD, which is then removed.
    t = bytes
      .toString('utf8')
      .replace(/\uFFFD+$/, '')
      .trim();
  }
  if (!t) throw new BadRequest('Title is required');
  return t;
}

/** `.` stops at these: a heading's text never spans one. */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

/**
 * '== Heading ==' (2 to 6 '=' on each side, as many closing as opening) → its level and text,
 * else undefined. Scanned by hand rather than with /^(={2,6})\s*(.*?)\s*\1\s*$/, which
 * backtracks cubically on a long run of spaces (issue 23: a hostile answer froze the server).
 * Same result: the most '=' that both ends hold, text trimmed of white space.
 */
export function parseHeading(raw: string): { heading: number; text: string } | undefined {
  const line = raw.trim();
  let open = 0;
  while (open < line.length && line[open] === '=') open++;
  for (let level = Math.min(open, 6); level >= 2; level--) {
    if (line.length < 2 * level) continue;
    let close = 0;
    while (close < level && line[line.length - 1 - close] === '=') close++;
    if (close < level) continue;
    const text = line.slice(level, line.length - level).trim();
    if (!LINE_TERMINATOR.test(text)) return { heading: level, text };
  }
  return undefined;
}

/**
 * Turns a TextExtracts plain-text extract into article text: apparatus sections (References,
 * See also, Liens externes…) go with their subsections, '== Heading ==' lines become section
 * lines with their path ("Pollination › Biotic pollination", pipeline/sections.ts) where prose
 * follows, footnote markers go, blank lines collapse.
 */
export function cleanExtract(extract: string): string {
  type Line = { heading: number; text: string };
  const lines: Line[] = extract
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((raw) => parseHeading(raw) ?? { heading: 0, text: raw });

  // Drop apparatus sections: from their heading to the next heading of the same or higher level.
  const kept: Line[] = [];
  let dropLevel = 0;
  for (const line of lines) {
    if (line.heading) {
      if (dropLevel && line.heading > dropLevel) continue;
      dropLevel = 0;
      if (isApparatusHeading(line.text)) {
        dropLevel = line.heading;
        continue;
      }
    } else if (dropLevel) continue;
    kept.push(line);
  }

  // A heading opens a section named by its path (its parents' titles, then its own); a section
  // line is written only where prose follows, so an empty heading leaves only its name in paths.
  const out: string[] = [];
  const path: Line[] = [];
  let pending: string | null = null;
  for (const line of kept) {
    if (line.heading) {
      while (path.length && (path.at(-1)?.heading ?? 0) >= line.heading) path.pop();
      const name = stripMarkers(line.text.replace(/\s+/g, ' ').trim());
      if (name) path.push({ heading: line.heading, text: name });
      pending = path.map((p) => p.text).join(SECTION_SEPARATOR);
      continue;
    }
    const text = stripMarkers(line.text.replace(/[ \t\u00a0]+/g, ' ').trim());
    if (text && pending !== null) {
      out.push('', sectionLine(pending), '');
      pending = null;
    }
    out.push(text);
  }
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
