import { describe, expect, it } from 'vitest';
import { bestGrowthVersusLinear, describeGrowth } from '@adam/contracts/testing';
import {
  compileRobotsBytes,
  normalisePercent,
  parseRobots,
  productToken,
  robotsFromCompiled,
  robotsFromStatus,
  robotsPath,
  ROBOTS_MAX_BYTES,
  ROBOTS_MAX_CRAWL_DELAY_S,
  ROBOTS_MAX_RULES,
  ROBOTS_MAX_WILDCARD_RULES,
} from './robots.js';

const UA = 'ADAM/1.0 (+https://example.org/adam)';

describe('parseRobots: groups', () => {
  it('takes our product token from the user agent, before its "/"', () => {
    expect(productToken(UA)).toBe('adam');
    expect(productToken('Foo-Bot_2/3')).toBe('foo-bot_');
    expect(productToken('')).toBe('');
  });

  it('picks the group naming us, case-insensitively, over the * group', () => {
    const r = parseRobots(
      ['User-agent: *', 'Disallow: /', '', 'User-agent: adam', 'Disallow: /private'].join('\n'),
      UA,
    );
    expect(r.allowed('/public')).toBe(true);
    expect(r.allowed('/private/x')).toBe(false);
    const upper = parseRobots('User-Agent: ADAM\nDisallow: /x\nUser-agent: *\nDisallow: /', UA);
    expect(upper.allowed('/y')).toBe(true);
    expect(upper.allowed('/x')).toBe(false);
  });

  it('matches a line by its leading token (a version or comment after it does not matter)', () => {
    const r = parseRobots(
      'User-agent: Adam/2.0 beta\nDisallow: /a\nUser-agent: *\nDisallow: /',
      UA,
    );
    expect(r.allowed('/b')).toBe(true);
    expect(r.allowed('/a')).toBe(false);
  });

  it('falls back to * for an unknown user agent', () => {
    const r = parseRobots(
      'User-agent: googlebot\nDisallow: /\n\nUser-agent: *\nDisallow: /tmp',
      UA,
    );
    expect(r.allowed('/')).toBe(true);
    expect(r.allowed('/tmp/a')).toBe(false);
  });

  it('allows everything when no group applies', () => {
    const r = parseRobots('User-agent: googlebot\nDisallow: /', UA);
    expect(r.allowed('/anything')).toBe(true);
  });

  it('reads several user-agent lines as one group, and merges every group naming us (RFC 9309 §2.2.1)', () => {
    const r = parseRobots(
      [
        'user-agent: a',
        'user-agent: adam',
        'disallow: /c',
        '',
        'user-agent: b',
        'disallow: /d',
        '',
        'user-agent: adam',
        'disallow: /e',
        'allow: /c/open',
      ].join('\n'),
      UA,
    );
    expect(r.allowed('/c')).toBe(false);
    expect(r.allowed('/e')).toBe(false);
    expect(r.allowed('/d')).toBe(true);
    // The merged group's rules compete by length: the Allow of the second group wins here.
    expect(r.allowed('/c/open/x')).toBe(true);
  });

  it('ignores rules before any user-agent line, comments, unknown lines and CRLF', () => {
    const r = parseRobots(
      'Disallow: /early\r\n# a comment\r\nUser-agent: * # all\r\nHost: x\r\nDisallow: /late # why\r\nFoo bar\r\n',
      UA,
    );
    expect(r.allowed('/early')).toBe(true);
    expect(r.allowed('/late')).toBe(false);
    expect(r.allowed('/late%20')).toBe(false);
  });

  it('starts a new group at a user-agent line that follows a rule', () => {
    const r = parseRobots('User-agent: adam\nDisallow: /a\nUser-agent: other\nDisallow: /b', UA);
    expect(r.allowed('/a')).toBe(false);
    expect(r.allowed('/b')).toBe(true);
  });
});

