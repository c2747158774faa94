import { describe, expect, it } from 'vitest';
import { bestGrowthVersusLinear, describeGrowth } from '@adam/contracts/testing';
import { compileGlob, globMatches } from './glob.js';
import {
  BadCrawlPattern,
  compilePatterns,
  inScope,
  PATTERN_MAX_COUNT,
  PATTERN_MAX_LENGTH,
  patternProblem,
  type CrawlScope,
} from './scope.js';

describe('inScope', () => {
  const starts = ['https://www.example.org/docs', 'https://other.test:8080/guide/'];
  it.each<[string, CrawlScope, boolean]>([
    ['https://www.example.org/anything', 'host', true],
    ['http://www.example.org/anything', 'host', true],
    ['https://WWW.example.org./x', 'host', true],
    ['https://example.org/x', 'host', false],
    ['https://blog.example.org/x', 'host', false],
    ['https://www.example.org:8443/x', 'host', false],
    ['https://other.test:8080/x', 'host', true],
    ['https://other.test/x', 'host', false],
    ['https://example.org/x', 'domain', true],
    ['https://blog.example.org/x', 'domain', true],
    ['https://a.b.example.org/x', 'domain', true],
    ['https://badexample.org/x', 'domain', false],
    ['https://example.org.evil.test/x', 'domain', false],
    ['https://sub.other.test:8080/x', 'domain', true],
    ['https://sub.other.test/x', 'domain', false],
    ['https://www.example.org/docs', 'prefix', true],
    ['https://www.example.org/docs/', 'prefix', true],
    ['https://www.example.org/docs/a/b?c=d', 'prefix', true],
    ['https://www.example.org/docs-old', 'prefix', false],
    ['https://www.example.org/doc', 'prefix', false],
    ['https://www.example.org/', 'prefix', false],
    ['https://blog.example.org/docs/a', 'prefix', false],
    ['https://other.test:8080/guide/a', 'prefix', true],
    ['https://other.test:8080/guide', 'prefix', false],
    ['mailto:a@example.org', 'host', false],
    ['not a url', 'domain', false],
  ])('%s in %s scope: %s', (url, scope, expected) => {
    expect(inScope(url, starts, scope)).toBe(expected);
  });

  it('keeps an IP address to itself in domain scope', () => {
    expect(inScope('http://127.0.0.1:9000/a', ['http://127.0.0.1:9000/'], 'domain')).toBe(true);
    expect(inScope('http://1.127.0.0.1:9000/a', ['http://127.0.0.1:9000/'], 'domain')).toBe(false);
  });

  it('is out of scope with no start', () => {
    expect(inScope('https://example.org/', [], 'host')).toBe(false);
  });
});

