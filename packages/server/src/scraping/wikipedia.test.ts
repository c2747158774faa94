import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sectionLine } from '../pipeline/sections.js';
import {
  startFakeEncyclopedia,
  type FakeEncyclopedia,
} from '../../test/fixtures/fake-encyclopedia.js';
import { AppError, BadRequest, NotFound } from '../lib/errors.js';
import { FetchError } from './fetch-error.js';
import { SafeFetcher } from './safe-fetcher.js';
import { bestGrowthVersusLinear, describeGrowth } from '@adam/contracts/testing';
import { EncyclopediaClient, cleanExtract, parseHeading, sanitizeTitle } from './wikipedia.js';

let fake: FakeEncyclopedia;
let client: EncyclopediaClient;

beforeAll(async () => {
  fake = await startFakeEncyclopedia();
  const fetcher = new SafeFetcher({ allow: [`127.0.0.1:${fake.port}`], timeoutMs: 60_000 }); // a hang detector: a loaded machine must not reach it
  client = new EncyclopediaClient({ baseUrl: `${fake.url}/{lang}`, fetcher });
});
afterAll(async () => {
  await fake.close();
});

describe('EncyclopediaClient.fetchArticle', () => {
  it('fetches an article as clean text', async () => {
    const a = await client.fetchArticle('Honey bee');
    expect(a.title).toBe('Honey bee');
    expect(a.language).toBe('en');
    expect(a.url).toBe(`${fake.url}/en/wiki/Honey_bee`);
    expect(a.text).toMatch(/^A honey bee \(also spelled honeybee\) is a eusocial flying insect/);
    expect(a.text).toContain(`\n\n${sectionLine('Description')}\n\nHoney bees have a body divided`);
    expect(a.text).toContain(
      `\n\n${sectionLine('Description › Colony life')}\n\nA colony contains one fertile queen`,
    );
    expect(a.text).toContain('Colonies reproduce by swarming in spring.');
    for (const gone of [
      '==',
      'See also',
      'References',
      'Seeley',
      'Notes',
      'The spelling honeybee is common',
      'Further reading',
      'External links',
      'genome project',
    ]) {
      expect(a.text).not.toContain(gone);
    }
    expect(a.text).not.toMatch(/\n{3,}/);
    expect(fake.hits.at(-1)).toMatch(
      /^\/en\/w\/api\.php\?action=query&prop=extracts&explaintext=1&.*titles=Honey\+bee/,
    );
  });

  it('follows redirects and normalisation', async () => {
    const a = await client.fetchArticle('honeybee');
    expect(a.title).toBe('Honey bee');
    expect(a.redirected_from).toBe('honeybee');
    expect(a.text).toContain('waggle dance');
  });

  it('reads other languages and drops their reference sections', async () => {
    const a = await client.fetchArticle('Apis_mellifera', 'fr');
    expect(a.title).toBe('Abeille domestique');
    expect(a.language).toBe('fr');
    expect(a.url).toBe(`${fake.url}/fr/wiki/Abeille_domestique`);
    expect(a.text).toContain("L'abeille domestique (Apis mellifera)");
    expect(a.text).toContain(`\n\n${sectionLine('Comportement')}\n\n`);
    for (const gone of [
      'Notes et références',
      'Voir aussi',
      'Articles connexes',
      'Apiculture',
      'Liens externes',
    ]) {
      expect(a.text).not.toContain(gone);
    }
    const maree = await client.fetchArticle('marée', 'FR');
    expect(maree.title).toBe('Marée');
    expect(maree.text).not.toContain('Service hydrographique');
  });

  it('answers 404 for a missing article', async () => {
    const err = await client.fetchArticle('Xyzzy plugh').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFound);
    expect((err as AppError).status).toBe(404);
    expect((err as AppError).message).toBe("Article 'Xyzzy plugh' not found on en.wikipedia");
    const fr = await client.fetchArticle('Honey bee', 'fr').catch((e: unknown) => e);
    expect((fr as AppError).message).toBe("Article 'Honey bee' not found on fr.wikipedia");
  });

  it('keeps a disambiguation page as text', async () => {
    const a = await client.fetchArticle('Mercury');
    expect(a.text).toBe(
      'Mercury commonly refers to:\n\nMercury (planet), the planet closest to the Sun\nMercury (element), a chemical element with symbol Hg\nMercury (mythology), a Roman god',
    );
  });

  it('works against a base URL without {lang}', async () => {
    const plain = new EncyclopediaClient({
      baseUrl: `${fake.url}/`,
      fetcher: new SafeFetcher({ allow: [`127.0.0.1:${fake.port}`] }),
    });
    const a = await plain.fetchArticle('Tide');
    expect(a.url).toBe(`${fake.url}/wiki/Tide`);
    expect(a.text).toContain('Tidal power\n\nThe Rance tidal power station');
    expect(a.text).not.toContain('Cartwright');
  });

  it('validates title and language before any request', async () => {
    const before = fake.hits.length;
    await expect(client.fetchArticle('   ')).rejects.toThrow(new BadRequest('Title is required'));
    const lang = await client.fetchArticle('Tide', 'english').catch((e: unknown) => e);
    expect(lang).toBeInstanceOf(BadRequest);
    expect((lang as Error).message).toBe(
      "Invalid language 'english': use a 2 or 3 letter code such as 'en' or 'fr'",
    );
    await expect(client.fetchArticle('Tide', 'e1')).rejects.toBeInstanceOf(BadRequest);
    expect(fake.hits.length).toBe(before);
  });

  it('reports an encyclopedia outage as an upstream failure', async () => {
    const err = await client.fetchArticle('Crash').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect(err).toMatchObject({ code: 'http_status', status: 502, upstreamStatus: 503 });
  });

  it('refuses an encyclopedia on a private address unless allowed', async () => {
    const closed = new EncyclopediaClient({
      baseUrl: `${fake.url}/{lang}`,
      fetcher: new SafeFetcher({ allow: [] }),
    });
    const err = await closed.fetchArticle('Tide').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'blocked_address' });
  });
});

