import { normaliseUrl } from '../crawl/url-normalise.js';
import { decodeHtmlBytes } from './charset.js';
import { FetchError } from './fetch-error.js';
import { parseHTML, readabilityModule } from './lazy-dom.js';
import { SECTION_MARK, SECTION_SEPARATOR, sectionLine } from '../pipeline/sections.js';
import { cleanBlock, isApparatusHeading, isFurniture } from './boilerplate.js';
import { assertMarkupBounded } from './markup-bounds.js';
import { describeRule } from './rules.js';
import type { FetchResult } from './safe-fetcher.js';

/** The part of a scraping rule extraction needs; `domain` only improves messages. */
interface ExtractRule {
  mode: string;
  target: string | null;
  domain?: string;
}

interface ExtractResult {
  title: string;
  /**
   * Plain text: one blank line between blocks, whitespace collapsed inside them. A heading is a
   * section line (pipeline/sections.ts: an invisible mark then its path), not prose.
   */
  text: string;
  /** The cleaned article HTML, or the selected elements' HTML in selector mode. */
  html: string;
  excerpt?: string;
  byline?: string;
  lang?: string;
  /** How the text was found: readability, the whole body, the rule's selector, plain text. */
  method: 'readability' | 'body' | 'selector' | 'plain';
  /** Things the operator should know, e.g. a rule mode this version does not know. */
  warnings: string[];
  /** What a crawler follows from the page (see pageLinks); empty for plain text. */
  links: string[];
  /** `<link rel="canonical">`, absolute and normalised, or null. */
  canonical: string | null;
  /** `<meta name="robots">`: the crawler honours both (a plain-text page has neither). */
  robotsMeta: RobotsMeta;
}

export interface RobotsMeta {
  noindex: boolean;
  nofollow: boolean;
}

/** Links kept from one page: a hostile page of a million anchors costs no more than this. */
export const PAGE_MAX_LINKS = 5_000;

type RuleMode = 'allow' | 'deny' | 'selector';

/** The rule's mode as extraction applies it; unknown modes extract like allow, with a warning. */
export function ruleMode(rule: ExtractRule | null | undefined): {
  mode: RuleMode;
  warning?: string;
} {
  const raw = (rule?.mode ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'allow') return { mode: 'allow' };
  if (raw === 'deny') return { mode: 'deny' };
  if (raw === 'selector') {
    if (rule?.target?.trim()) return { mode: 'selector' };
    return {
      mode: 'allow',
      warning: 'The selector rule has no target selector: the default extraction was used',
    };
  }
  return {
    mode: 'allow',
    warning: `Unknown rule mode '${rule?.mode}': the default extraction was used`,
  };
}

/** Refuses a URL whose rule is deny; call it before fetching so no request is made. */
export function assertRuleAllowsFetch(url: string, rule: ExtractRule | null | undefined): void {
  if (rule && ruleMode(rule).mode === 'deny') {
    const which = rule.domain
      ? `the scraping rule ${describeRule({ ...rule, domain: rule.domain })}`
      : 'its scraping rule (deny)';
    throw new FetchError('denied_by_rule', `Fetching ${url} is denied by ${which}`, url);
  }
}

/** Extracts an HTML page: readability by default, the rule's CSS selector in selector mode. */
export function extractContent(
  html: string,
  url: string,
  rule?: ExtractRule | null,
): ExtractResult {
  assertRuleAllowsFetch(url, rule);
  assertMarkupBounded(html, url);
  const { mode, warning } = ruleMode(rule);
  const warnings = warning ? [warning] : [];
  const doc = parseDocument(html, url);
  const meta = {
    title: documentTitle(doc, url),
    lang: doc.documentElement?.getAttribute('lang')?.trim() || undefined,
    // Read before readability or a selector's clean-up changes the tree.
    ...pageLinks(doc, url),
  };

  if (mode === 'selector') {
    const target = (rule?.target ?? '').trim();
    let matches: DomElement[];
    try {
      matches = Array.from(doc.querySelectorAll(target));
    } catch (err) {
      throw new FetchError(
        'bad_selector',
        `The scraping rule's selector '${target}' for ${url} is not valid CSS: ${(err as Error).message}`,
        url,
      );
    }
    // Nested matches would repeat their text: keep the outermost ones, in document order.
    const outer = matches.filter((m) => !matches.some((o) => o !== m && o.contains(m)));
    for (const el of outer) removeBoilerplate(el);
    const texts = outer.map((el) => toSectionedText(el)).filter(Boolean);
    if (texts.length === 0) {
      throw new FetchError(
        'selector_no_match',
        outer.length
          ? `The elements of ${url} matching the selector '${target}' hold no text`
          : `No element of ${url} matches the selector '${target}' of its scraping rule`,
        url,
      );
    }
    return {
      ...meta,
      text: texts.join('\n\n'),
      html: outer.map((el) => el.outerHTML).join('\n'),
      method: 'selector',
      warnings,
    };
  }

  if (doc.body) stripFurniture(doc.body);
  const article = readArticle(doc);
  if (article) {
    return {
      ...meta,
      title: article.title?.trim() || meta.title,
      text: article.text,
      html: article.html,
      excerpt: article.excerpt?.trim() || undefined,
      byline: article.byline?.trim() || undefined,
      lang: meta.lang ?? (article.lang?.trim() || undefined),
      method: 'readability',
      warnings,
    };
  }

  // Readability found no article (short or unusual page): the body without its boilerplate.
  const fresh = parseDocument(html, url);
  const body = fresh.body;
  if (body) {
    stripFurniture(body);
    removeBoilerplate(body);
    // A site header (logo, menu) is furniture too; an article's own <header> holds its title.
    for (const el of Array.from(body.querySelectorAll('header'))) {
      if (!el.closest('article, main')) el.remove();
    }
  }
  const text = body ? toSectionedText(body) : '';
  const firstProse = text.split('\n\n').find((b) => !b.startsWith(SECTION_MARK)) ?? '';
  return {
    ...meta,
    text,
    html: body?.innerHTML.trim() ?? '',
    excerpt: firstProse ? firstWords(firstProse, 200) : undefined,
    method: 'body',
    warnings,
  };
}

