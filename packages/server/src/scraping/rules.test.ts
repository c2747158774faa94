import { describe, expect, it } from 'vitest';
import { AppError } from '../lib/errors.js';
import { describeRule, matchRule, normalizeDomain, type ScrapingRuleLike } from './rules.js';

describe('normalizeDomain', () => {
  it.each([
    ['example.com', 'example.com'],
    ['  Example.COM ', 'example.com'],
    ['https://www.example.com/path?q=1#x', 'example.com'],
    ['http://user:pw@news.example.com:8080/a', 'news.example.com'],
    ['www.example.com.', 'example.com'],
    ['example.com:443', 'example.com'],
    ['sub.www.example.com', 'sub.www.example.com'],
    ['localhost', 'localhost'],
    ['127.0.0.1', '127.0.0.1'],
    ['Bücher.example', 'xn--bcher-kva.example'],
    ['my-site.co.uk', 'my-site.co.uk'],
  ])('normalises %s to %s', (input, expected) => {
    expect(normalizeDomain(input)).toBe(expected);
  });

  it.each([
    ['', 'Domain is required'],
    ['   ', 'Domain is required'],
    ['exa mple.com', "Invalid domain 'exa mple.com'"],
    ['-bad.example', "'-bad' is not a valid label"],
    ['a..b', 'it has an empty label'],
    ['under_score.example', "'under_score' is not a valid label"],
    ['1.2.3', 'neither a host name nor an IPv4 address'],
    ['[::1]', 'IPv6 addresses are not supported'],
    [`${'a'.repeat(64)}.com`, 'is not a valid label'],
  ])('rejects %j with 422', (input, message) => {
    let err: unknown;
    try {
      normalizeDomain(input);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(422);
    expect((err as AppError).message).toContain(message);
    expect((err as AppError).errors?.[0]?.field).toBe('domain');
  });
});

describe('matchRule', () => {
  const rules: ScrapingRuleLike[] = [
    { id: 1, domain: 'example.com', mode: 'allow', target: null, enabled: true },
    { id: 2, domain: 'news.example.com', mode: 'selector', target: 'article', enabled: true },
    { id: 3, domain: 'blog.news.example.com', mode: 'deny', target: null, enabled: false },
    { id: 4, domain: 'www.other.org', mode: 'deny', target: null },
  ];
  const id = (host: string) => matchRule(rules, host)?.id ?? null;

  it('matches the domain itself and its subdomains', () => {
    expect(id('example.com')).toBe(1);
    expect(id('www.example.com')).toBe(1);
    expect(id('shop.example.com')).toBe(1);
    expect(id('EXAMPLE.com.')).toBe(1);
  });

  it('prefers the most specific domain', () => {
    expect(id('news.example.com')).toBe(2);
    expect(id('a.b.news.example.com')).toBe(2);
  });

  it('skips disabled rules', () => {
    expect(id('blog.news.example.com')).toBe(2);
  });

  it('does not match a mere suffix or an unrelated host', () => {
    expect(id('badexample.com')).toBeNull();
    expect(id('example.com.evil.net')).toBeNull();
    expect(id('example.org')).toBeNull();
  });

  it('normalises stored domains before comparing', () => {
    expect(id('other.org')).toBe(4);
    expect(id('docs.other.org')).toBe(4);
  });

  it('takes the first of equally specific rules', () => {
    const twins: ScrapingRuleLike[] = [
      { id: 'a', domain: 'twin.example', mode: 'allow', target: null },
      { id: 'b', domain: 'www.twin.example', mode: 'deny', target: null },
    ];
    expect(matchRule(twins, 'twin.example')?.id).toBe('a');
  });
});

describe('describeRule', () => {
  it('reads domain (mode[:target])', () => {
    expect(describeRule({ domain: 'example.com', mode: 'allow', target: null })).toBe(
      'example.com (allow)',
    );
    expect(
      describeRule({ domain: 'example.com', mode: 'selector', target: 'article .content' }),
    ).toBe('example.com (selector:article .content)');
    expect(describeRule({ domain: 'example.com', mode: 'deny', target: '' })).toBe(
      'example.com (deny)',
    );
    expect(describeRule({ domain: 'example.com', mode: '', target: null })).toBe(
      'example.com (allow)',
    );
  });
});
