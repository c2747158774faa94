import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bestGrowthVersusLinear, describeGrowth } from '@adam/contracts/testing';
import { isFetchError } from '../scraping/fetch-error.js';
import {
  decodeEntities,
  gunzipBounded,
  parseSitemap,
  parseSitemapBytes,
  SITEMAP_MAX_BYTES,
  SITEMAP_MAX_ENTRIES,
} from './sitemap.js';

const BASE = 'https://example.org/sitemap.xml';

const urlset = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${body}</urlset>`;

describe('parseSitemap', () => {
  it('reads a urlset: loc and lastmod of each url, normalised', () => {
    const r = parseSitemap(
      urlset(`
        <url><loc>https://Example.org/a#x</loc><lastmod>2024-05-01</lastmod><priority>0.5</priority></url>
        <url>
          <loc>
            https://example.org/b?utm_source=x&amp;id=2
          </loc>
          <changefreq>daily</changefreq>
        </url>`),
      BASE,
    );
    expect(r).toEqual({
      kind: 'urlset',
      format: 'xml',
      entries: [
        { loc: 'https://example.org/a', lastmod: '2024-05-01' },
        { loc: 'https://example.org/b?id=2', lastmod: null },
      ],
      truncated: false,
      ignored: 0,
    });
  });

  it('reads a sitemap index', () => {
    const r = parseSitemap(
      `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <sitemap><loc>https://example.org/s1.xml.gz</loc><lastmod>2024-01-01T10:00:00+00:00</lastmod></sitemap>
        <sitemap><loc>https://example.org/s2.xml</loc></sitemap>
        <sitemap><loc>https://example.org/sitemap.xml</loc></sitemap>
      </sitemapindex>`,
      BASE,
    );
    expect(r.kind).toBe('index');
    expect(r.entries).toEqual([
      { loc: 'https://example.org/s1.xml.gz', lastmod: '2024-01-01T10:00:00+00:00' },
      { loc: 'https://example.org/s2.xml', lastmod: null },
    ]);
    // The index listing itself would loop.
    expect(r.ignored).toBe(1);
  });

  it('reads a plain-text sitemap, one URL a line', () => {
    const r = parseSitemap(
      '\uFEFFhttps://example.org/a\r\n\nhttps://example.org/b\n/relative\nmailto:x@y\nhttps://example.org/a\n',
      BASE,
    );
    expect(r.format).toBe('text');
    expect(r.kind).toBe('urlset');
    expect(r.entries.map((e) => e.loc)).toEqual(['https://example.org/a', 'https://example.org/b']);
    expect(r.ignored).toBe(3);
  });

  it('ignores relative, non-http(s) and duplicate entries, and a bad lastmod', () => {
    const r = parseSitemap(
      urlset(`
        <url><loc>/relative</loc></url>
        <url><loc>ftp://example.org/f</loc></url>
        <url><loc>javascript:alert(1)</loc></url>
        <url><loc></loc></url>
        <url><changefreq>daily</changefreq></url>
        <url><loc>https://example.org/ok</loc><lastmod>yesterday</lastmod></url>
        <url><loc>https://example.org/ok</loc></url>`),
      BASE,
    );
    expect(r.entries).toEqual([{ loc: 'https://example.org/ok', lastmod: null }]);
    expect(r.ignored).toBe(6);
  });

  it('takes the entry own loc, not an extension nested deeper, and reads CDATA, comments, prefixes', () => {
    const r = parseSitemap(
      `<?xml version="1.0"?>
      <!DOCTYPE urlset [<!ENTITY x "https://evil.test/">]>
      <sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
        <sm:url>
          <image:image><image:loc>https://cdn.example.org/pic.jpg</image:loc></image:image>
          <sm:loc><![CDATA[https://example.org/p?a=1&b=2]]></sm:loc>
        </sm:url>
        <!-- <url><loc>https://example.org/commented</loc></url> -->
        <url><loc><!-- c -->https://example.org/q</loc></url>
        <url><loc>&x;</loc></url>
        <url/>
      </sm:urlset>`,
      BASE,
    );
    expect(r.entries.map((e) => e.loc)).toEqual([
      'https://example.org/p?a=1&b=2',
      'https://example.org/q',
    ]);
  });

  it('decodes the XML entities and numeric references, nothing else', () => {
    expect(decodeEntities('a&amp;b&lt;&gt;&quot;&apos;&#65;&#x42;&nbsp;&unknown;&')).toBe(
      'a&b<>"\'AB&nbsp;&unknown;&',
    );
  });

  it('stops at 50,000 entries and says it was truncated', () => {
    const body = Array.from(
      { length: SITEMAP_MAX_ENTRIES + 10 },
      (_, i) => `<url><loc>https://example.org/p${i}</loc></url>`,
    ).join('');
    const r = parseSitemap(urlset(body), BASE);
    expect(r.entries).toHaveLength(SITEMAP_MAX_ENTRIES);
    expect(r.entries.at(-1)!.loc).toBe(`https://example.org/p${SITEMAP_MAX_ENTRIES - 1}`);
    expect(r.truncated).toBe(true);
    // Exactly at the bound: nothing was left out.
    const ten = Array.from(
      { length: 10 },
      (_, i) => `<url><loc>https://example.org/t${i}</loc></url>`,
    );
    const exact = parseSitemap(urlset(ten.join('')), BASE, { maxEntries: 10 });
    expect(exact.entries).toHaveLength(10);
    expect(exact.truncated).toBe(false);
    expect(parseSitemap(urlset(ten.join('')), BASE, { maxEntries: 9 }).truncated).toBe(true);
  });

  it('reads at most maxBytes of text, never more than 50 MiB', () => {
    const body = Array.from(
      { length: 100 },
      (_, i) => `<url><loc>https://example.org/p${i}</loc></url>`,
    ).join('');
    const r = parseSitemap(urlset(body), BASE, { maxBytes: 1_000 });
    expect(r.truncated).toBe(true);
    expect(r.entries.length).toBeGreaterThan(5);
    expect(r.entries.length).toBeLessThan(30);
    const text = parseSitemap('https://example.org/a\nhttps://example.org/bbbbbbbbbb', BASE, {
      maxBytes: 30,
    });
    // The line cut at the bound is not a URL to trust.
    expect(text.entries.map((e) => e.loc)).toEqual(['https://example.org/a']);
    expect(parseSitemap('', BASE, { maxBytes: SITEMAP_MAX_BYTES * 2 }).truncated).toBe(false);
  });

  it('scans hostile XML in linear time', () => {
    const units = [
      '<',
      '<!--',
      '<url><loc>',
      '<loc>',
      '<url>',
      '<![CDATA[',
      '&amp;&',
      '<a b="c">',
      '</x>',
    ];
    for (const unit of units) {
      const g = bestGrowthVersusLinear(
        (xml: string) => parseSitemap(`<urlset><url><loc>${xml}`, BASE),
        (n) => unit.repeat(Math.ceil(n / unit.length)),
        { n: 4_096 },
      );
      expect(g.excess, `${unit}: ${describeGrowth(g)}`).toBeLessThan(6);
    }
    const entries = bestGrowthVersusLinear(
      (xml: string) => parseSitemap(xml, BASE),
      (n) => urlset('<url><loc>https://example.org/x</loc></url>'.repeat(n / 32)),
      { n: 4_096 },
    );
    expect(entries.excess, describeGrowth(entries)).toBeLessThan(6);
  });
});