/** A fetched response as text: HTML through `extractContent`, plain text as is, others refused. */
export function extractResponse(
  res: FetchResult,
  rule?: ExtractRule | null,
): ExtractResult & { raw: string } {
  const mime = (res.contentType.split(';')[0] ?? '').trim().toLowerCase();
  const raw = decodeBody(res.body, res.contentType);
  const looksHtml = /^\s*</.test(raw.slice(0, 512));
  if (mime === 'text/html' || mime === 'application/xhtml+xml' || (mime === '' && looksHtml)) {
    return { ...extractContent(raw, res.url, rule), raw };
  }
  if (mime === 'text/plain') {
    assertRuleAllowsFetch(res.url, rule);
    const { mode, warning } = ruleMode(rule);
    const warnings = warning ? [warning] : [];
    if (mode === 'selector') warnings.push('The rule selector does not apply to plain text');
    const text = normalizePlainText(raw);
    return {
      title: titleFromUrl(res.url),
      text,
      html: '',
      excerpt: text ? firstWords(text.split('\n\n')[0] ?? '', 200) : undefined,
      method: 'plain',
      warnings,
      links: [],
      canonical: null,
      robotsMeta: { noindex: false, nofollow: false },
      raw,
    };
  }
  throw new FetchError(
    'unsupported_content',
    `${res.url} returned ${mime ? `'${mime}' content` : 'content with no Content-Type'}, ` +
      'which cannot be extracted: only HTML and plain text pages are supported',
    res.url,
  );
}

/**
 * Decodes as a browser would (scraping/charset.ts): a byte order mark, else the header's charset,
 * else a <meta> near the top, else UTF-8; labels per the WHATWG Encoding standard.
 */
export function decodeBody(body: Buffer, contentType: string): string {
  return decodeHtmlBytes(body, contentType);
}

// --- DOM work -------------------------------------------------------------------------------

/** The few DOM members used here, typed locally: the server compiles without the DOM lib. */
interface DomNode {
  nodeType: number;
  localName?: string;
  childNodes: ArrayLike<DomNode>;
  textContent: string | null;
}
interface DomElement extends DomNode {
  localName: string;
  outerHTML: string;
  innerHTML: string;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  hasAttribute(name: string): boolean;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
  contains(other: DomNode): boolean;
  closest(selector: string): DomElement | null;
  remove(): void;
  appendChild(node: DomNode): void;
}
interface DomDocument {
  documentElement: DomElement | null;
  head: DomElement | null;
  body: DomElement | null;
  title: string;
  createElement(tag: string): DomElement;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;

/** Never content. */
const ALWAYS_DROP = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'svg',
  'canvas',
  'object',
  'embed',
  'head',
  'link',
  'meta',
  'button',
  'select',
  'input',
  'textarea',
]);
/** Page furniture: dropped inside an extracted region, kept when a selector names it. */
const BOILERPLATE = new Set(['nav', 'footer', 'aside', 'form', 'dialog']);
const BOILERPLATE_SELECTOR =
  '[role="navigation"], [role="contentinfo"], [role="complementary"], [role="banner"], [aria-hidden="true"], [hidden]';
const BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'html',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'tfoot',
  'thead',
  'tr',
  'ul',
]);

