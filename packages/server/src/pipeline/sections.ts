/**
 * Section headings inside a document's text. Extraction (scraping/extract.ts, wikipedia.ts)
 * writes a heading as its own paragraph: SECTION_MARK then the heading path ("Pollination ›
 * Biotic pollination"). The mark is an invisible control character, so the stored text still
 * reads as headings on their own lines, and the segmenter knows them apart from prose: a
 * snippet gets the path as its `section` and never spans two sections. Extraction removes the
 * mark from page text, so a page cannot forge one.
 */
import { SECTION_MAX_CHARS } from '@adam/contracts/constants';
import { wordCount } from './text.js';

export const SECTION_MARK = '\u001D';
/** Between the levels of a heading path. */
export const SECTION_SEPARATOR = ' › ';

export interface TextSection {
  /** The heading path, or null for the text before the first heading. */
  section: string | null;
  text: string;
}

/** The paragraph that opens a section. */
export function sectionLine(path: string): string {
  return `${SECTION_MARK}${path.slice(0, SECTION_MAX_CHARS)}`;
}

/**
 * Splits text at its section lines (a line that starts with SECTION_MARK). One pass over the
 * lines; a section with no text is left out.
 */
export function splitSections(text: string): TextSection[] {
  if (!text.includes(SECTION_MARK)) return [{ section: null, text }];
  const out: TextSection[] = [];
  let section: string | null = null;
  let lines: string[] = [];
  const flush = () => {
    const body = lines.join('\n').trim();
    if (body) out.push({ section, text: body });
    lines = [];
  };
  for (const line of text.split('\n')) {
    if (line.startsWith(SECTION_MARK)) {
      flush();
      const path = line.slice(SECTION_MARK.length).replaceAll(SECTION_MARK, '').trim();
      section = path ? path.slice(0, SECTION_MAX_CHARS) : null;
    } else lines.push(line);
  }
  flush();
  return out;
}

/**
 * Sections too short to make a snippet of their own (fewer than `minChars` characters or
 * `minWords` words) joined to a neighbour, so their words are not lost: to the section before,
 * whose path the joined text keeps, or, for a short first section, to the one after.
 */
export function joinShortSections(
  sections: readonly TextSection[],
  minChars: number,
  minWords: number,
): TextSection[] {
  const short = (s: TextSection) => s.text.length < minChars || wordCount(s.text) < minWords;
  const out: TextSection[] = [];
  let carried: string | null = null;
  for (const s of sections) {
    const text: string = carried === null ? s.text : `${carried}\n\n${s.text}`;
    carried = null;
    const prev = out[out.length - 1];
    if (short(s) && prev) prev.text = `${prev.text}\n\n${text}`;
    else if (short({ section: s.section, text }) && !prev) carried = text;
    else out.push({ section: s.section, text });
  }
  if (carried !== null)
    out.push({ section: sections[sections.length - 1]!.section, text: carried });
  return out;
}