describe('gunzipBounded and parseSitemapBytes', () => {
  const xml = urlset('<url><loc>https://example.org/gz</loc></url>');

  it('inflates a .xml.gz sitemap, by flag, content type or magic number', () => {
    const gz = zlib.gzipSync(Buffer.from(xml));
    for (const meta of [
      { url: 'https://example.org/s.xml.gz', contentType: 'application/octet-stream', gz: true },
      { url: 'https://example.org/s', contentType: 'application/x-gzip' },
      { url: 'https://example.org/s', contentType: '' },
    ]) {
      expect(parseSitemapBytes(gz, meta).entries).toEqual([
        { loc: 'https://example.org/gz', lastmod: null },
      ]);
    }
    expect(
      parseSitemapBytes(Buffer.from(xml), { url: BASE, contentType: 'text/xml' }).entries,
    ).toHaveLength(1);
  });

  it('refuses a decompression bomb once the output passes the bound', () => {
    // 64 MiB of zeros in ~64 KiB of gzip: 16 members of 4 MiB (gunzip reads them all).
    const bomb = Buffer.concat(Array(16).fill(zlib.gzipSync(Buffer.alloc(4 * 1024 * 1024))));
    expect(bomb.byteLength).toBeLessThan(200 * 1024);
    let thrown: unknown;
    try {
      gunzipBounded(bomb, 4 * 1024 * 1024);
    } catch (e) {
      thrown = e;
    }
    expect(isFetchError(thrown, 'too_large')).toBe(true);
    expect((thrown as Error).message).toBe(
      'The gzip content inflates past 4 MiB: refused (a decompression bomb?)',
    );
    expect(() =>
      parseSitemapBytes(bomb, { url: BASE, contentType: '', gz: true }, { maxBytes: 1024 * 1024 }),
    ).toThrow(`${BASE}: The gzip content inflates past 1 MiB`);
  });

  it('answers a clear error for bytes that are not gzip', () => {
    let thrown: unknown;
    try {
      gunzipBounded(Buffer.from('not gzip at all'), 1024);
    } catch (e) {
      thrown = e;
    }
    expect(isFetchError(thrown, 'bad_response')).toBe(true);
    expect((thrown as Error).message).toMatch(/^The content is not valid gzip: /);
  });

  it('inflates up to the bound exactly', () => {
    const exact = zlib.gzipSync(Buffer.alloc(1024, 0x61));
    expect(gunzipBounded(exact, 1024).byteLength).toBe(1024);
    expect(() => gunzipBounded(exact, 1023)).toThrow(/inflates past/);
  });
});