describe('parseRobots: rules', () => {
  const rules = (lines: string[]) => parseRobots(['User-agent: *', ...lines].join('\n'), UA);

  it('applies the longest match, Allow winning a tie (RFC 9309 §5.2 examples)', () => {
    const r = rules(['Allow: /p', 'Disallow: /']);
    expect(r.allowed('/page')).toBe(true);
    expect(r.allowed('/other')).toBe(false);
    const r2 = rules(['Allow: /folder', 'Disallow: /folder']);
    expect(r2.allowed('/folder/page')).toBe(true);
    const r3 = rules(['Allow: /page', 'Disallow: /*.html']);
    expect(r3.allowed('/page.html')).toBe(false);
    expect(r3.allowed('/page')).toBe(true);
    const r4 = rules(['Allow: /$', 'Disallow: /']);
    expect(r4.allowed('/')).toBe(true);
    expect(r4.allowed('/page.html')).toBe(false);
  });

  it('reads * as any run and a final $ as the end', () => {
    const r = rules(['Disallow: /*.php$', 'Disallow: /fish*', 'Disallow: /a*b*c']);
    expect(r.allowed('/index.php')).toBe(false);
    expect(r.allowed('/x/y.php')).toBe(false);
    expect(r.allowed('/index.php?x=1')).toBe(true);
    expect(r.allowed('/index.php5')).toBe(true);
    expect(r.allowed('/fish')).toBe(false);
    expect(r.allowed('/fish.html')).toBe(false);
    expect(r.allowed('/Fish')).toBe(true);
    expect(r.allowed('/aXbYc')).toBe(false);
    expect(r.allowed('/aXcYb')).toBe(true);
    // A '$' inside a pattern is a literal character.
    expect(rules(['Disallow: /a$b']).allowed('/a$b')).toBe(false);
  });

  it('treats an empty Disallow as no rule, and prefixes a pattern missing its /', () => {
    expect(rules(['Disallow:']).allowed('/x')).toBe(true);
    expect(rules(['Disallow: private']).allowed('/private/a')).toBe(false);
  });

  it('compares percent-encoding normalised (RFC 9309 §2.2.2 table)', () => {
    expect(
      rules(['Disallow: /foo/bar?baz=https://foo.bar']).allowed(
        '/foo/bar?baz=https%3A%2F%2Ffoo.bar',
      ),
    ).toBe(false);
    expect(rules(['Disallow: /foo/bar/ツ']).allowed('/foo/bar/%E3%83%84')).toBe(false);
    expect(rules(['Disallow: /foo/bar/%E3%83%84']).allowed('/foo/bar/%e3%83%84')).toBe(false);
    expect(rules(['Disallow: /foo/bar/%62%61%7A']).allowed('/foo/bar/baz')).toBe(false);
    expect(rules(['Disallow: /foo/bar/baz']).allowed('/foo/bar/%62%61%7A')).toBe(false);
    // An encoded star is a literal star, not a wildcard.
    expect(rules(['Disallow: /a%2Ab']).allowed('/aXb')).toBe(true);
    expect(rules(['Disallow: /a%2Ab']).allowed('/a*b')).toBe(false);
    expect(normalisePercent('/a b%zz%41%2f%25')).toBe('/a%20b%25zzA/%25');
  });

  it('always allows /robots.txt', () => {
    expect(rules(['Disallow: /']).allowed('/robots.txt')).toBe(true);
  });

  it('takes Crawl-delay from the chosen group, bounded to 0..60 s', () => {
    const r = parseRobots(
      'User-agent: *\nCrawl-delay: 5\n\nUser-agent: adam\nCrawl-delay: 2.5\nDisallow: /x',
      UA,
    );
    expect(r.crawlDelayS).toBe(2.5);
    expect(parseRobots('User-agent: *\nCrawl-delay: 5', UA).crawlDelayS).toBe(5);
    expect(parseRobots('User-agent: *\nCrawl-delay: 86400', UA).crawlDelayS).toBe(
      ROBOTS_MAX_CRAWL_DELAY_S,
    );
    expect(parseRobots('User-agent: *\nCrawl-delay: -1', UA).crawlDelayS).toBeNull();
    expect(parseRobots('User-agent: *\nCrawl-delay: soon', UA).crawlDelayS).toBeNull();
    expect(parseRobots('User-agent: other\nCrawl-delay: 9', UA).crawlDelayS).toBeNull();
  });

  it('collects Sitemap lines from anywhere in the file, absolute http(s) only', () => {
    const r = parseRobots(
      [
        'Sitemap: https://example.org/sitemap.xml',
        'User-agent: other',
        'Disallow: /',
        'sitemap: http://example.org/news.xml.gz',
        'Sitemap: /relative.xml',
        'Sitemap: ftp://example.org/s.xml',
        'Sitemap: https://example.org/sitemap.xml',
      ].join('\n'),
      UA,
    );
    expect(r.sitemaps).toEqual([
      'https://example.org/sitemap.xml',
      'http://example.org/news.xml.gz',
    ]);
  });

  it('asks about the path and query of a URL', () => {
    expect(robotsPath('https://example.org/a/b?c=d#e')).toBe('/a/b?c=d');
  });
});

