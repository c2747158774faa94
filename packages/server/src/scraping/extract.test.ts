import { describe, expect, it } from 'vitest';
import { sectionLine } from '../pipeline/sections.js';
import {
  BOILERPLATE,
  FIXTURE_ARTICLES,
  SELECTOR_PAGE,
  renderArticlePage,
} from '../../test/fixtures/fixture-articles.js';
import { generatePage, renderGeneratedPage } from '../../test/fixtures/fixture-pages.js';
import {
  assertRuleAllowsFetch,
  decodeBody,
  extractContent,
  extractResponse,
  toText,
} from './extract.js';
import { FetchError } from './fetch-error.js';
import type { FetchResult } from './safe-fetcher.js';

const URL_ = 'https://fieldnotes.example/articles/x';

function response(body: string | Buffer, contentType: string): FetchResult {
  return {
    url: URL_,
    status: 200,
    headers: { 'content-type': contentType },
    contentType,
    body: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    redirects: [],
  };
}

function thrown(fn: () => unknown): FetchError {
  try {
    fn();
  } catch (err) {
    if (err instanceof FetchError) return err;
    throw err;
  }
  throw new Error('expected a FetchError');
}

describe('extractContent (default extraction)', () => {
  it.each(FIXTURE_ARTICLES.map((a) => [a.path, a] as const))(
    'keeps the article of %s and drops navigation, ads and footer',
    (_path, article) => {
      const r = extractContent(renderArticlePage(article), URL_);
      expect(r.method).toBe('readability');
      expect(r.title).toBe(article.title);
      expect(r.lang).toBe(article.lang);
      expect(r.text).toContain(article.marker);
      for (const p of article.body) expect(r.text).toContain(p.replace(/^## /, ''));
      for (const junk of Object.values(BOILERPLATE)) expect(r.text).not.toContain(junk);
      expect(r.html).not.toContain('<script');
      expect(r.html).not.toContain(BOILERPLATE.footer);
    },
  );

  it('separates paragraphs and headings with one blank line and collapses whitespace', () => {
    const article = FIXTURE_ARTICLES[0]!;
    const r = extractContent(renderArticlePage(article), URL_);
    const blocks = r.text.split('\n\n');
    // A heading is a section line (pipeline/sections.ts), not prose.
    const expected = article.body.map((p) => (p.startsWith('## ') ? sectionLine(p.slice(3)) : p));
    // The article's own header (byline) may come first; the body follows block by block.
    expect(blocks.slice(-expected.length)).toEqual(expected);
    expect(r.text).not.toMatch(/\n{3,}| {2,}|^\s|\s$/);
  });

  it('gives distinct text for generated pages', () => {
    const a = extractContent(renderGeneratedPage(1), URL_).text;
    const b = extractContent(renderGeneratedPage(2), URL_).text;
    expect(a).not.toBe(b);
    expect(a).toContain(generatePage(1).body.find((p) => !p.startsWith('## ')));
    expect(extractContent(renderGeneratedPage(1), URL_).text).toBe(a);
  });

  it('turns <br> into a line break inside a block', () => {
    const r = extractContent(
      '<html><body><article><p>Monday:   9–17<br>Tuesday:\n  9–12</p></article></body></html>',
      URL_,
    );
    expect(r.text).toBe('Monday: 9–17\nTuesday: 9–12');
  });

  it('falls back to the body when readability finds nothing', () => {
    const r = extractContent('<html><head><title>Empty</title></head><body></body></html>', URL_);
    expect(r).toMatchObject({ method: 'body', text: '', title: 'Empty' });
  });
});

describe('extractContent with rules', () => {
  const page = SELECTOR_PAGE.html();

  it('keeps only the elements a selector matches, in document order', () => {
    const r = extractContent(page, URL_, { mode: 'selector', target: '.content' });
    expect(r.method).toBe('selector');
    expect(r.text).toBe(
      [
        SELECTOR_PAGE.first,
        sectionLine('Legend'),
        SELECTOR_PAGE.second,
        SELECTOR_PAGE.sidebar,
      ].join('\n\n'),
    );
    expect(r.text).not.toContain(SELECTOR_PAGE.outside);
    expect(r.html).toContain('<div class="content">');
    expect(r.html).not.toContain('tracking');
  });

  it('honours descendant selectors', () => {
    const r = extractContent(page, URL_, { mode: 'selector', target: 'article .content' });
    expect(r.text).toBe(
      [SELECTOR_PAGE.first, sectionLine('Legend'), SELECTOR_PAGE.second].join('\n\n'),
    );
  });

  it('answers 422 when the selector matches nothing', () => {
    const err = thrown(() =>
      extractContent(page, URL_, { mode: 'selector', target: 'main .story-body' }),
    );
    expect(err.code).toBe('selector_no_match');
    expect(err.status).toBe(422);
    expect(err.message).toBe(
      `No element of ${URL_} matches the selector 'main .story-body' of its scraping rule`,
    );
  });

  it('answers 422 for a selector that is not CSS', () => {
    const err = thrown(() => extractContent(page, URL_, { mode: 'selector', target: 'div[[' }));
    expect(err.code).toBe('bad_selector');
    expect(err.status).toBe(422);
    expect(err.message).toContain("selector 'div[[' for");
  });

  it('refuses a deny rule', () => {
    const err = thrown(() =>
      extractContent(page, URL_, { mode: 'deny', target: null, domain: 'fieldnotes.example' }),
    );
    expect(err.code).toBe('denied_by_rule');
    expect(err.message).toBe(
      `Fetching ${URL_} is denied by the scraping rule fieldnotes.example (deny)`,
    );
    expect(() => assertRuleAllowsFetch(URL_, { mode: ' Deny ', target: null })).toThrow(FetchError);
    expect(() => assertRuleAllowsFetch(URL_, { mode: 'allow', target: null })).not.toThrow();
    expect(() => assertRuleAllowsFetch(URL_, null)).not.toThrow();
  });

  it('extracts an unknown mode like allow and says so', () => {
    const r = extractContent(page, URL_, { mode: 'archive', target: null });
    expect(r.method).toBe('readability');
    expect(r.text).toContain(SELECTOR_PAGE.first);
    expect(r.warnings).toEqual(["Unknown rule mode 'archive': the default extraction was used"]);
  });

  it('extracts a selector rule without target like allow and says so', () => {
    const r = extractContent(page, URL_, { mode: 'selector', target: '  ' });
    expect(r.method).toBe('readability');
    expect(r.warnings[0]).toMatch(/no target selector/);
  });
});

describe('extractResponse', () => {
  it('passes plain text through', () => {
    const r = extractResponse(response('Line one\r\n\r\n\r\n\r\nLine   two  \n', 'text/plain'));
    expect(r).toMatchObject({ method: 'plain', text: 'Line one\n\nLine two', title: 'x' });
  });

  it('refuses content it cannot extract', () => {
    const err = thrown(() => extractResponse(response('%PDF-1.4', 'application/pdf')));
    expect(err.code).toBe('unsupported_content');
    expect(err.status).toBe(422);
    expect(err.message).toBe(
      `${URL_} returned 'application/pdf' content, which cannot be extracted: only HTML and plain text pages are supported`,
    );
  });

  it('sniffs HTML without a Content-Type', () => {
    const r = extractResponse(response('<html><body><p>Untyped page.</p></body></html>', ''));
    expect(r.text).toBe('Untyped page.');
    const err = thrown(() => extractResponse(response('\u0000\u0001binary', '')));
    expect(err.code).toBe('unsupported_content');
  });

  it('decodes the charset of the header or of a meta tag', () => {
    const latin = Buffer.from(
      '<html><body><p>Fontaine de Besançon, été</p></body></html>',
      'latin1',
    );
    expect(extractResponse(response(latin, 'text/html; charset=ISO-8859-1')).text).toBe(
      'Fontaine de Besançon, été',
    );
    const meta = Buffer.from(
      '<html><head><meta charset="windows-1252"></head><body><p>Crème brûlée</p></body></html>',
      'latin1',
    );
    expect(decodeBody(meta, 'text/html')).toContain('Crème brûlée');
    expect(decodeBody(Buffer.from('ok'), 'text/html; charset=bogus-charset')).toBe('ok');
  });
});

describe('toText', () => {
  it('drops scripts and keeps block structure', () => {
    const r = extractContent(
      '<html><body><main><h1>Title</h1><ul><li>one</li><li>two</li></ul><script>x()</script><table><tr><td>a</td><td>b</td></tr></table></main></body></html>',
      URL_,
    );
    // Readability turns the lone <h1> into an <h2>: a section, not text.
    expect(r.text).toBe(`${sectionLine('Title')}\n\none\n\ntwo\n\na b`);
    expect(toText({ nodeType: 3, textContent: '  lone \n text ', childNodes: [] })).toBe(
      'lone text',
    );
  });
});
