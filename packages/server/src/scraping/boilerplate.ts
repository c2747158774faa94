/**
 * Page furniture that is not the article: found by structure first (element names, roles, aria
 * labels, class and id words such as mw-editsection, infobox, navbox, reflist, breadcrumb,
 * cookie, share, comments, related), then by a few bounded text scans for what has no markup
 * of its own (footnote markers like "[1]", "[citation needed]", "[edit]", encyclopedia taglines).
 * No regular expression runs over page text here: every scan is a plain loop with a bounded
 * look-ahead, so its cost is linear in the text.
 */

/** Elements that are furniture wherever they are. */
const FURNITURE_TAGS = new Set(['nav', 'aside', 'footer', 'form', 'dialog', 'menu']);

/** ARIA roles of furniture. */
const FURNITURE_ROLES = new Set([
  'navigation',
  'contentinfo',
  'complementary',
  'banner',
  'dialog',
  'alertdialog',
  'search',
  'menu',
  'menubar',
  'toolbar',
  'doc-footnote',
  'doc-endnotes',
  'doc-bibliography',
]);

/**
 * Whole class/id words (after splitting on '-', '_', ' ') that mark furniture. Whole words, so
 * "shareholders" or "commentary" in a class name is not mistaken for a share bar or comments.
 */
const FURNITURE_WORDS = new Set([
  // MediaWiki
  'editsection',
  'infobox',
  'navbox',
  'reflist',
  'references',
  'reference',
  'refbegin',
  'catlinks',
  'toc',
  'toctitle',
  'sitesub',
  'contentsub',
  'jump',
  'hatnote',
  'ambox',
  'metadata',
  'noprint',
  'sistersitebox',
  'printfooter',
  'authority',
  'portal',
  'navigation',
  // sites in general
  'breadcrumb',
  'breadcrumbs',
  'sidebar',
  'cookie',
  'cookies',
  'consent',
  'gdpr',
  'share',
  'sharing',
  'social',
  'comments',
  'comment',
  'respond',
  'disqus',
  'related',
  'newsletter',
  'subscribe',
  'subscription',
  'promo',
  'advert',
  'advertisement',
  'ads',
  'sponsored',
  'footnotes',
  'endnotes',
  'pagination',
  'pager',
  'skip',
  'masthead',
  'menu',
  'nav',
  'navbar',
  'footer',
  'banner',
  'popup',
  'modal',
  'toolbar',
  'tags',
  'byline',
]);

/** Words that only mark furniture next to another word ("portal-bar", "tags-list"). */
const WEAK_WORDS = new Set(['authority', 'portal', 'metadata', 'tags']);

/** aria-label words of furniture (breadcrumbs, share bars, cookie banners, tables of contents). */
const FURNITURE_LABEL_WORDS = new Set([
  'breadcrumb',
  'breadcrumbs',
  'share',
  'cookie',
  'cookies',
  'consent',
  'contents',
  'navigation',
  'sidebar',
  'comments',
  'related',
]);

/** Lower-case words of a class, id or label: split on anything not a letter or digit. */
function attributeWords(value: string | null, max = 64): string[] {
  const out: string[] = [];
  let word = '';
  const s = (value ?? '').slice(0, 512).toLowerCase();
  for (const ch of s) {
    const letter = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
    if (letter) word += ch;
    else if (word) {
      out.push(word);
      word = '';
      if (out.length >= max) return out;
    }
  }
  if (word) out.push(word);
  return out;
}

interface ElementLike {
  localName: string;
  getAttribute(name: string): string | null;
}

/** Is this element page furniture by its name, role, aria label, class or id? */
export function isFurniture(el: ElementLike): boolean {
  const tag = el.localName.toLowerCase();
  if (FURNITURE_TAGS.has(tag)) return true;
  if (tag === 'sup' && attributeWords(el.getAttribute('class')).includes('reference')) return true;
  const role = (el.getAttribute('role') ?? '').trim().toLowerCase();
  if (FURNITURE_ROLES.has(role)) return true;
  if (el.getAttribute('aria-hidden') === 'true' || el.getAttribute('hidden') !== null) return true;
  if (el.getAttribute('aria-modal') === 'true') return true;
  for (const w of attributeWords(el.getAttribute('aria-label'))) {
    if (FURNITURE_LABEL_WORDS.has(w)) return true;
  }
  const words = [
    ...attributeWords(el.getAttribute('class')),
    ...attributeWords(el.getAttribute('id')),
  ];
  let weak = 0;
  for (const w of words) {
    if (!FURNITURE_WORDS.has(w)) continue;
    if (WEAK_WORDS.has(w)) weak++;
    else return true;
  }
  return weak >= 2;
}

/**
 * Headings whose section is apparatus, not prose (en, fr, es, de): it goes with its
 * subsections.
 */
const APPARATUS_SECTIONS = new Set(
  [
    'references',
    'see also',
    'external links',
    'bibliography',
    'notes',
    'notes and references',
    'further reading',
    'sources',
    'citations',
    'footnotes',
    'comments',
    'related',
    'related articles',
    'related posts',
    'related stories',
    'read more',
    'more stories',
    'leave a reply',
    'leave a comment',
    'share this',
    'share this article',
    'navigation menu',
    'contents',
    'table of contents',
    'on this page',
    'références',
    'voir aussi',
    'liens externes',
    'notes et références',
    'bibliographie',
    'articles connexes',
    'annexes',
    'referencias',
    'véase también',
    'enlaces externos',
    'bibliografía',
    'notas',
    'einzelnachweise',
    'weblinks',
    'literatur',
    'siehe auch',
    'anmerkungen',
    'quellen',
  ].map((s) => s.normalize('NFC')),
);

