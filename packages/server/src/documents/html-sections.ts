import { parseHTML } from '../scraping/lazy-dom.js';
import { toText } from '../scraping/extract.js';
import { isFetchError } from '../scraping/fetch-error.js';
import { assertMarkupBounded, MARKUP_LIMITS } from '../scraping/markup-bounds.js';
import { DocumentError, type DocumentSection } from './parsed-document.js';

/**
 * HTML cut into sections at its headings (h1–h6): the shape Markdown and DOCX take too, once
 * their parsers made HTML of them. Text inside a section is laid out as extraction lays out a
 * page (scraping/extract.ts toText): a blank line between blocks.
 */

/** A generated document's tree is as deep as a page's may be, and may be much larger. */
const DOCUMENT_MARKUP_LIMITS = { depth: MARKUP_LIMITS.depth, elements: 1_000_000 };

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const HEADING_SELECTOR = 'h1, h2, h3, h4, h5, h6';
const DROP = new Set(['script', 'style', 'noscript', 'template', 'head']);
/** Elements that flow inside a line: gathered with the text beside them, not as blocks. */
const INLINE = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'cite',
  'code',
  'data',
  'dfn',
  'em',
  'i',
  'kbd',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'var',
  'wbr',
]);

interface Node {
  nodeType: number;
  localName?: string;
  textContent: string | null;
  childNodes: ArrayLike<Node>;
  querySelector?(selector: string): Node | null;
}

/** Whitespace runs as one space, trimmed: a scan, no regular expression over the input. */
export function collapseSpace(s: string): string {
  let out = '';
  let space = false;
  for (const ch of s) {
    if (ch === ' ' || ch === '\n' || ch === '\t' || ch === '\r' || ch === '\f' || ch === '\u00a0') {
      space = out.length > 0;
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += ch;
  }
  return out;
}

/** The sections of an HTML fragment or document, and its first h1 (a title when none is given). */
export function sectionsFromHtml(
  html: string,
  fileName: string,
): { sections: DocumentSection[]; firstH1: string | null } {
  try {
    assertMarkupBounded(html, fileName, DOCUMENT_MARKUP_LIMITS);
  } catch (e) {
    if (isFetchError(e)) throw new DocumentError('too_large', e.message);
    throw e;
  }
  const source = html.includes('<html') ? html : `<!DOCTYPE html><html><body>${html}</body></html>`;
  const { document } = parseHTML(source) as unknown as { document: { body: Node | null } };
  const sections: DocumentSection[] = [];
  let heading: string | null = null;
  let firstH1: string | null = null;
  let blocks: string[] = [];
  let inline = '';
  const endInline = () => {
    const t = collapseSpace(inline);
    if (t) blocks.push(t);
    inline = '';
  };
  const endSection = () => {
    endInline();
    const text = blocks.join('\n\n').trim();
    if (text) sections.push({ heading, page: null, text });
    blocks = [];
  };
  const visit = (node: Node) => {
    if (node.nodeType === TEXT_NODE) {
      inline += node.textContent ?? '';
      return;
    }
    if (node.nodeType !== ELEMENT_NODE) return;
    const tag = (node.localName ?? '').toLowerCase();
    if (DROP.has(tag)) return;
    if (HEADINGS.has(tag)) {
      endSection();
      heading = collapseSpace(node.textContent ?? '') || null;
      if (tag === 'h1' && firstH1 === null) firstH1 = heading;
      return;
    }
    if (node.querySelector?.(HEADING_SELECTOR)) {
      // A container with headings inside: its children, each in the section it falls in.
      if (!INLINE.has(tag)) endInline();
      for (const child of Array.from(node.childNodes)) visit(child);
      if (!INLINE.has(tag)) endInline();
      return;
    }
    if (INLINE.has(tag)) {
      inline += node.textContent ?? '';
      return;
    }
    endInline();
    const text = toText(node as Parameters<typeof toText>[0]);
    if (text) blocks.push(text);
  };
  if (document.body) for (const child of Array.from(document.body.childNodes)) visit(child);
  endSection();
  return { sections, firstH1 };
}
