/**
 * Vector search for the queries people type (not a test: prints figures, asserts nothing).
 *
 *   npx tsx --conditions=adam-source bench/vector-queries.bench.ts [rows]   (default 1M)
 *
 * Data: bench/data-1m.ts (real snippets, their vectors, the saved index; built once under /tmp).
 * The real app is started on that directory. Five kinds of query, none cut from a row (fixture
 * pages past the data's): one rare word, two common words, three words, a 10–14-word question,
 * a whole sentence. For each, recall@10 against the exact scan over every stored vector
 * (usearch.exactSearch, same run), and queries/s on one thread:
 * - old path: the graph alone (the index's search, k 10, the query vector given);
 * - new path: SnippetService.search mode vector in process (the query embedded there; short
 *   queries also ask the keyword engine and rerank by exact cosine);
 * then POST /snippets/search mode vector over HTTP (other queries of the same kind: the query
 * cache never answers) beside the same search in process.
 */
import usearch from 'usearch';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { fixed, footer, header, pageSentences, rng, seconds, summarize, table } from './common.js';
import { ensureMillion } from './data-1m.js';

const ROWS = Number(process.argv[2]) || undefined;
const K = 10;
/** Queries of each kind for recall and queries/s, and others for HTTP. */
const PER_KIND = 100;
const HTTP_PER_KIND = 40;

const benchStarted = performance.now();
header('vector-queries: vector search for the queries people type');
const data = await ensureMillion(ROWS ? { rows: ROWS } : {});
console.log(`data: ${data.rows.toLocaleString('en')} snippets in ${data.dir}`);

