import { describe, expect, it } from 'vitest';
import { bestGrowthVersusLinear, describeGrowth } from '@adam/contracts/testing';
import { normaliseEscapes, normaliseUrl, URL_MAX_LENGTH } from './url-normalise.js';

describe('normaliseUrl', () => {
  it.each([
    ['drops the fragment', 'https://example.org/a#top', 'https://example.org/a'],
    ['drops the default port', 'https://example.org:443/a', 'https://example.org/a'],
    ['drops the http default port', 'http://example.org:80/', 'http://example.org/'],
    ['keeps another port', 'http://example.org:8080/a', 'http://example.org:8080/a'],
    ['lower-cases scheme and host', 'HTTPS://Example.ORG/Path', 'https://example.org/Path'],
    ['drops a final dot of the host', 'https://example.org./a', 'https://example.org/a'],
    ['makes an empty path /', 'https://example.org', 'https://example.org/'],
    ['resolves dot segments', 'https://example.org/a/./b/../c', 'https://example.org/a/c'],
    [
      'encodes an IDN host in punycode',
      'https://bücher.example/x',
      'https://xn--bcher-kva.example/x',
    ],
    ['drops credentials', 'https://user:pw@example.org/a', 'https://example.org/a'],
    [
      'removes tracking parameters and keeps the others in order',
      'https://example.org/a?b=2&utm_source=x&a=1&UTM_Medium=y&gclid=1&fbclid=2&ref_src=t&z=',
      'https://example.org/a?b=2&a=1&z=',
    ],
    [
      'removes mc_cid, mc_eid, msclkid and _ga',
      'https://example.org/?mc_cid=1&mc_eid=2&msclkid=3&_ga=4&q=x',
      'https://example.org/?q=x',
    ],
    ['drops a query left empty', 'https://example.org/a?utm_campaign=x', 'https://example.org/a'],
    [
      'drops an empty query and empty pairs',
      'https://example.org/a?&&x=1&',
      'https://example.org/a?x=1',
    ],
    ['drops a bare ?', 'https://example.org/a?', 'https://example.org/a'],
    [
      'decodes escaped unreserved characters and upper-cases the others',
      'https://example.org/%7euser/%41b%2fc?q=%2a%7E',
      'https://example.org/~user/Ab%2Fc?q=%2A~',
    ],
    [
      'encodes spaces and non-ASCII in the path',
      'https://example.org/a b/é',
      'https://example.org/a%20b/%C3%A9',
    ],
    ['keeps the trailing slash as given', 'https://example.org/dir/', 'https://example.org/dir/'],
    ['keeps no trailing slash as given', 'https://example.org/dir', 'https://example.org/dir'],
  ])('%s', (_, raw, expected) => {
    expect(normaliseUrl(raw)).toBe(expected);
  });

  it('resolves relative references against the base', () => {
    const base = 'https://example.org/docs/guide/intro.html?x=1';
    expect(normaliseUrl('next.html', base)).toBe('https://example.org/docs/guide/next.html');
    expect(normaliseUrl('../api/', base)).toBe('https://example.org/docs/api/');
    expect(normaliseUrl('/root', base)).toBe('https://example.org/root');
    expect(normaliseUrl('//cdn.example.org/a', base)).toBe('https://cdn.example.org/a');
    expect(normaliseUrl('?page=2', base)).toBe('https://example.org/docs/guide/intro.html?page=2');
    expect(normaliseUrl('#section', base)).toBe('https://example.org/docs/guide/intro.html?x=1');
  });

  it.each([
    ['javascript:', 'javascript:alert(1)'],
    ['mailto:', 'mailto:someone@example.org'],
    ['data:', 'data:text/html,<b>x</b>'],
    ['ftp:', 'ftp://example.org/file'],
    ['tel:', 'tel:+33123456789'],
    ['garbage', 'http://'],
    ['an unparsable host', 'https://exa mple.org/'],
  ])('gives null for %s', (_, raw) => {
    expect(normaliseUrl(raw)).toBeNull();
  });

  it('gives null past 2,048 characters, before or after normalising', () => {
    const path = 'a'.repeat(URL_MAX_LENGTH);
    expect(normaliseUrl(`https://example.org/${path}`)).toBeNull();
    // Short enough as written, too long once its spaces are encoded.
    expect(normaliseUrl(`https://example.org/${' x'.repeat(900)}`)).toBeNull();
    expect(normaliseUrl(`https://example.org/${'a'.repeat(2_000)}`)).not.toBeNull();
  });

  it('gives the same key to the same page written differently', () => {
    const forms = [
      'HTTPS://EXAMPLE.org:443/a/../b?utm_source=news#x',
      'https://example.org/b',
      'https://example.org/./b?fbclid=abc',
    ];
    expect(new Set(forms.map((f) => normaliseUrl(f))).size).toBe(1);
  });

  it('normalises escapes in linear time', () => {
    for (const unit of ['%', '%4', '%41', '%2f', 'ab']) {
      const g = bestGrowthVersusLinear(normaliseEscapes, (n) => unit.repeat(n), { n: 512 });
      expect(g.excess, `${unit}: ${describeGrowth(g)}`).toBeLessThan(6);
    }
  });
});
