import { describe, expect, it } from 'vitest';
import { ApiError, NETWORK_ERROR_MESSAGE } from '../../api/client';
import {
  PREVIEW_CSP,
  domainOfInput,
  failureDetail,
  fetchUrlFailureText,
  inertPreviewDocument,
  ruleLabel,
  ruleUsed,
} from './urlFetch';

describe('scraping rule labels', () => {
  it('reads domain (mode[:target]), the target only when there is one', () => {
    expect(ruleLabel({ domain: 'example.org', mode: 'selector', target: 'article .body' })).toBe(
      'example.org (selector:article .body)',
    );
    expect(ruleLabel({ domain: 'example.org', mode: 'allow', target: null })).toBe(
      'example.org (allow)',
    );
    expect(ruleLabel({ domain: 'example.org', mode: 'deny', target: '  ' })).toBe(
      'example.org (deny)',
    );
  });
});

describe('the rule of the info line', () => {
  it('shows a rule with a colon as the server wrote it', () => {
    expect(ruleUsed({ rule: 'example.org (selector:article)', rule_id: 3 })).toEqual({
      text: 'example.org (selector:article)',
      specific: true,
      matched: null,
    });
  });

  it('says No specific rule found – using default when no rule matched the domain', () => {
    const expected = {
      text: 'No specific rule found – using default',
      specific: false,
      matched: null,
    };
    expect(ruleUsed({ rule: 'No specific rule found – using default', rule_id: null })).toEqual(
      expected,
    );
    expect(ruleUsed({ rule: 'default', rule_id: undefined })).toEqual(expected);
    expect(ruleUsed({ rule: '', rule_id: null })).toEqual(expected);
  });

  it('says No rule applied when a rule matched but has nothing to apply (no colon)', () => {
    expect(ruleUsed({ rule: 'example.org (allow)', rule_id: 4 })).toEqual({
      text: 'No rule applied',
      specific: false,
      matched: 'example.org (allow)',
    });
  });
});

describe('the fetch failure text', () => {
  it("unwraps the JSON error body's detail", () => {
    const error = new ApiError('Bad Gateway', 502, {
      detail: 'Could not reach example.org: connection refused',
    });
    expect(fetchUrlFailureText(error)).toBe(
      'Failed to fetch URL: Could not reach example.org: connection refused',
    );
    const list = new ApiError('Unprocessable', 422, {
      detail: [{ msg: 'url is required' }, { message: 'rule_id must be positive' }],
    });
    expect(failureDetail(list)).toBe('url is required; rule_id must be positive');
    const json = new Error(JSON.stringify({ detail: 'Scraping rule 9 not found' }));
    expect(fetchUrlFailureText(json)).toBe('Failed to fetch URL: Scraping rule 9 not found');
  });

  it('falls back to the message, and to the bare text without any', () => {
    expect(fetchUrlFailureText(new ApiError(NETWORK_ERROR_MESSAGE, 0, null))).toBe(
      `Failed to fetch URL: ${NETWORK_ERROR_MESSAGE}`,
    );
    expect(fetchUrlFailureText(new ApiError('', 500, null))).toBe('Failed to fetch URL');
    expect(fetchUrlFailureText('boom')).toBe('Failed to fetch URL');
  });
});

describe('the inert preview document', () => {
  const PAGE = `<!DOCTYPE html><html lang="en" manifest="/app.cache"><head>
<meta charset="utf-8"><meta http-equiv="refresh" content="0;url=https://elsewhere.test/">
<base href="https://elsewhere.test/"><title>Bees</title>
<link rel="stylesheet" href="/static/site.css"><link rel="dns-prefetch" href="//tracker.test">
<style>body { color: #333 }</style><script>window.parent.pwned = true;</script></head>
<body><p>Bees <a href="/more" target="_self">more</a></p><img src="/bee.png">
<form action="/subscribe"><input name="e"></form><script src="/static/analytics.js"></script>
</body></html>`;

  const parse = (html: string) => new DOMParser().parseFromString(html, 'text/html');

  it('puts the blocking policy first in the head', () => {
    const doc = parse(inertPreviewDocument(PAGE));
    const first = doc.head.firstElementChild;
    expect(first?.getAttribute('http-equiv')).toBe('Content-Security-Policy');
    expect(first?.getAttribute('content')).toBe(PREVIEW_CSP);
    expect(PREVIEW_CSP).toBe("default-src 'none'; style-src 'unsafe-inline'");
    expect(doc.querySelector('meta[name="referrer"]')?.getAttribute('content')).toBe('no-referrer');
  });

  it('drops scripts, links, meta refresh and the page base; links and forms open new windows', () => {
    const out = inertPreviewDocument(PAGE);
    const doc = parse(out);
    expect(doc.querySelectorAll('script')).toHaveLength(0);
    expect(out).not.toContain('pwned');
    expect(doc.querySelectorAll('link')).toHaveLength(0);
    expect(doc.querySelector('meta[http-equiv="refresh"]')).toBeNull();
    expect(out).not.toContain('elsewhere.test');
    expect(doc.querySelectorAll('base')).toHaveLength(1);
    expect(doc.querySelector('base')?.getAttribute('target')).toBe('_blank');
    expect(doc.querySelector('a')?.getAttribute('target')).toBe('_blank');
    expect(doc.querySelector('form')?.getAttribute('target')).toBe('_blank');
    expect(doc.documentElement.hasAttribute('manifest')).toBe(false);
    // What the operator came to see stays.
    expect(doc.querySelector('style')?.textContent).toContain('color: #333');
    expect(doc.querySelector('p')?.textContent).toBe('Bees more');
    expect(doc.title).toBe('Bees');
    expect(out.startsWith('<!DOCTYPE html>')).toBe(true);
  });

  it('keeps a page without doctype in quirks mode and wraps a fragment', () => {
    const out = inertPreviewDocument('<p>Just a fragment</p>');
    expect(out.startsWith('<html>')).toBe(true);
    expect(parse(out).head.firstElementChild?.getAttribute('content')).toBe(PREVIEW_CSP);
  });
});

describe('the domain of a typed URL', () => {
  it('is the host without www., with or without a scheme', () => {
    expect(domainOfInput('https://www.Example.org/a?b')).toBe('example.org');
    expect(domainOfInput('news.example.com/page')).toBe('news.example.com');
    expect(domainOfInput('http://127.0.0.1:8124/articles/x')).toBe('127.0.0.1');
    expect(domainOfInput('   ')).toBeNull();
    expect(domainOfInput('http://')).toBeNull();
  });
});
