import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BOILERPLATE,
  FIXTURE_ARTICLES,
  SELECTOR_PAGE,
  startFixtureSite,
  type FixtureSite,
} from '../../test/fixtures/fixture-site.js';
import { NotFound } from '../lib/errors.js';
import { sectionLine } from '../pipeline/sections.js';
import { FetchError } from './fetch-error.js';
import type { ScrapingRuleLike } from './rules.js';
import { SafeFetcher, type HostLookup } from './safe-fetcher.js';
import { HTML_PREVIEW_MAX_CHARS, NO_RULE_TEXT, fetchUrl } from './url-fetch.js';

let site: FixtureSite;
let fetcher: SafeFetcher;
let base: string;

// Made-up names for the fixture site, so rules can be keyed by domain; the allow-list opens
// only the fixture's address and port.
const lookup: HostLookup = async (host) => {
  if (
    [
      'fieldnotes.example',
      'www.fieldnotes.example',
      'maps.fieldnotes.example',
      'blocked.example',
    ].includes(host)
  ) {
    return [{ address: '127.0.0.1', family: 4 }];
  }
  throw Object.assign(new Error('no such host'), { code: 'ENOTFOUND' });
};

beforeAll(async () => {
  site = await startFixtureSite();
  fetcher = new SafeFetcher({
    allow: [`127.0.0.1:${site.port}`],
    lookup,
    timeoutMs: 3000,
    maxBytes: 1024 * 1024,
  });
  base = `http://fieldnotes.example:${site.port}`;
});
afterAll(async () => {
  await site.close();
});

const rules: ScrapingRuleLike[] = [
  {
    id: 1,
    domain: 'maps.fieldnotes.example',
    mode: 'selector',
    target: 'article .content',
    enabled: true,
  },
  { id: 2, domain: 'blocked.example', mode: 'deny', target: null, enabled: true },
  { id: 3, domain: 'elsewhere.org', mode: 'selector', target: '.content', enabled: true },
  { id: 4, domain: 'elsewhere.org', mode: 'deny', target: null, enabled: true },
];

describe('fetchUrl', () => {
  it('answers the URL playground fields with the default extraction', async () => {
    const article = FIXTURE_ARTICLES[1]!;
    const r = await fetchUrl(fetcher, `${base}${article.path}`, rules);
    expect(r.rule).toBe(NO_RULE_TEXT);
    expect(r.rule).toBe('No specific rule found – using default');
    expect(r.rule_id).toBeNull();
    expect(r.domain).toBe('fieldnotes.example');
    expect(r.title).toBe(article.title);
    expect(r.content).toContain(article.marker);
    expect(r.content).not.toContain(BOILERPLATE.nav);
    expect(r.html).toContain('<nav class="main-nav">');
    expect(r.original_length).toBe(r.html.length);
    expect(r.clean_length).toBe(r.content.length);
    expect(r.clean_length).toBeLessThan(r.original_length);
    expect(r.html_truncated).toBe(false);
    expect(r.url).toBe(`${base}${article.path}`);
  });

  it('applies the rule matching the host and names it', async () => {
    const r = await fetchUrl(
      fetcher,
      `http://maps.fieldnotes.example:${site.port}/selector`,
      rules,
    );
    expect(r.rule).toBe('maps.fieldnotes.example (selector:article .content)');
    expect(r.rule_id).toBe(1);
    expect(r.domain).toBe('maps.fieldnotes.example');
    // The selected heading is a section line (pipeline/sections.ts), not prose.
    expect(r.content).toBe(
      [SELECTOR_PAGE.first, sectionLine('Legend'), SELECTOR_PAGE.second].join('\n\n'),
    );
  });

  it('applies a rule chosen by id even when its domain is another one', async () => {
    const r = await fetchUrl(fetcher, `${base}/selector`, rules, 3);
    expect(r.rule).toBe('elsewhere.org (selector:.content)');
    expect(r.content).toContain(SELECTOR_PAGE.sidebar);
    expect(r.content).not.toContain(SELECTOR_PAGE.outside);
  });

  it('answers 404 for an unknown rule id, before any request', async () => {
    const before = site.hits.length;
    const err = await fetchUrl(fetcher, `${base}/selector`, rules, 99).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFound);
    expect((err as NotFound).message).toBe('Scraping rule 99 not found');
    expect(site.hits.length).toBe(before);
  });

  it('refuses a denied domain before any request', async () => {
    const before = site.hits.length;
    const err = await fetchUrl(
      fetcher,
      `http://blocked.example:${site.port}/articles/honeybees`,
      rules,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect(err).toMatchObject({ code: 'denied_by_rule', status: 422 });
    expect((err as Error).message).toBe(
      `Fetching http://blocked.example:${site.port}/articles/honeybees is denied by the scraping rule blocked.example (deny)`,
    );
    expect(site.hits.length).toBe(before);
  });

  it('refuses a deny rule chosen by id before any request', async () => {
    const before = site.hits.length;
    const err = await fetchUrl(fetcher, `${base}/articles/honeybees`, rules, 4).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'denied_by_rule' });
    expect(site.hits.length).toBe(before);
  });

  it('refuses a redirect into a denied domain without requesting it', async () => {
    const target = `http://blocked.example:${site.port}/articles/tidal-power`;
    const before = site.hits.length;
    const err = await fetchUrl(
      fetcher,
      `${base}/redirect/to?url=${encodeURIComponent(target)}`,
      rules,
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'denied_by_rule' });
    expect(site.hits.slice(before)).toHaveLength(1);
    expect(site.hits.slice(before)[0]).toMatch(/^\/redirect\/to/);
  });

  it('reports the final domain after a redirect', async () => {
    const target = `http://maps.fieldnotes.example:${site.port}/selector`;
    const r = await fetchUrl(
      fetcher,
      `${base}/redirect/to?url=${encodeURIComponent(target)}`,
      rules,
    );
    expect(r.url).toBe(target);
    expect(r.domain).toBe('maps.fieldnotes.example');
    expect(r.rule).toBe('maps.fieldnotes.example (selector:article .content)');
  });

  it('caps the raw HTML preview and says so', async () => {
    const r = await fetchUrl(fetcher, `${base}/huge?bytes=300000`, rules);
    expect(r.original_length).toBe(300_000);
    expect(r.html_truncated).toBe(true);
    expect(r.html.length).toBeLessThan(HTML_PREVIEW_MAX_CHARS + 200);
    expect(r.html).toMatch(/<!-- preview truncated: first 200000 of 300000 characters shown -->$/);
  });

  it('passes plain text through and refuses a PDF', async () => {
    const text = await fetchUrl(fetcher, `${base}/plain.txt`, rules);
    expect(text.content).toMatch(/^Field notes on tide pools\n\nTide pools form/);
    const err = await fetchUrl(fetcher, `${base}/report.pdf`, rules).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'unsupported_content', status: 422 });
  });

  it('assumes https for a URL typed without a scheme and refuses other schemes', async () => {
    const err = await fetchUrl(fetcher, 'nowhere.example/page', rules).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'dns' });
    expect((err as Error).message).toContain('https://nowhere.example/page');
    const file = await fetchUrl(fetcher, 'file:///etc/passwd', rules).catch((e: unknown) => e);
    expect(file).toMatchObject({ code: 'bad_scheme' });
    const empty = await fetchUrl(fetcher, '  ', rules).catch((e: unknown) => e);
    expect(empty).toMatchObject({ code: 'invalid_url', status: 400, message: 'URL is required' });
  });
});