/** A heading's text as APPARATUS_SECTIONS holds it: lower case, trailing ':' and '[edit]' gone. */
export function isApparatusHeading(text: string): boolean {
  let name = stripMarkers(collapse(text)).toLowerCase().normalize('NFC');
  while (name.endsWith(':')) name = name.slice(0, -1).trimEnd();
  return APPARATUS_SECTIONS.has(name);
}

/** Bracketed notes that are links or markers, not prose. */
const BRACKET_NOTES = new Set([
  'edit',
  'edit source',
  'citation needed',
  'clarification needed',
  'verification needed',
  'better source needed',
  'dubious',
  'dubious – discuss',
  'who?',
  'when?',
  'which?',
  'where?',
  'why?',
  'according to whom?',
  'by whom?',
  'page needed',
  'full citation needed',
  'failed verification',
  'original research?',
  'update',
  'note',
  'sic',
  'modifier',
  'modifier le code',
  'bearbeiten',
  'quelltext bearbeiten',
  'editar',
]);
/** A bracket longer than this is prose in brackets, never a marker. */
const BRACKET_MAX = 40;

/** "[1]", "[12]", "[a]", "[note 3]", "[nb 1]": a footnote marker. */
function isFootnoteMarker(inner: string): boolean {
  if (inner.length === 0) return false;
  let digits = 0;
  for (const ch of inner) if (ch >= '0' && ch <= '9') digits++;
  if (digits === inner.length) return true;
  // a single letter, or a short word then a number ("note 3", "nb 1", "lower-alpha 2")
  if (inner.length === 1 && inner >= 'a' && inner <= 'z') return true;
  const space = inner.lastIndexOf(' ');
  if (space > 0 && space < 14) {
    const tail = inner.slice(space + 1);
    let n = 0;
    for (const ch of tail) if (ch >= '0' && ch <= '9') n++;
    return tail.length > 0 && n === tail.length;
  }
  return false;
}

/**
 * Removes footnote markers and bracketed edit/maintenance notes ("[1]", "[edit]", "[citation
 * needed]"). Each '[' looks ahead at most BRACKET_MAX characters: linear in the text.
 */
export function stripMarkers(text: string): string {
  if (!text.includes('[')) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === '[') {
      let close = -1;
      const end = Math.min(text.length, i + 1 + BRACKET_MAX);
      for (let k = i + 1; k < end; k++) {
        const c = text[k];
        if (c === ']') {
          close = k;
          break;
        }
        if (c === '[' || c === '\n') break;
      }
      if (close > 0) {
        const inner = collapse(text.slice(i + 1, close)).toLowerCase();
        if (BRACKET_NOTES.has(inner) || isFootnoteMarker(inner)) {
          i = close + 1;
          continue;
        }
      }
    }
    out += ch;
    i++;
  }
  // A removed marker may leave "word ." or a double space behind.
  return tidySpaces(out);
}

/** Collapses runs of spaces and drops a space before closing punctuation. One pass. */
function tidySpaces(text: string): string {
  let out = '';
  // The last character written, kept aside: reading `out` would flatten it on every step.
  let last = '\n';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === ' ') {
      const next = text[i + 1];
      if (next === ' ' || next === '.' || next === ',' || next === ';' || next === ':') continue;
      if (last === '\n') continue;
    }
    out += ch;
    last = ch;
  }
  return out.trim();
}

function collapse(text: string): string {
  let out = '';
  let space = false;
  for (const ch of text) {
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\u00a0') {
      space = out.length > 0;
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += ch;
  }
  return out;
}

/** Whole blocks that are furniture text wherever they stand (lower case). */
const FURNITURE_BLOCKS = new Set([
  'jump to navigation',
  'jump to search',
  'jump to content',
  'skip to content',
  'skip to main content',
  'advertisement',
  'share this:',
  'share this',
  'share',
  'like this:',
  'print',
  'tweet',
  'email',
  'infobox content',
  'this article is about',
  'read more',
  'related',
  'related articles',
  'accept all cookies',
  'accept cookies',
]);

const TAGLINE_HEAD = 'from ';
const TAGLINE_TAIL = ', the free encyclopedia';
/** A tagline's wiki name is short: "From Wikipedia, the free encyclopedia". */
const TAGLINE_MAX = 80;

/**
 * A block as article text: markers removed, a leading "From X, the free encyclopedia" tagline
 * removed, '' when the whole block is furniture text.
 */
export function cleanBlock(block: string): string {
  let text = stripMarkers(block);
  const lower = text.slice(0, TAGLINE_MAX + TAGLINE_TAIL.length).toLowerCase();
  if (lower.startsWith(TAGLINE_HEAD)) {
    const at = lower.indexOf(TAGLINE_TAIL);
    if (at > 0 && at <= TAGLINE_MAX) text = text.slice(at + TAGLINE_TAIL.length).trim();
  }
  if (text.length <= 40 && FURNITURE_BLOCKS.has(text.toLowerCase())) return '';
  return text;
}
