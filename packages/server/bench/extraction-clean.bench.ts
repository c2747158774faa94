/**
 * Clean extraction (not a test: prints figures, asserts nothing). Generated pages in four
 * layouts (test/fixtures/boilerplate-pages.ts: a MediaWiki article, a documentation page, a
 * blog post, a news article), several seeds each, run through the extraction and the text
 * pipeline (default settings, semantic segmentation with a hashing embedder). For each layout
 * and overall it prints the share of boilerplate tokens that reach snippets (goal < 1%) and the
 * share of article tokens lost (goal < 2%), each beside the same figures for Readability alone
 * (its text, headings and all, through the same pipeline) measured in the same run.
 *
 *   cd packages/server && nice -n 10 npx tsx --conditions=adam-source bench/extraction-clean.bench.ts
 */
import { DEFAULT_PROCESSING_SETTINGS } from '@adam/contracts';
import { analyzeText } from '../src/pipeline/analyze.js';
import { hashEmbed } from '../src/pipeline/__fixtures__/hash-embed.js';
import { extractContent, readabilityReference } from '../src/scraping/extract.js';
import { LAYOUT_PAGES, tokenShares } from '../test/fixtures/boilerplate-pages.js';

const SEEDS = 12;
const URL_ = 'https://pages.example/article';
const settings = { ...DEFAULT_PROCESSING_SETTINGS, smart_segmentation: true };
const embed = hashEmbed();

interface Tally {
  bpReached: number;
  bpTotal: number;
  lost: number;
  articleTotal: number;
}
const empty = (): Tally => ({ bpReached: 0, bpTotal: 0, lost: 0, articleTotal: 0 });

async function snippets(text: string): Promise<string[]> {
  const r = await analyzeText(text, { language: 'en', settings, embed, entities: false });
  return r.segments.map((s) => s.text);
}

function add(t: Tally, s: ReturnType<typeof tokenShares>): void {
  t.bpReached += s.boilerplate * s.boilerplateTokens;
  t.bpTotal += s.boilerplateTokens;
  t.lost += s.lost * s.articleTokens;
  t.articleTotal += s.articleTokens;
}

const pct = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(2)}%`;

async function main(): Promise<void> {
  const rows: [string, Tally, Tally][] = [];
  const allClean = empty();
  const allRef = empty();
  for (const make of LAYOUT_PAGES) {
    const clean = empty();
    const ref = empty();
    let layout = '';
    for (let seed = 0; seed < SEEDS; seed++) {
      const page = make(seed);
      layout = page.layout;
      add(clean, tokenShares(page, await snippets(extractContent(page.html, URL_).text)));
      add(ref, tokenShares(page, await snippets(readabilityReference(page.html, URL_))));
    }
    for (const [from, to] of [
      [clean, allClean],
      [ref, allRef],
    ] as const) {
      to.bpReached += from.bpReached;
      to.bpTotal += from.bpTotal;
      to.lost += from.lost;
      to.articleTotal += from.articleTotal;
    }
    rows.push([layout, clean, ref]);
  }
  rows.push(['overall', allClean, allRef]);
  console.log(`clean extraction: ${LAYOUT_PAGES.length} layouts × ${SEEDS} generated pages`);
  console.log(
    'layout      boilerplate in snippets (goal <1%)   article lost (goal <2%)\n' +
      '            clean     Readability alone          clean     Readability alone',
  );
  for (const [name, c, r] of rows) {
    console.log(
      `${name.padEnd(11)} ${pct(c.bpReached, c.bpTotal).padStart(7)}   ${pct(r.bpReached, r.bpTotal).padStart(7)}` +
        `                    ${pct(c.lost, c.articleTotal).padStart(7)}   ${pct(r.lost, r.articleTotal).padStart(7)}`,
    );
  }
}

await main();
