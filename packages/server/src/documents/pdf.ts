import { DocumentError, type DocumentSection, type DocumentParser } from './parsed-document.js';
import { collapseSpace } from './html-sections.js';

/**
 * PDF text with Mozilla's pdf.js (pdfjs-dist, legacy build: runs in Node without a canvas, as
 * Firefox's own reader does; maintained with the browser). Text comes from each page's text
 * layer; headings are the short lines set larger than the document's body text, since a PDF
 * has no heading markup (the outline, when there is one, rarely covers every heading).
 */

/** A line this much larger than the body text, and this short, reads as a heading. */
const HEADING_SIZE_RATIO = 1.15;
const HEADING_MAX_CHARS = 150;

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | null = null;
/**
 * Loaded at the first PDF: a thread that never reads one never pays for it. The task calls it
 * before its clock starts (loading the module is not work on the file).
 */
export const loadPdfJs = () => (pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs'));

interface Line {
  text: string;
  size: number;
}

interface TextItemLike {
  str?: string;
  height?: number;
  hasEOL?: boolean;
}

function pageLines(items: readonly TextItemLike[]): Line[] {
  const lines: Line[] = [];
  let text = '';
  let size = 0;
  const end = () => {
    const t = collapseSpace(text);
    if (t) lines.push({ text: t, size });
    text = '';
    size = 0;
  };
  for (const item of items) {
    if (typeof item.str !== 'string') continue;
    text += item.str;
    if (item.str.trim()) size = Math.max(size, Math.round((item.height ?? 0) * 10) / 10);
    if (item.hasEOL) end();
  }
  end();
  return lines;
}

/** The font size most of the document's characters are set in. */
function bodySize(pages: Line[][]): number {
  const chars = new Map<number, number>();
  for (const lines of pages)
    for (const l of lines) chars.set(l.size, (chars.get(l.size) ?? 0) + l.text.length);
  let best = 0;
  let most = -1;
  for (const [size, n] of chars) if (n > most) [best, most] = [size, n];
  return best;
}

const hasLetter = (s: string) => s.toLowerCase() !== s.toUpperCase();

export const parsePdf: DocumentParser = async (body, opts) => {
  const { getDocument, VerbosityLevel } = await loadPdfJs();
  const task = getDocument({
    // A plain Uint8Array of its own: pdf.js refuses a Buffer and may detach what it is given.
    data: new Uint8Array(body),
    // Hostile input: no code generated from fonts, no fonts loaded into anything, no fetches.
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    stopAtErrors: false,
    verbosity: VerbosityLevel.ERRORS,
  });
  let doc;
  try {
    doc = await task.promise;
  } catch (e) {
    const name = (e as Error).name;
    if (name === 'PasswordException') {
      throw new DocumentError(
        'encrypted',
        `${opts.fileName} is protected by a password: remove the protection and upload it again`,
      );
    }
    throw new DocumentError(
      'corrupt',
      `${opts.fileName} is not a readable PDF: ${(e as Error).message || name}`,
    );
  }
  try {
    if (doc.numPages > opts.maxPages) {
      throw new DocumentError(
        'too_many_pages',
        `${opts.fileName} has ${doc.numPages} pages; the limit is ${opts.maxPages}`,
      );
    }
    const pages: Line[][] = [];
    let chars = 0;
    for (let n = 1; n <= doc.numPages && chars < opts.maxTextChars; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const lines = pageLines(content.items as TextItemLike[]);
      pages.push(lines);
      for (const l of lines) chars += l.text.length;
      page.cleanup();
    }
    const empty = pages.filter((p) => p.length === 0).length;
    if (chars === 0) {
      throw new DocumentError(
        'no_text_layer',
        `${opts.fileName} has no text layer: its ${doc.numPages === 1 ? 'page is an image' : `${doc.numPages} pages are images`} (a scan?). ADAM reads no text from images: run it through OCR first`,
      );
    }
    const size = bodySize(pages);
    const sections: DocumentSection[] = [];
    let heading: string | null = null;
    let firstHeading: string | null = null;
    pages.forEach((lines, i) => {
      let text: string[] = [];
      const end = () => {
        if (text.length) sections.push({ heading, page: i + 1, text: text.join('\n') });
        text = [];
      };
      for (const l of lines) {
        const isHeading =
          size > 0 &&
          l.size >= size * HEADING_SIZE_RATIO &&
          l.text.length <= HEADING_MAX_CHARS &&
          hasLetter(l.text);
        if (isHeading) {
          end();
          heading = l.text;
          firstHeading ??= l.text;
        } else {
          text.push(l.text);
        }
      }
      end();
    });
    let title: string | null = null;
    try {
      const info = (await doc.getMetadata()).info as { Title?: unknown } | undefined;
      if (typeof info?.Title === 'string') title = collapseSpace(info.Title) || null;
    } catch {
      // A damaged info dictionary costs the title only.
    }
    const warnings =
      empty > 0
        ? [`${opts.fileName}: ${empty} of ${pages.length} pages have no text layer (images?)`]
        : [];
    return { title: title ?? firstHeading, sections, warnings };
  } finally {
    await doc.destroy();
  }
};
