/**
 * Section headings inside a document's text. Extraction (scraping/extract.ts, wikipedia.ts)
 * writes a heading as its own paragraph: SECTION_MARK then the heading path ("Pollination ›
 * Biotic pollination"). The mark is an invisible control character, so the stored text still
 * reads as headings on their own lines, and the segmenter knows them apart from prose: a
 * snippet gets the path as its `section` and never spans two sections. Extraction removes the
 * mark from page text, so a page cannot forge one.
 */
export const SECTION_MARK = '\u001D';
/** Between the levels of a heading path. */
export const SECTION_SEPARATOR = ' › ';
/** A heading path longer than this is cut: it is metadata, not content. */
export const SECTION_MAX_CHARS = 300;

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

/** The text without its section lines (what a reader of the prose sees). */
export function withoutSectionLines(text: string): string {
  return splitSections(text)
    .map((s) => s.text)
    .join('\n\n');
}