function parseDocument(html: string, url: string): DomDocument {
  // linkedom only builds a sane tree from a whole document.
  const source = /<html[\s>]/i.test(html)
    ? html
    : `<!DOCTYPE html><html><head></head><body>${html}</body></html>`;
  const { document } = parseHTML(source) as unknown as { document: DomDocument };
  // Readability resolves relative links against document.baseURI, which linkedom takes from <base>.
  if (document.head && !document.querySelector('base[href]')) {
    const base = document.createElement('base');
    base.setAttribute('href', url);
    document.head.appendChild(base);
  }
  return document;
}

/** Whitespace-separated tokens of an attribute (rel, content), lower-cased. */
function tokens(value: string | null, separators: string): string[] {
  const out: string[] = [];
  let word = '';
  for (const ch of (value ?? '').toLowerCase()) {
    if (separators.includes(ch)) {
      if (word) out.push(word);
      word = '';
    } else word += ch;
  }
  if (word) out.push(word);
  return out;
}

const SPACES = ' \t\n\f\r';

/**
 * A page's links for a crawler: `<a href>` and `<area href>` resolved against the page's
 * `<base href>` (or its URL), normalised (crawl/url-normalise.ts), http(s) only, deduplicated in
 * document order, the page itself left out, `rel="nofollow"` skipped, at most PAGE_MAX_LINKS.
 * They are listed even when `<meta name="robots" content="nofollow">` says not to follow them:
 * robotsMeta says it, and the crawler decides.
 */
function pageLinks(
  doc: DomDocument,
  url: string,
): { links: string[]; canonical: string | null; robotsMeta: RobotsMeta } {
  const baseHref = doc.querySelector('base[href]')?.getAttribute('href')?.trim() ?? '';
  const self = normaliseUrl(url);
  const base = normaliseUrl(baseHref, url) ?? self ?? url;
  const seen = new Set<string>();
  if (self) seen.add(self);
  const links: string[] = [];
  for (const a of Array.from(doc.querySelectorAll('a[href], area[href]'))) {
    if (links.length >= PAGE_MAX_LINKS) break;
    if (tokens(a.getAttribute('rel'), SPACES).includes('nofollow')) continue;
    const link = normaliseUrl((a.getAttribute('href') ?? '').trim(), base);
    if (link && !seen.has(link)) {
      seen.add(link);
      links.push(link);
    }
  }
  let canonical: string | null = null;
  for (const el of Array.from(doc.querySelectorAll('link[rel][href]'))) {
    if (!tokens(el.getAttribute('rel'), SPACES).includes('canonical')) continue;
    canonical = normaliseUrl((el.getAttribute('href') ?? '').trim(), base);
    if (canonical) break;
  }
  const robotsMeta = { noindex: false, nofollow: false };
  for (const el of Array.from(doc.querySelectorAll('meta[name][content]'))) {
    if ((el.getAttribute('name') ?? '').trim().toLowerCase() !== 'robots') continue;
    for (const t of tokens(el.getAttribute('content'), `${SPACES},`)) {
      if (t === 'noindex' || t === 'none') robotsMeta.noindex = true;
      if (t === 'nofollow' || t === 'none') robotsMeta.nofollow = true;
    }
  }
  return { links, canonical, robotsMeta };
}

function readArticle(doc: DomDocument) {
  const { Readability } = readabilityModule();
  let parsed;
  try {
    parsed = new Readability<DomElement>(doc as never, {
      serializer: (node) => node as unknown as DomElement,
    }).parse();
  } catch {
    return null;
  }
  const root = parsed?.content;
  if (!parsed || !root) return null;
  removeBoilerplate(root);
  const text = toSectionedText(root);
  if (!text) return null;
  return { ...parsed, text, html: root.innerHTML.trim() };
}

/**
 * Readability as it comes, with only scripts and <nav>/<aside>/<footer> dropped and headings
 * left in the text: the reference the extraction bench measures the clean extraction against.
 */
export function readabilityReference(html: string, url: string): string {
  const doc = parseDocument(html, url);
  const { Readability } = readabilityModule();
  const parsed = new Readability<DomElement>(doc as never, {
    serializer: (node) => node as unknown as DomElement,
  }).parse();
  const root = parsed?.content;
  if (!root) return '';
  removeBoilerplate(root);
  return toText(root);
}

/** Elements that hold the article itself: furniture words on them are not trusted. */
const ARTICLE_HOLDERS = 'article, main, [role="main"], h1';

/**
 * Removes page furniture found by structure (scraping/boilerplate.ts): edit links, infoboxes,
 * navboxes, reference lists, breadcrumbs, sidebars, share bars, comments, cookie banners… An
 * element holding the article (a layout wrapper named "has-sidebar") stays.
 */
function stripFurniture(root: DomElement): void {
  for (const el of Array.from(root.querySelectorAll('*'))) {
    if (el === root || !isFurniture(el)) continue;
    if (el.localName !== 'sup' && el.querySelector(ARTICLE_HOLDERS)) continue;
    el.remove();
  }
}

