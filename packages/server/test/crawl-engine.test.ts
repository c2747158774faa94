import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROBOTS_MAX_BYTES } from '../src/crawl/robots.js';
import { Engine } from '../src/engine/engine.js';
import { TaskStopped } from '../src/engine/task-deadline.js';
import { FetchError } from '../src/scraping/fetch-error.js';
import type { FetchResult } from '../src/scraping/safe-fetcher.js';
import { linkSharedModel, tempDir } from './helpers.js';

/**
 * The crawl's CPU work on the engine's threads: a page's links, canonical and robots meta come
 * back from the extraction task, and a sitemap (gzip too) and a robots.txt are parsed by tasks of
 * their own.
 */

let engine: Engine;

beforeAll(async () => {
  const dataDir = tempDir('adam-crawl-engine-');
  linkSharedModel(dataDir);
  engine = new Engine({ dataDir, threads: 1 });
});
afterAll(async () => {
  await engine?.close();
});

const page = (html: string): FetchResult => ({
  url: 'https://example.org/docs/',
  status: 200,
  contentType: 'text/html; charset=utf-8',
  body: Buffer.from(html),
  headers: {},
  redirects: [],
});

describe('crawl tasks on the engine threads', () => {
  it('extracts a page with its links, canonical link and robots meta', async () => {
    const r = await engine.extract(
      page(`<!DOCTYPE html><html lang="en"><head><title>Docs</title>
        <link rel="canonical" href="https://Example.org/docs/index.html?utm_source=feed">
        <meta name="robots" content="noindex">
        </head><body><nav><a href="/">Home</a></nav><main><h1>Docs</h1>
        <p>${'Plants make sugar from light, water and carbon dioxide. '.repeat(15)}</p>
        <a href="intro.html">Intro</a> <a href="/login" rel="nofollow">Log in</a>
        <a href="https://other.test/ref#x">Reference</a></main></body></html>`),
      null,
    );
    expect(r.text).toContain('Plants make sugar');
    expect(r.links).toEqual([
      'https://example.org/',
      'https://example.org/docs/intro.html',
      'https://other.test/ref',
    ]);
    expect(r.canonical).toBe('https://example.org/docs/index.html');
    expect(r.robotsMeta).toEqual({ noindex: true, nofollow: false });
  });

  it('parses a gzip sitemap on a thread', async () => {
    const xml = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <url><loc>https://example.org/a</loc><lastmod>2025-01-02</lastmod></url>
      <url><loc>https://example.org/b</loc></url></urlset>`;
    const r = await engine.parseSitemap(zlib.gzipSync(xml), {
      url: 'https://example.org/sitemap.xml.gz',
      contentType: 'application/octet-stream',
      gz: true,
    });
    expect(r).toEqual({
      kind: 'urlset',
      format: 'xml',
      entries: [
        { loc: 'https://example.org/a', lastmod: '2025-01-02' },
        { loc: 'https://example.org/b', lastmod: null },
      ],
      truncated: false,
      ignored: 0,
    });
    const index = await engine.parseSitemap(
      Buffer.from(
        '<sitemapindex><sitemap><loc>https://example.org/s1.xml</loc></sitemap></sitemapindex>',
      ),
      { url: 'https://example.org/sitemap.xml', contentType: 'application/xml' },
    );
    expect(index.kind).toBe('index');
  });

  it('refuses a gzip bomb with a 422 FetchError that crossed the thread', async () => {
    // 200 MiB of zeros, four times the sitemap bound, in ~200 KiB: 20 gzip members of 10 MiB.
    const bomb = Buffer.concat(Array(20).fill(zlib.gzipSync(Buffer.alloc(10 * 1024 * 1024))));
    const err = await engine
      .parseSitemap(bomb, { url: 'https://example.org/bomb.xml.gz', contentType: '' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).code).toBe('too_large');
    expect((err as FetchError).status).toBe(422);
    expect((err as FetchError).message).toBe(
      'https://example.org/bomb.xml.gz: The gzip content inflates past 50 MiB: refused (a decompression bomb?)',
    );
    // The thread is still there for the next task.
    const ok = await engine.parseSitemap(Buffer.from('https://example.org/x\n'), {
      url: 'https://example.org/sitemap.txt',
      contentType: 'text/plain',
    });
    expect(ok.entries).toEqual([{ loc: 'https://example.org/x', lastmod: null }]);
  });

  it('gives up on a sitemap task whose caller gave up', async () => {
    const err = await engine
      .parseSitemap(
        Buffer.from('x'),
        { url: 'https://example.org/s', contentType: '' },
        {
          signal: AbortSignal.abort(),
        },
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TaskStopped);
  });

  it('reads a robots.txt on a thread: rules, Crawl-delay and Sitemap lines come back', async () => {
    const r = await engine.parseRobots(
      Buffer.from(
        'User-agent: *\nDisallow: /private/\nAllow: /private/open$\nCrawl-delay: 2\n' +
          'Sitemap: https://example.org/sitemap.xml\nUser-agent: adam\nDisallow: /adam-only\n',
      ),
      'OtherBot/1.0',
    );
    expect(r.allowed('/private/secret')).toBe(false);
    expect(r.allowed('/private/open')).toBe(true);
    expect(r.allowed('/adam-only')).toBe(true);
    expect(r.crawlDelayS).toBe(2);
    expect(r.sitemaps).toEqual(['https://example.org/sitemap.xml']);
  });

  it('reads a hostile robots.txt (8 MiB, 100k lines, long lines) while the event loop turns', async () => {
    const lines = ['User-agent: *'];
    for (let i = 0; lines.length < 100_000; i++) {
      lines.push(i % 10 === 0 ? `Disallow: /${'a*'.repeat(1_000)}${i}$` : `Disallow: /d${i}/*x`);
    }
    lines.push('Disallow: /past-the-bound');
    const hostile = Buffer.from(lines.join('\n'));
    expect(hostile.byteLength).toBeGreaterThan(8 * 1024 * 1024);

    // Turns of the event loop while the parse runs: a parse on the loop would allow none.
    let turns = 0;
    let parsing = true;
    const spin = () => {
      if (!parsing) return;
      turns++;
      setImmediate(spin);
    };
    setImmediate(spin);
    const r = await engine.parseRobots(hostile, 'ADAM/1.0');
    parsing = false;
    expect(turns).toBeGreaterThan(1);

    // Read as far as the 500 KiB bound: its rules hold, the ones past it do not.
    expect(r.allowed('/d1/ax')).toBe(false);
    expect(r.allowed('/d1/a')).toBe(true);
    expect(r.allowed('/past-the-bound')).toBe(true);
    expect(ROBOTS_MAX_BYTES).toBe(500 * 1024);
  });

  it('gives up on a robots.txt task whose caller gave up', async () => {
    const err = await engine
      .parseRobots(Buffer.from('User-agent: *\nDisallow: /'), 'ADAM/1.0', {
        signal: AbortSignal.abort(),
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TaskStopped);
  });
});
