import { describe, expect, it } from 'vitest';
import { bestGrowthVersusLinear, describeGrowth } from '@adam/contracts/testing';
import { extractResponse, PAGE_MAX_LINKS } from './extract.js';
import type { FetchResult } from './safe-fetcher.js';

const URL_ = 'https://example.org/docs/guide/page.html';

const response = (
  html: string,
  url = URL_,
  contentType = 'text/html; charset=utf-8',
): FetchResult => ({
  url,
  status: 200,
  contentType,
  body: Buffer.from(html),
  headers: {},
  redirects: [],
});

const ARTICLE = `<p>${'Photosynthesis turns light into chemical energy in plants. '.repeat(20)}</p>`;

describe('extractResponse: links, canonical and robots meta', () => {
  it('lists the links a crawler follows: absolute, normalised, deduplicated, in order', () => {
    const r = extractResponse(
      response(`<!DOCTYPE html><html><head><title>Guide</title></head><body>
        <nav><a href="/">Home</a> <a href="../api/">API</a></nav>
        <article><h1>Guide</h1>${ARTICLE}
          <a href="next.html#part-2">Next</a>
          <a href="next.html">Next again</a>
          <a href="HTTPS://EXAMPLE.ORG:443/other?utm_source=x&amp;id=3">Other</a>
          <a href="https://elsewhere.test/x">Elsewhere</a>
          <a href="#top">Top</a>
          <a href="page.html">Itself</a>
          <a href="mailto:a@example.org">Mail</a>
          <a href="javascript:void(0)">JS</a>
          <a href="ftp://example.org/f">FTP</a>
          <a href="/private" rel="external NoFollow">Private</a>
          <a href="  /spaced  ">Spaced</a>
          <a>No href</a>
          <map><area href="/area" alt="x"></map>
        </article></body></html>`),
    );
    expect(r.method).toBe('readability');
    expect(r.links).toEqual([
      'https://example.org/',
      'https://example.org/docs/api/',
      'https://example.org/docs/guide/next.html',
      'https://example.org/other?id=3',
      'https://elsewhere.test/x',
      'https://example.org/spaced',
      'https://example.org/area',
    ]);
    expect(r.canonical).toBeNull();
    expect(r.robotsMeta).toEqual({ noindex: false, nofollow: false });
  });

  it('resolves against <base href>, and reads the canonical link', () => {
    const r = extractResponse(
      response(`<html><head>
        <base href="/v2/">
        <link rel="alternate" href="/fr/">
        <link rel="Canonical" href="guide?utm_medium=x#top">
        </head><body><a href="a.html">A</a>${ARTICLE}</body></html>`),
    );
    expect(r.links).toEqual(['https://example.org/v2/a.html']);
    expect(r.canonical).toBe('https://example.org/v2/guide');
  });

  it('ignores a canonical link that is no http(s) URL', () => {
    const r = extractResponse(
      response(
        `<html><head><link rel="canonical" href="javascript:x"></head><body>${ARTICLE}</body></html>`,
      ),
    );
    expect(r.canonical).toBeNull();
  });

  it.each([
    ['noindex, nofollow', { noindex: true, nofollow: true }],
    ['NOINDEX', { noindex: true, nofollow: false }],
    ['index,nofollow', { noindex: false, nofollow: true }],
    ['none', { noindex: true, nofollow: true }],
    ['all', { noindex: false, nofollow: false }],
  ])('reads <meta name="robots" content="%s">', (content, expected) => {
    const r = extractResponse(
      response(
        `<html><head><meta name="Robots" content="${content}"></head><body>${ARTICLE}</body></html>`,
      ),
    );
    expect(r.robotsMeta).toEqual(expected);
  });

  it('ignores robots meta for other names', () => {
    const r = extractResponse(
      response(
        `<html><head><meta name="googlebot" content="noindex"></head><body>${ARTICLE}</body></html>`,
      ),
    );
    expect(r.robotsMeta).toEqual({ noindex: false, nofollow: false });
  });

  it('lists links in selector mode and on a page readability finds no article in', () => {
    const html = `<html><body><div class="c"><a href="/x">x</a> Some text here.</div><a href="/y">y</a></body></html>`;
    const selected = extractResponse(response(html), { mode: 'selector', target: '.c' });
    expect(selected.method).toBe('selector');
    expect(selected.links).toEqual(['https://example.org/x', 'https://example.org/y']);
    const body = extractResponse(response(html));
    expect(body.links).toEqual(['https://example.org/x', 'https://example.org/y']);
  });

  it('has no links, canonical or robots meta for plain text', () => {
    const r = extractResponse(
      response('https://example.org/a is a URL in text', URL_, 'text/plain'),
    );
    expect(r).toMatchObject({
      links: [],
      canonical: null,
      robotsMeta: { noindex: false, nofollow: false },
    });
  });

  it(`keeps at most ${PAGE_MAX_LINKS} links of a page`, () => {
    const anchors = Array.from(
      { length: PAGE_MAX_LINKS + 500 },
      (_, i) => `<a href="/p${i}">${i}</a>`,
    ).join(' ');
    // A selector rule spares readability, whose own work on 5,500 anchors takes seconds.
    const r = extractResponse(
      response(`<html><body><div id="t">${ARTICLE}</div>${anchors}</body></html>`),
      {
        mode: 'selector',
        target: '#t',
      },
    );
    expect(r.links).toHaveLength(PAGE_MAX_LINKS);
    expect(r.links.at(-1)).toBe(`https://example.org/p${PAGE_MAX_LINKS - 1}`);
  });

  it('collects links in time linear in the page', () => {
    const rule = { mode: 'selector', target: '#t' };
    const g = bestGrowthVersusLinear(
      (html: string) => extractResponse(response(html), rule).links.length,
      (n) =>
        `<html><body><p id="t">text</p>${'<a href="/a?b=1&amp;utm_source=x" rel="x y">l</a> '.repeat(n / 48)}</body></html>`,
      { n: 4_096 },
    );
    expect(g.excess, describeGrowth(g)).toBeLessThan(6);
  });
});