const HEADINGS: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };

/**
 * Like toText, but a heading becomes a section line with its path (h2 › h3 …; the h1 is the
 * page's title and only resets the path), apparatus sections (References, See also…) go with
 * their subsections, and each block is cleaned of footnote markers, edit links and taglines.
 */
function toSectionedText(root: DomNode): string {
  const blocks: string[] = [];
  const path: { level: number; text: string }[] = [];
  let pending: string | null = null;
  let dropLevel = 0;
  let current = '';
  const flush = () => {
    const raw = current;
    current = '';
    if (dropLevel) return;
    const block = cleanBlock(
      raw
        .split('\n')
        .map((line) => line.replace(/\s+/g, ' ').trim())
        .filter(Boolean)
        .join('\n'),
    );
    if (!block) return;
    if (pending !== null) {
      blocks.push(sectionLine(pending));
      pending = null;
    }
    blocks.push(block);
  };
  const heading = (level: number, node: DomNode) => {
    flush();
    const text = cleanBlock(
      (node.textContent ?? '').replaceAll(SECTION_MARK, '').replace(/\s+/g, ' ').trim(),
    );
    if (dropLevel && level > dropLevel) return;
    dropLevel = 0;
    while (path.length && (path.at(-1)?.level ?? 0) >= level) path.pop();
    if (isApparatusHeading(text)) {
      dropLevel = level;
      return;
    }
    if (level > 1 && text) path.push({ level, text });
    const next = path.map((p) => p.text).join(SECTION_SEPARATOR);
    // Before the first heading there is no section line; back to no path, an empty one.
    pending = next || (blocks.length ? '' : null);
  };
  const walk = (node: DomNode) => {
    if (node.nodeType === TEXT_NODE) {
      current += (node.textContent ?? '').replaceAll(SECTION_MARK, '').replace(/\s+/g, ' ');
      return;
    }
    if (node.nodeType !== ELEMENT_NODE) return;
    const tag = (node.localName ?? '').toLowerCase();
    if (ALWAYS_DROP.has(tag)) return;
    const level = HEADINGS[tag];
    if (level) {
      heading(level, node);
      return;
    }
    if (tag === 'br') {
      current += '\n';
      return;
    }
    if (tag === 'td' || tag === 'th') current += ' ';
    const block = BLOCKS.has(tag);
    if (block) flush();
    for (const child of Array.from(node.childNodes)) walk(child);
    if (block) flush();
  };
  walk(root);
  flush();
  return blocks.join('\n\n');
}

/** Drops scripts, styles and page furniture inside `root`; `root` itself stays. */
function removeBoilerplate(root: DomElement): void {
  const selector = [...ALWAYS_DROP, ...BOILERPLATE, BOILERPLATE_SELECTOR].join(', ');
  for (const el of Array.from(root.querySelectorAll(selector))) {
    if (el !== root) el.remove();
  }
}

/** Text with a blank line between blocks, a line break for <br>, collapsed whitespace. */
export function toText(root: DomNode): string {
  const blocks: string[] = [];
  let current = '';
  const flush = () => {
    const block = current
      .split('\n')
      .map((line) => line.replace(/\s+/g, ' ').trim())
      .filter(Boolean)
      .join('\n');
    if (block) blocks.push(block);
    current = '';
  };
  const walk = (node: DomNode) => {
    if (node.nodeType === TEXT_NODE) {
      current += (node.textContent ?? '').replace(/\s+/g, ' ');
      return;
    }
    if (node.nodeType !== ELEMENT_NODE) return;
    const tag = (node.localName ?? '').toLowerCase();
    if (ALWAYS_DROP.has(tag)) return;
    if (tag === 'br') {
      current += '\n';
      return;
    }
    if (tag === 'td' || tag === 'th') current += ' ';
    const block = BLOCKS.has(tag);
    if (block) flush();
    for (const child of Array.from(node.childNodes)) walk(child);
    if (block) flush();
  };
  walk(root);
  flush();
  return blocks.join('\n\n');
}

function documentTitle(doc: DomDocument, url: string): string {
  const title = (doc.title ?? '').replace(/\s+/g, ' ').trim();
  if (title) return title;
  const h1 = doc.querySelector('h1')?.textContent?.replace(/\s+/g, ' ').trim();
  return h1 || titleFromUrl(url);
}

function titleFromUrl(url: string): string {
  try {
    const u = new URL(url);
    const last = u.pathname.split('/').filter(Boolean).pop();
    return last ? decodeURIComponent(last) : u.hostname;
  } catch {
    return url;
  }
}

function normalizePlainText(raw: string): string {
  return raw
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function firstWords(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}
