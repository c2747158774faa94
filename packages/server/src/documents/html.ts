import { decodeHtmlBytes } from '../scraping/charset.js';
import { extractContent } from '../scraping/extract.js';
import { isFetchError } from '../scraping/fetch-error.js';
import { sectionsFromHtml } from './html-sections.js';
import { DocumentError, type DocumentParser } from './parsed-document.js';

/**
 * An HTML file goes through the same extraction as a fetched page (charset sniffing, markup
 * bounds, readability), then its article is cut at its headings.
 */
export const parseHtml: DocumentParser = async (body, opts) => {
  const raw = decodeHtmlBytes(body, 'text/html');
  try {
    const page = extractContent(raw, `file:${opts.fileName}`, null);
    const { sections, firstH1 } = sectionsFromHtml(page.html, opts.fileName);
    const title = page.title && page.title !== opts.fileName ? page.title : firstH1;
    return { title, sections, warnings: page.warnings };
  } catch (e) {
    if (isFetchError(e)) throw new DocumentError('unsupported', e.message);
    throw e;
  }
};
