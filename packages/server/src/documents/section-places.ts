import type { AnalyzeResult } from '../pipeline/index.js';
import { collapseSpace } from './html-sections.js';
import type { DocumentSection } from './parsed-document.js';

/**
 * Sections are analysed together (the segmenter sees the flow of the text, and a short section
 * still joins its neighbours in a segment), then each segment is placed back in the section
 * where it begins: its page and heading go into the snippet's metadata.
 */

/** Where a segment began. */
export interface SectionPlace {
  page: number | null;
  heading: string | null;
}

/**
 * Characters of text analysed in one engine task: a long document is several tasks, each under
 * the task budget, as several pages of a crawl would be. A page's text is usually far shorter.
 */
const CHUNK_CHARS = 100_000;

/** The text analysed for some sections: blank lines between them, as between paragraphs. */
export const joinSections = (sections: readonly DocumentSection[]) =>
  sections.map((s) => s.text).join('\n\n');

/**
 * Sections in groups of at most `maxChars` characters of text, in order; a section longer than
 * that is cut into pieces at paragraph breaks when it has them (else anywhere), each keeping
 * its page and heading.
 */
export function chunkSections(
  sections: readonly DocumentSection[],
  maxChars = CHUNK_CHARS,
): DocumentSection[][] {
  const pieces: DocumentSection[] = [];
  for (const s of sections) {
    let text = s.text;
    while (text.length > maxChars) {
      const para = text.lastIndexOf('\n\n', maxChars);
      const cut = para > maxChars / 2 ? para : maxChars;
      pieces.push({ ...s, text: text.slice(0, cut) });
      text = text.slice(cut).trimStart();
    }
    if (text) pieces.push({ ...s, text });
  }
  const chunks: DocumentSection[][] = [];
  let current: DocumentSection[] = [];
  let size = 0;
  for (const p of pieces) {
    if (current.length && size + p.text.length > maxChars) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(p);
    size += p.text.length + 2;
  }
  if (current.length) chunks.push(current);
  return chunks;
}

/** How much of a segment's start is looked for in the text (enough to be unique in practice). */
const KEY_CHARS = 80;

/**
 * The section each segment of `analysis` begins in. Text is compared with whitespace collapsed
 * (the segmenter joins sentences with single spaces); the search moves forward from the last
 * segment found, since segments come in the order of the text, and falls back to the whole text
 * (overlapping segments), then to the previous segment's place.
 */
export function placeSegments(
  sections: readonly DocumentSection[],
  analysis: Pick<AnalyzeResult, 'segments'>,
): SectionPlace[] {
  const starts: number[] = [];
  let flat = '';
  for (const s of sections) {
    if (flat) flat += ' ';
    starts.push(flat.length);
    flat += collapseSpace(s.text);
  }
  const sectionAt = (pos: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return sections[lo];
  };
  const places: SectionPlace[] = [];
  let cursor = 0;
  let last: SectionPlace = sections[0]
    ? { page: sections[0].page, heading: sections[0].heading }
    : { page: null, heading: null };
  for (const seg of analysis.segments) {
    const key = collapseSpace(seg.text).slice(0, KEY_CHARS);
    let pos = key ? flat.indexOf(key, cursor) : -1;
    if (pos < 0 && key) pos = flat.indexOf(key);
    if (pos >= 0) {
      const s = sectionAt(pos);
      if (s) last = { page: s.page, heading: s.heading };
      cursor = pos + 1;
    }
    places.push(last);
  }
  return places;
}
