import { decodeAs, sniffEncoding } from '../scraping/charset.js';
import type { DocumentParser } from './parsed-document.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * An uploaded text file's characters. It comes with no Content-Type, so: a byte order mark
 * when there is one (scraping/charset.ts, as for pages), else UTF-8 when the bytes are valid
 * UTF-8, else windows-1252, the legacy default browsers fall back to.
 */
export function decodeText(body: Uint8Array): string {
  const sniffed = sniffEncoding(body.subarray(0, 3), 'text/plain');
  if (sniffed.source === 'bom') return decodeAs(body, sniffed.encoding).replace(/^\uFEFF/, '');
  try {
    return strictUtf8.decode(body);
  } catch {
    return decodeAs(body, 'windows-1252');
  }
}

/** Paragraphs (blank-line separated) with their lines kept; no headings, no pages. */
export const parseText: DocumentParser = async (body) => {
  const text = decodeText(body).replaceAll('\r\n', '\n').replaceAll('\r', '\n');
  return { title: null, sections: [{ heading: null, page: null, text }], warnings: [] };
};
