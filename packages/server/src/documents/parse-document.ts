import type { DocumentType } from '@adam/contracts';
import { parseDocx } from './docx.js';
import { parseHtml } from './html.js';
import { parseMarkdown } from './markdown.js';
import {
  boundSections,
  type DocumentParser,
  type ParsedDocument,
  type ParseOptions,
} from './parsed-document.js';
import { parsePdf } from './pdf.js';
import { parseText } from './text.js';

const PARSERS: Readonly<Record<DocumentType, DocumentParser>> = {
  pdf: parsePdf,
  docx: parseDocx,
  markdown: parseMarkdown,
  html: parseHtml,
  text: parseText,
};

/**
 * A document's title and sections, whatever its format, its text held to `maxTextChars`.
 * Throws a DocumentError for a file that cannot be read (corrupt, encrypted, no text layer,
 * past a bound). CPU work on hostile bytes: the engine runs it on a worker thread under the
 * task budget (engine.parseDocument).
 */
export async function parseDocument(
  type: DocumentType,
  body: Uint8Array,
  opts: ParseOptions,
): Promise<ParsedDocument> {
  const parsed = await PARSERS[type](body, opts);
  const bounded = boundSections(parsed.sections, opts.maxTextChars, opts.fileName);
  return {
    title: parsed.title?.slice(0, 500) || null,
    sections: bounded.sections,
    warnings: [...parsed.warnings, ...bounded.warnings],
  };
}
