/**
 * Segmentation alone (not a test: prints figures, asserts nothing): segmentText on the fixture
 * site's 500 generated pages and the fixture articles, with the default processing settings,
 * semantic (a hashing embedder: the model's time is not in the figures) and regex.
 *
 *   cd packages/server && nice -n 10 npx tsx --conditions=adam-source bench/segmentation.bench.ts
 *
 * Prints per-document time (median, p95, total), candidates and accepted snippets, how many
 * carry an overlap, and how many open or end mid-sentence (not at a sentence of the text).
 */
import { DEFAULT_PROCESSING_SETTINGS, type ProcessingSettings } from '@adam/contracts';
import { hashEmbed } from '../src/pipeline/__fixtures__/hash-embed.js';
import { segmentText } from '../src/pipeline/segmenter.js';
import { splitSentences } from '../src/pipeline/sentences.js';
import { FIXTURE_ARTICLES } from '../test/fixtures/fixture-articles.js';
import { FIXTURE_PAGE_COUNT, generatePage } from '../test/fixtures/fixture-pages.js';

const bodyText = (body: string[]) => body.map((p) => p.replace(/^## /, '')).join('\n\n');
const docs = [
  ...Array.from({ length: FIXTURE_PAGE_COUNT }, (_, n) => bodyText(generatePage(n + 1).body)),
  ...FIXTURE_ARTICLES.map((a) => bodyText(a.body)),
];
const ROUNDS = 3;

async function run(name: string, settings: ProcessingSettings): Promise<void> {
  const embed = hashEmbed();
  const times: number[] = [];
  let candidates = 0;
  let accepted = 0;
  let withOverlap = 0;
  let midSentence = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const text of docs) {
      const t0 = process.hrtime.bigint();
      const r = await segmentText(text, { language: 'en', settings, embed });
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (round > 0) continue;
      const sentences = splitSentences(text);
      candidates += r.candidates.length;
      accepted += r.accepted.length;
      for (const c of r.accepted) {
        if (c.overlap) withOverlap++;
        const opens = sentences.some((s) => c.text.startsWith(s));
        const ends = sentences.some((s) => c.text.endsWith(s));
        if (!opens || !ends) midSentence++;
      }
    }
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => (times[Math.floor(q * (times.length - 1))] ?? 0).toFixed(3);
  const total = times.reduce((a, b) => a + b, 0) / ROUNDS;
  console.log(
    `${name.padEnd(9)} docs ${docs.length}  ms/doc median ${at(0.5)} p95 ${at(0.95)}  total ${total.toFixed(0)} ms  ` +
      `candidates ${candidates} accepted ${accepted} with overlap ${withOverlap} mid-sentence ${midSentence}`,
  );
}

await run('semantic', { ...DEFAULT_PROCESSING_SETTINGS, smart_segmentation: true });
await run('regex', { ...DEFAULT_PROCESSING_SETTINGS, smart_segmentation: false });