describe('robotsFromStatus (RFC 9309 §2.3.1)', () => {
  it('allows all for a 4xx but 429, disallows all for 5xx, 429 and no answer', () => {
    expect(robotsFromStatus(200)).toBeNull();
    for (const s of [400, 401, 403, 404, 410])
      expect(robotsFromStatus(s)!.allowed('/x')).toBe(true);
    for (const s of [429, 500, 503]) expect(robotsFromStatus(s)!.allowed('/x')).toBe(false);
    expect(robotsFromStatus(null)!.allowed('/')).toBe(false);
    expect(robotsFromStatus(310)!.allowed('/')).toBe(true);
  });
});

describe('parseRobots: hostile files', () => {
  it('reads only the first 500 KiB, and drops the line cut there', () => {
    const filler = `# ${'x'.repeat(ROBOTS_MAX_BYTES)}\n`;
    const late = parseRobots(`User-agent: *\n${filler}Disallow: /late\n`, UA);
    expect(late.allowed('/late')).toBe(true);
    // A Disallow cut in the middle of its pattern would disallow more than written.
    const head = `User-agent: *\n# ${'x'.repeat(ROBOTS_MAX_BYTES - 40)}\n`;
    const cut = parseRobots(`${head}Disallow: /abcdefghijklmnopqrstuvwxyz\n`, UA);
    expect(cut.allowed('/abc')).toBe(true);
  });

  it('reads an answer’s bytes the same way: the first 500 KiB, the line cut there dropped', () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    const read = (text: string) => robotsFromCompiled(compileRobotsBytes(bytes(text), UA));
    // A BOM and multi-byte characters decoded as UTF-8.
    const small = read('\uFEFFUser-agent: *\nDisallow: /ツ\nCrawl-delay: 3\n');
    expect(small.allowed('/%E3%83%84')).toBe(false);
    expect(small.crawlDelayS).toBe(3);
    // 500 KiB counted in bytes: three-byte characters fill it with a third as many of them.
    const filler = `# ${'ツ'.repeat(ROBOTS_MAX_BYTES / 3)}\n`;
    expect(read(`User-agent: *\n${filler}Disallow: /late\n`).allowed('/late')).toBe(true);
    const head = `User-agent: *\n# ${'x'.repeat(ROBOTS_MAX_BYTES - 40)}\n`;
    const cut = read(`${head}Disallow: /abcdefghijklmnopqrstuvwxyz\n`);
    expect(cut.allowed('/abc')).toBe(true);
    // One byte past the bound is all a caller needs to keep to say the file was cut.
    const whole = bytes(`${head}Disallow: /abcdefghijklmnopqrstuvwxyz\n`);
    const kept = compileRobotsBytes(whole.subarray(0, ROBOTS_MAX_BYTES + 1), UA);
    expect(kept).toEqual(compileRobotsBytes(whole, UA));
    // Plain data: what crosses from an engine thread.
    expect(structuredClone(kept)).toEqual(kept);
  });

  it('keeps at most ROBOTS_MAX_RULES rules of a 10 MB file of 100k rules', () => {
    const lines = ['User-agent: *'];
    for (let i = 0; i < 100_000; i++) lines.push(`Disallow: /${'a'.repeat(90)}${i}$`);
    const text = lines.join('\n');
    expect(text.length).toBeGreaterThan(10_000_000);
    const r = parseRobots(text, UA);
    // Rules of the first 500 KiB only (~5,000), each a pattern the URL cannot match.
    const url = `/${'a'.repeat(2_000)}`;
    expect(r.allowed(url)).toBe(true);
    expect(r.allowed(`/${'a'.repeat(90)}17`)).toBe(false);
    // The last rule written is beyond the cut.
    expect(r.allowed(`/${'a'.repeat(90)}99999`)).toBe(true);
    expect(ROBOTS_MAX_RULES).toBeLessThanOrEqual(10_000);
  });

  it('keeps the wildcards of the first 500 wildcard rules; later ones cover more, never less', () => {
    const lines = ['User-agent: *'];
    for (let i = 0; i < ROBOTS_MAX_WILDCARD_RULES; i++) lines.push(`Disallow: /w${i}/*.pdf`);
    lines.push('Disallow: /late/*.pdf', 'Allow: /open/*.html', 'Disallow: /open/');
    const r = parseRobots(lines.join('\n'), UA);
    expect(r.allowed('/w7/a.pdf')).toBe(false);
    expect(r.allowed('/w7/a.html')).toBe(true);
    // Past the cap: the Disallow holds for its whole prefix, the Allow no longer frees anything.
    expect(r.allowed('/late/a.html')).toBe(false);
    expect(r.allowed('/open/a.html')).toBe(false);
  });

  it('matches a 5,000-star pattern against a 2k URL in linear time', () => {
    const stars = '*'.repeat(5_000);
    const r = parseRobots(`User-agent: *\nDisallow: /${stars}b${stars}c$`, UA);
    expect(r.allowed(`/${'a'.repeat(2_000)}`)).toBe(true);
    expect(r.allowed(`/${'a'.repeat(1_000)}b${'a'.repeat(1_000)}c`)).toBe(false);
    const g = bestGrowthVersusLinear(
      (url: string) => r.allowed(url),
      (n) => `/${'ab'.repeat(n)}`,
      { n: 256 },
    );
    expect(g.excess, describeGrowth(g)).toBeLessThan(6);
  });

  it('parses in linear time, whatever the file', () => {
    for (const unit of [
      'Disallow: /*a*a*a*a\n',
      'User-agent: a\n',
      'Disallow: %%%%%%%ツ\n',
      '#######\n',
      'Allow: /x\r',
    ]) {
      const g = bestGrowthVersusLinear(
        (text: string) => parseRobots(`User-agent: *\n${text}`, UA),
        (n) => unit.repeat(Math.ceil(n / unit.length)),
        { n: 4_096 },
      );
      expect(g.excess, `${JSON.stringify(unit)}: ${describeGrowth(g)}`).toBeLessThan(6);
    }
  });

  it('matches each rule in time linear in the URL, on adversarial patterns', () => {
    // Patterns a backtracking matcher pays n·m for: many near-matches of each part.
    for (const pattern of ['/*a*a*a*a*a*a*a*b', `/*${'a'.repeat(200)}b`, '/*aab$']) {
      const r = parseRobots(`User-agent: *\nDisallow: ${pattern}`, UA);
      const g = bestGrowthVersusLinear(
        (url: string) => r.allowed(url),
        (n) => `/${'a'.repeat(n)}`,
        { n: 1_024 },
      );
      expect(g.excess, `${pattern}: ${describeGrowth(g)}`).toBeLessThan(6);
    }
  });
});
