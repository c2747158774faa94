import MarkdownIt from 'markdown-it';
import { sectionsFromHtml } from './html-sections.js';
import type { DocumentParser } from './parsed-document.js';
import { decodeText } from './text.js';

/**
 * Markdown with markdown-it (CommonMark-compliant, the parser of many documentation tools),
 * rendered to HTML with raw HTML off (a `<script>` in a Markdown file stays text) and cut at its
 * headings like any HTML.
 */
const md = new MarkdownIt('commonmark', { html: false });

export const parseMarkdown: DocumentParser = async (body, opts) => {
  const { sections, firstH1 } = sectionsFromHtml(md.render(decodeText(body)), opts.fileName);
  return { title: firstH1, sections, warnings: [] };
};