describe('compilePatterns', () => {
  it.each<[string[], string[], string, 'ok' | 'pattern']>([
    [[], [], 'https://example.org/a', 'ok'],
    [['/docs/*'], [], 'https://example.org/docs/a/b', 'ok'],
    [['/docs/*'], [], 'https://example.org/blog/a', 'pattern'],
    [['/docs/*'], [], 'https://example.org/docs', 'pattern'],
    [['/docs*'], [], 'https://example.org/docs', 'ok'],
    [['/docs/**'], [], 'https://example.org/docs/a/b', 'ok'],
    [[], ['*.pdf'], 'https://example.org/a/file.pdf', 'pattern'],
    [[], ['*.pdf'], 'https://example.org/a/file.pdf?x=1', 'ok'],
    [[], ['*?print=1'], 'https://example.org/a?print=1', 'pattern'],
    // '?' is literal: it does not stand for one character.
    [[], ['/a?c'], 'https://example.org/abc', 'ok'],
    [[], ['/a?c'], 'https://example.org/a?c', 'pattern'],
    [['https://example.org/*'], [], 'https://example.org/x', 'ok'],
    [['https://example.org/*'], [], 'https://blog.example.org/x', 'pattern'],
    [['https://*.example.org/*'], [], 'https://blog.example.org/x', 'ok'],
    // Exclude wins over include.
    [['/docs/*'], ['/docs/private/*'], 'https://example.org/docs/private/a', 'pattern'],
    [['/docs/*', '/api/*'], [], 'https://example.org/api/v1', 'ok'],
  ])('include %j exclude %j: %s is %s', (include, exclude, url, expected) => {
    expect(compilePatterns(include, exclude)(url)).toBe(expected);
  });

  it('refuses bad lists with a sentence a route can answer as 422', () => {
    const tooMany = Array.from({ length: PATTERN_MAX_COUNT + 1 }, (_, i) => `/p${i}`);
    const cases: [string[], string[], string][] = [
      [tooMany, [], `At most ${PATTERN_MAX_COUNT} include patterns are allowed, got 101`],
      [[], ['/ok', ''], 'The exclude pattern 2 is empty'],
      [
        ['x'.repeat(PATTERN_MAX_LENGTH + 1)],
        [],
        `The include pattern 1 is 501 characters long; at most ${PATTERN_MAX_LENGTH} are allowed`,
      ],
      [['/a b'], [], 'The include pattern 1 contains a space or a control character at position 3'],
      [
        [],
        ['/a\u0000'],
        'The exclude pattern 1 contains a space or a control character at position 3',
      ],
    ];
    for (const [include, exclude, message] of cases) {
      let thrown: unknown;
      try {
        compilePatterns(include, exclude);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(BadCrawlPattern);
      expect((thrown as BadCrawlPattern).status).toBe(422);
      expect((thrown as Error).message).toBe(message);
    }
    expect(patternProblem(['/a*', '*b'], 'include')).toBeNull();
  });

  it('matches in linear time, on adversarial patterns', () => {
    const stars = `/${'*a'.repeat(PATTERN_MAX_LENGTH / 2 - 1)}b`;
    const match = compilePatterns([], [stars]);
    const g = bestGrowthVersusLinear(match, (n) => `https://example.org/${'a'.repeat(n)}`, {
      n: 1_024,
    });
    expect(g.excess, describeGrowth(g)).toBeLessThan(6);
  });
});

describe('globMatches', () => {
  it.each<[string, boolean, string, boolean]>([
    ['abc', true, 'abc', true],
    ['abc', true, 'abcd', false],
    ['abc', false, 'abcd', true],
    ['a*c', true, 'abbbc', true],
    ['a*c', true, 'abbbcd', false],
    ['*c', true, 'c', true],
    ['a*', true, 'a', true],
    ['a*b*c', true, 'acbc', true],
    ['a*b*c', true, 'acb', false],
    ['a*b*c', true, 'abcbc', true],
    ['*ab*ab', true, 'abab', true],
    ['*ab*ab', true, 'aba', false],
    ['***', true, '', true],
    ['a**b', true, 'ab', true],
  ])('%s (anchored %s) on %s: %s', (pattern, anchored, text, expected) => {
    expect(globMatches(compileGlob(pattern, anchored), text)).toBe(expected);
  });

  it('grows linearly when the pattern grows with the text', () => {
    // A two-pointer backtracking matcher pays text × pattern on each of these.
    const cases: [string, (n: number) => { glob: ReturnType<typeof compileGlob>; text: string }][] =
      [
        [
          'one long part',
          (n) => ({ glob: compileGlob(`*${'a'.repeat(n / 2)}b`, true), text: 'a'.repeat(n) }),
        ],
        [
          'many parts',
          (n) => ({ glob: compileGlob(`${'*a'.repeat(n / 4)}*b`, true), text: 'a'.repeat(n) }),
        ],
        [
          'periodic',
          (n) => ({
            glob: compileGlob(`*${'ab'.repeat(n / 8)}c`, false),
            text: 'ab'.repeat(n / 2),
          }),
        ],
      ];
    for (const [what, make] of cases) {
      const g = bestGrowthVersusLinear(({ glob, text }) => globMatches(glob, text), make, {
        n: 1_024,
      });
      expect(g.excess, `${what}: ${describeGrowth(g)}`).toBeLessThan(6);
    }
  });

  it('grows linearly with the text, for any pattern', () => {
    for (const pattern of ['*a*a*a*a*b', `*${'a'.repeat(300)}b`, '*aab', 'a*']) {
      const glob = compileGlob(pattern, true);
      const g = bestGrowthVersusLinear(
        (t: string) => globMatches(glob, t),
        (n) => 'a'.repeat(n),
        {
          n: 2_048,
        },
      );
      expect(g.excess, `${pattern}: ${describeGrowth(g)}`).toBeLessThan(6);
    }
  });
});