describe('sanitizeTitle', () => {
  it.each([
    ['  Albert_Einstein  ', 'Albert Einstein'],
    ['Honey \t\n  bee', 'Honey bee'],
    ['Python#History', 'Python'],
    ['[[Honey bee]]', 'Honey bee'],
    ['{{Tide}}', 'Tide'],
    ['a<b>c|d', 'abcd'],
    ['Caf%C3%A9', 'Café'],
    ['100%', '100%'],
    ['https://en.wikipedia.org/wiki/Honey_bee', 'Honey bee'],
    ['Tide\u0000\u0007', 'Tide'],
  ])('turns %j into %j', (input, expected) => {
    expect(sanitizeTitle(input)).toBe(expected);
  });

  it.each(['', '   ', '#anchor', '[]{}<>|', '___'])('rejects %j with Title is required', (t) => {
    expect(() => sanitizeTitle(t)).toThrow(new BadRequest('Title is required'));
  });

  it('cuts at 255 bytes without splitting a character', () => {
    const t = sanitizeTitle('é'.repeat(200));
    expect(Buffer.byteLength(t)).toBeLessThanOrEqual(255);
    expect(t).toBe('é'.repeat(127));
  });
});

describe('cleanExtract', () => {
  it('drops reference sections in German and Spanish too', () => {
    const text = cleanExtract(
      [
        'Einleitung.',
        '',
        '== Geschichte ==',
        'Alte Geschichte.',
        '== Siehe auch ==',
        'Anderes',
        '== Literatur ==',
        'Ein Buch',
        '== Weblinks ==',
        'Eine Seite',
        '== Einzelnachweise ==',
        'Fußnote',
        '== Referencias ==',
        'Cita',
        '== Véase también ==',
        'Otro',
        '== Enlaces externos ==',
        'Enlace',
      ].join('\n'),
    );
    expect(text).toBe(`Einleitung.\n\n${sectionLine('Geschichte')}\n\nAlte Geschichte.`);
  });

  it('drops subsections of a dropped section but not the next section', () => {
    const text = cleanExtract(
      'Intro.\n\n== References ==\n=== Sources ===\nA source\n== Legacy ==\nStill read today.',
    );
    expect(text).toBe(`Intro.\n\n${sectionLine('Legacy')}\n\nStill read today.`);
  });

  it('drops headings with nothing under them and collapses blank lines', () => {
    const text = cleanExtract('Intro.\n\n\n\n== Empty ==\n\n\n== Full ==\n\n\nBody.\n\n\n');
    expect(text).toBe(`Intro.\n\n${sectionLine('Full')}\n\nBody.`);
  });

  it('reads a heading line of thousands of spaces in linear time (issue 23)', () => {
    // The old /^(={2,6})\s*(.*?)\s*\1\s*$/ took ~1 s here at 8,000 spaces, cubic growth.
    const hostile = (n: number) => `Intro.\n== a${' '.repeat(n)}b =\nBody.`;
    expect(cleanExtract(hostile(50))).toBe(`Intro.\n== a b =\nBody.`);
    const g = bestGrowthVersusLinear(cleanExtract, hostile, { n: 250 });
    expect(g.excess, describeGrowth(g)).toBeLessThan(6);
  });
});

describe('parseHeading', () => {
  // The expression it replaces, kept as the reference for what a heading is.
  const legacy = (raw: string) => {
    const m = /^(={2,6})\s*(.*?)\s*\1\s*$/.exec(raw.trim());
    return m ? { heading: (m[1] ?? '').length, text: m[2] ?? '' } : undefined;
  };

  it('reads headings as the old expression did', () => {
    for (const line of [
      '== Description ==',
      '=== Colony life ===',
      '==Tight==',
      '====== Six ======',
      '======= Seven =======',
      '=== Uneven ==',
      '== Uneven ===',
      '==  ==',
      '====',
      '===',
      '= One =',
      '== a = b ==',
      '  == Padded ==  ',
      '== Not closed',
      'Text == with == signs',
      '== Line\u2028break ==',
      '\u00a0== Nbsp\u00a0==\u00a0',
    ]) {
      expect(parseHeading(line), JSON.stringify(line)).toEqual(legacy(line));
    }
  });

  it('agrees with the old expression on random lines', () => {
    const alphabet = ['=', '=', '=', ' ', '\t', 'a', 'b', '\u00a0', '\u2028'];
    let seed = 23;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 5_000; i++) {
      let line = '';
      const length = Math.floor(random() * 16);
      for (let j = 0; j < length; j++) line += alphabet[Math.floor(random() * alphabet.length)];
      expect(parseHeading(line), JSON.stringify(line)).toEqual(legacy(line));
    }
  });
});