const STOP = new Set(
  `a an and are as at be been but by can could did do does for from had has have how i if in into is it its
  me my no not of on or our so such than that the their them then there these they this to too was we were
  what when where which while who whom why will with would you your also more most some any each other`.split(
    /\s+/,
  ),
);
const wordsOf = (s: string) =>
  s
    .replace(/[^\p{L}\p{N}\s'-]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);

// Word frequencies over the data's own pages (a sample): what is rare and what is common.
const freq = new Map<string, number>();
for (let page = 1; page <= Math.min(data.lastPage, 1_000); page++)
  for (const s of pageSentences(page).sentences)
    for (const w of new Set(wordsOf(s.toLowerCase()))) freq.set(w, (freq.get(w) ?? 0) + 1);
const isContent = (w: string) => w.length > 2 && !STOP.has(w) && !/\d/.test(w);
const commonWords = new Set(
  [...freq.entries()]
    .filter(([w]) => isContent(w))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 400)
    .map(([w]) => w),
);
// Rare: long, and at most twice in the sample (possibly never: then rare in the data too).
const isRare = (w: string) => isContent(w) && w.length >= 6 && (freq.get(w) ?? 0) <= 2;

type Kind = 'one rare word' | 'two common words' | 'three words' | 'question' | 'sentence';
const KINDS: Kind[] = ['one rare word', 'two common words', 'three words', 'question', 'sentence'];

/** Queries of each kind from the sentences of pages past the data's. */
function queries(n: number, firstPage: number): Record<Kind, string[]> {
  const rand = rng(31);
  const out = Object.fromEntries(KINDS.map((k) => [k, [] as string[]])) as Record<Kind, string[]>;
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  // Bounded: a kind the pages rarely give (long sentences) ends with fewer queries.
  for (
    let page = firstPage;
    page < firstPage + 5_000 && KINDS.some((k) => out[k].length < n);
    page++
  ) {
    for (const s of pageSentences(page).sentences) {
      const words = wordsOf(s);
      const lower = words.map((w) => w.toLowerCase());
      const rare = lower.filter(isRare);
      const common = [...new Set(lower.filter((w) => commonWords.has(w)))];
      const content = [...new Set(lower.filter(isContent))];
      if (rare.length && out['one rare word'].length < n) out['one rare word'].push(pick(rare));
      else if (common.length >= 2 && out['two common words'].length < n) {
        const a = pick(common);
        const b = pick(common.filter((w) => w !== a));
        out['two common words'].push(`${a} ${b}`);
      } else if (content.length >= 3 && out['three words'].length < n) {
        const start = Math.floor(rand() * (content.length - 2));
        out['three words'].push(content.slice(start, start + 3).join(' '));
      } else if (words.length >= 12 && out.question.length < n) {
        const lead = pick(['What', 'How', 'Why', 'When']);
        const len = 9 + Math.floor(rand() * 4);
        out.question.push(`${lead} ${lower.slice(0, len).join(' ')}?`);
      } else if (words.length >= 16 && out.sentence.length < n) out.sentence.push(s);
    }
  }
  return out;
}

const adam = await buildApp(
  loadConfig({ ADAM_DATA_DIR: data.dir, ADAM_WEB_DIST: '', ADAM_LOG_LEVEL: 'warn' }),
);
await adam.app.listen({ port: 0, host: '127.0.0.1' });
await adam.services.index.ready;
await adam.reconciled;
const keyword = adam.services.keyword;
while (!keyword.ready) {
  if (keyword.health().status === 'degraded') throw new Error('keyword engine failed');
  await new Promise((r) => setTimeout(r, 200));
}
const addr = adam.app.server.address();
if (!addr || typeof addr === 'string') throw new Error('no address');
const base = `http://127.0.0.1:${addr.port}/api/v1`;
const login = await fetch(`${base}/auth/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email: 'admin@example.com', password: 'admin' }),
});
const { api_key: apiKey } = (await login.json()) as { api_key: string };

console.log(`server up, keyword engine ready, ${seconds(performance.now() - benchStarted)}`);
const vectors = data.readVectors();
const dim = data.dimension;
const all = queries(PER_KIND + HTTP_PER_KIND, data.lastPage + 20_000);
console.log(KINDS.map((k) => `${k}: ${all[k].length}`).join(', '));
const rows: (string | number)[][] = [];
const httpRows: (string | number)[][] = [];
const engine = adam.services.engine;
const service = adam.services.snippets;
// Warm-up: embedder, keyword engine, index thread.
for (const q of all.sentence.slice(-5))
  await service.search({ query: `${q} warm`, k: K, mode: 'vector' });

for (const kind of KINDS) {
  const qs = all[kind].slice(0, PER_KIND);
  if (qs.length === 0) continue;
  const vecs = await engine.embed(qs);
  const flat = new Float32Array(qs.length * dim);
  vecs.forEach((v, i) => flat.set(v, i * dim));
  const exact = usearch.exactSearch(
    vectors,
    flat,
    dim,
    K,
    usearch.MetricKind.Cos,
    0,
  ) as InstanceType<typeof usearch.BatchMatches>;
  // Row r of vectors.f32 is snippet id r + 1.
  const truth = qs.map((_, i) => new Set(Array.from(exact.get(i).keys, (r) => Number(r) + 1)));
  const recall = (i: number, ids: number[]) => ids.filter((id) => truth[i]!.has(id)).length / K;

  let oldRecall = 0;
  let t = performance.now();
  for (const [i, v] of vecs.entries()) {
    const { hits } = await adam.services.index.search(v, K, `bench-old-${kind}-${i}`);
    oldRecall += recall(
      i,
      hits.map((h) => h.key),
    );
  }
  const oldQps = qs.length / ((performance.now() - t) / 1000);

  let newRecall = 0;
  const inProcess: number[] = [];
  t = performance.now();
  for (const [i, q] of qs.entries()) {
    const t0 = performance.now();
    const r = await service.search({ query: q, k: K, mode: 'vector' });
    inProcess.push(performance.now() - t0);
    newRecall += recall(
      i,
      r.results.map((x) => x.snippet_id),
    );
  }
  const newQps = qs.length / ((performance.now() - t) / 1000);
  const words = qs.map((q) => wordsOf(q).length);
  rows.push([
    kind,
    `${Math.min(...words)}–${Math.max(...words)}`,
    fixed(oldRecall / qs.length, 3),
    fixed(newRecall / qs.length, 3),
    fixed(oldQps, 0),
    fixed(newQps, 0),
  ]);

  const http: number[] = [];
  const own: number[] = [];
  for (const q of all[kind].slice(PER_KIND)) {
    const t0 = performance.now();
    const r = await fetch(`${base}/snippets/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ query: q, k: K, mode: 'vector' }),
    });
    http.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`search: ${r.status} ${await r.text()}`);
    own.push(((await r.json()) as { latency_ms: number }).latency_ms);
  }
  const h = summarize(http);
  const o = summarize(own);
  const p = summarize(inProcess);
  httpRows.push([kind, fixed(h.p50, 1), fixed(h.p95, 1), fixed(o.p50, 1), fixed(p.p50, 1)]);
}

console.log(
  `\nrecall@${K} vs the exact scan over all ${data.rows.toLocaleString('en')} vectors, ${PER_KIND} queries a kind; queries/s on one thread:`,
);
table(
  ['queries', 'words', 'old: graph alone', 'new: search()', 'old q/s', 'new q/s (embedding in)'],
  rows,
);
console.log(`\nmode vector over HTTP (${HTTP_PER_KIND} other queries a kind), ms:`);
table(['queries', 'HTTP p50', 'HTTP p95', 'latency_ms p50 (server)', 'in process p50'], httpRows);
await adam.app.close();
footer(benchStarted);
