import mammoth from 'mammoth';
import { sectionsFromHtml } from './html-sections.js';
import { DocumentError, type DocumentParser } from './parsed-document.js';
import { looksOle } from './sniff.js';
import { inflateZipBounded } from './zip-guard.js';

/**
 * DOCX text with mammoth (maintained since 2013, used widely to turn Word files into clean
 * HTML): its HTML keeps the document's headings (Heading 1–6 become h1–h6), which the common
 * HTML walk cuts into sections. The zip is checked first (zip-guard.ts): mammoth inflates
 * whatever the zip holds.
 */

const CORE = 'docProps/core.xml';
const MAIN = 'word/document.xml';
const TYPES = '[Content_Types].xml';

const XML_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

/** The text of the first `<dc:title>` of the core properties, entities decoded (a scan). */
function coreTitle(xml: string): string | null {
  const open = xml.indexOf('<dc:title>');
  if (open < 0) return null;
  const close = xml.indexOf('</dc:title>', open);
  if (close < 0) return null;
  const raw = xml.slice(open + '<dc:title>'.length, close);
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const semi = raw[i] === '&' ? raw.indexOf(';', i) : -1;
    const entity = semi > i && semi - i <= 6 ? XML_ENTITIES[raw.slice(i + 1, semi)] : undefined;
    if (entity) {
      out += entity;
      i = semi;
    } else {
      out += raw[i];
    }
  }
  return out.trim() || null;
}

export const parseDocx: DocumentParser = async (body, opts) => {
  if (looksOle(body)) {
    throw new DocumentError(
      'encrypted',
      `${opts.fileName} is password-protected (or an old .doc file renamed): remove the protection or save it as .docx, then upload it again`,
    );
  }
  const { entries, kept } = inflateZipBounded(body, {
    fileName: opts.fileName,
    maxBytes: opts.maxInflatedBytes,
    maxEntries: opts.maxEntries,
    keep: [CORE],
  });
  const names = new Set(entries.map((e) => e.name));
  if (!names.has(TYPES) || !names.has(MAIN)) {
    throw new DocumentError('corrupt', `${opts.fileName} is a zip without a Word document in it`);
  }
  let html: string;
  try {
    const buffer = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    html = (await mammoth.convertToHtml({ buffer })).value;
  } catch (e) {
    throw new DocumentError(
      'corrupt',
      `${opts.fileName} is not a readable DOCX: ${(e as Error).message}`,
    );
  }
  const { sections, firstH1 } = sectionsFromHtml(html, opts.fileName);
  const core = kept.get(CORE);
  const title = (core && coreTitle(core.toString('utf8'))) || firstH1;
  return { title, sections, warnings: [] };
};
