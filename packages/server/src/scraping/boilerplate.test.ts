import { DEFAULT_PROCESSING_SETTINGS } from '@adam/contracts';
import { bestGrowthVersusLinear, describeGrowth } from '@adam/contracts/testing';
import { describe, expect, it } from 'vitest';
import { LAYOUT_PAGES, tokenShares, wordTokens } from '../../test/fixtures/boilerplate-pages.js';
import { analyzeText } from '../pipeline/analyze.js';
import { hashEmbed } from '../pipeline/__fixtures__/hash-embed.js';
import { SECTION_MARK, splitSections } from '../pipeline/sections.js';
import { segmentText } from '../pipeline/segmenter.js';
import { cleanBlock, isFurniture, stripMarkers } from './boilerplate.js';
import { extractContent } from './extract.js';

const URL_ = 'https://pages.example/article';

describe.each(LAYOUT_PAGES.map((make) => [make().layout, make] as const))(
  'clean extraction of a %s page',
  (_, make) => {
    it('keeps the article, lets no boilerplate token into a snippet, and puts headings in `section`', async () => {
      const page = make();
      const extracted = extractContent(page.html, URL_);
      const analysis = await analyzeText(extracted.text, {
        language: 'en',
        settings: { ...DEFAULT_PROCESSING_SETTINGS, smart_segmentation: true },
        embed: hashEmbed(),
        entities: false,
      });
      const texts = analysis.segments.map((s) => s.text);
      expect(texts.length).toBeGreaterThan(0);
      const shares = tokenShares(page, texts);
      expect(shares.boilerplate).toBe(0);
      expect(shares.lost).toBe(0);
      // Every expected section is some snippet's `section`; no heading is run into the text.
      const sections = analysis.segments.map((s) => s.section);
      for (const path of page.sections) expect(sections).toContain(path);
      // Headings that are not also words of the prose ("Pollination" is both).
      const prose = page.article.join(' ').toLowerCase();
      const headingWords = new Set(
        page.sections
          .flatMap((p) => p.split(' › '))
          .map((h) => h.toLowerCase())
          .filter((h) => !prose.includes(h)),
      );
      for (const t of texts) {
        expect(t).not.toContain(SECTION_MARK);
        for (const h of headingWords) expect(t.toLowerCase()).not.toContain(h);
      }
    });
  },
);

describe('sections', () => {
  it('never lets a snippet span two sections, whatever the method', async () => {
    const page = LAYOUT_PAGES[0]!();
    const text = extractContent(page.html, URL_).text;
    const bySection = new Map(splitSections(text).map((s) => [s.section, wordTokens(s.text)]));
    for (const smart of [true, false]) {
      const r = await segmentText(text, {
        language: 'en',
        settings: { ...DEFAULT_PROCESSING_SETTINGS, smart_segmentation: smart },
        embed: hashEmbed(),
      });
      for (const c of r.accepted) {
        const own = new Set(bySection.get(c.section ?? null) ?? []);
        for (const t of wordTokens(c.text)) expect(own.has(t)).toBe(true);
      }
    }
  });

  it('strips a forged section mark from page text', () => {
    const r = extractContent(
      `<html><body><article><p>Plain words here.\u001DForged</p></article></body></html>`,
      URL_,
    );
    expect(r.text).not.toContain(SECTION_MARK);
  });
});

describe('boilerplate scans', () => {
  it('removes footnote markers and edit links but keeps prose in brackets', () => {
    expect(stripMarkers('Bees sting.[1] Wasps too[citation needed] and ants[edit].')).toBe(
      'Bees sting. Wasps too and ants.',
    );
    expect(stripMarkers('A list [see the appendix for the full table] stays.')).toBe(
      'A list [see the appendix for the full table] stays.',
    );
    expect(cleanBlock('From Wikipedia, the free encyclopedia Honey bee is an insect.')).toBe(
      'Honey bee is an insect.',
    );
    expect(cleanBlock('Jump to navigation')).toBe('');
  });

  it('tells furniture by whole class words, not substrings', () => {
    const el = (attrs: Record<string, string>, localName = 'div') => ({
      localName,
      getAttribute: (n: string) => attrs[n] ?? null,
    });
    expect(isFurniture(el({ class: 'post-share-bar' }))).toBe(true);
    expect(isFurniture(el({ class: 'mw-editsection' }))).toBe(true);
    expect(isFurniture(el({ class: 'shareholders-report commentary' }))).toBe(false);
    expect(isFurniture(el({ id: 'cookie-banner' }))).toBe(true);
    expect(isFurniture(el({ 'aria-label': 'Breadcrumb' }, 'ol'))).toBe(true);
  });

  it('scans hostile bracket runs in linear time', () => {
    const cases: [string, (size: number) => string][] = [
      ['[[[', (size) => '['.repeat(size) + 'x'.repeat(size)],
      ['[1[1', (size) => '[1'.repeat(size)],
      ['[edit] ', (size) => 'a [edit] '.repeat(size)],
    ];
    for (const [name, make] of cases) {
      const g = bestGrowthVersusLinear((s: string) => cleanBlock(s).length, make, { n: 2_000 });
      expect(g.excess, `${name}: ${describeGrowth(g)}`).toBeLessThan(6);
    }
  });
});
