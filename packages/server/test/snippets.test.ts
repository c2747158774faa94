import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTICLES } from './corpus.js';
import { saveText, startServer, type TestServer } from './helpers.js';

let s: TestServer;
let key: string;
const ids: Record<string, number[]> = {};

beforeAll(async () => {
  s = await startServer();
  key = await s.login();
  for (const [name, text] of Object.entries(ARTICLES)) {
    ids[name] = (await saveText(s, key, text, name)).snippet_ids;
  }
}, 120_000);
afterAll(async () => {
  await s.close();
});

const get = (p: string) => s.api(`/api/v1${p}`, { key });
const post = (p: string, body?: unknown) => s.api(`/api/v1${p}`, { method: 'POST', key, body });
const allIds = () => Object.values(ids).flat();

describe('save-segments', () => {
  it('cut each article into indexed snippets and reported how', async () => {
    for (const name of Object.keys(ARTICLES)) expect(ids[name]!.length).toBeGreaterThan(0);
    const r = await get(`/snippets/${ids.photosynthesis![0]}`);
    expect(r.status).toBe(200);
    expect(r.body.source_info).toEqual({ title: 'photosynthesis', url: null });
    expect(r.body.index_pending).toBe(false);
    expect(r.body.faiss_id).toBe(r.body.id);
    expect(r.body.indexed_at).toBeTruthy();
    expect(r.body.theme).toBe('science');
    expect(r.body.language).toBe('en');
    expect(r.body.size_bytes).toBe(Buffer.byteLength(r.body.text));
    expect(r.body.metadata.segmentation_method).toMatch(/^(semantic|regex|fallback)$/);
    expect(Object.keys(r.body.metadata.quality_score_detailed)).toEqual(
      expect.arrayContaining(['length', 'lexical_diversity', 'sentence_completeness']),
    );
    expect(Object.keys(r.body.metadata.emotions)).toEqual(
      expect.arrayContaining(['joy', 'trust', 'fear', 'surprise', 'sadness', 'anticipation']),
    );
  });

  it('does not store the same text twice', async () => {
    const again = await saveText(s, key, ARTICLES.volcanoes, 'volcanoes again');
    expect(again.segments_created).toBe(0);
    expect(again.duplicates).toBe(ids.volcanoes!.length);
    expect((await get('/snippets?per_page=500')).body.total).toBe(allIds().length);
  });

  it('answers 400 for empty text and 413 past 100 kB (102400 bytes of UTF-8), storing nothing', async () => {
    const before = (await get('/snippets')).body.total;
    const empty = await post('/playground/save-segments', { title: 't', text: '   \n ' });
    expect(empty.status).toBe(400);
    expect(empty.body.detail).toBe('Article text is empty');
    const big = await post('/playground/save-segments', { title: 't', text: 'é'.repeat(51201) });
    expect(big.status).toBe(413);
    expect(big.body.detail).toBe('Article text exceeds 100 kB');
    const missing = await post('/playground/save-segments', { title: 't' });
    expect(missing.status).toBe(422);
    expect((await get('/snippets')).body.total).toBe(before);
  });

  it('accepts exactly 102400 bytes', async () => {
    const r = await post('/playground/save-segments', {
      title: 'limit',
      text: 'é'.repeat(51200),
      wait: true,
    });
    expect(r.status).toBe(200);
  });
});

describe('text sent to the API', () => {
  const counts = () => ({
    snippets: s.adam.db.prepare('SELECT COUNT(*) FROM snippets').pluck().get(),
    jobs: s.adam.db.prepare('SELECT COUNT(*) FROM jobs').pluck().get(),
  });
  const article = (extra: string) =>
    `${ARTICLES.photosynthesis.slice(0, 600)} A sentence written for this test${extra} only.`;

  it('refuses a NUL or an unpaired surrogate in a new snippet text with 422 naming the field, storing nothing', async () => {
    const before = counts();
    const nul = await post('/playground/save-segments', {
      title: 'nul',
      text: article('\u0000'),
      wait: true,
    });
    expect(nul.status).toBe(422);
    expect(nul.body.detail).toBe('text contains a NUL character');
    expect(nul.body.errors).toEqual([{ field: 'text', message: 'contains a NUL character' }]);

    const lone = await post('/playground/save-segments', {
      title: 'half \ud83d',
      text: article(' \ud83d'),
      wait: true,
    });
    expect(lone.status).toBe(422);
    expect(lone.body.detail).toBe('title contains an unpaired surrogate');
    const low = await post('/playground/save-segments', { text: article('\udc00'), wait: true });
    expect(low.body.detail).toBe('text contains an unpaired surrogate');
    expect(counts()).toEqual(before);
  });

  it('refuses them on an update and in a query too, changing nothing', async () => {
    const rule = await s.api('/api/v1/rules/scraping', {
      method: 'POST',
      key,
      body: { domain: 'example.org', mode: 'selector', target: 'article' },
    });
    expect(rule.status).toBe(201);
    const patch = await s.api(`/api/v1/rules/scraping/${rule.body.id}`, {
      method: 'PATCH',
      key,
      body: { target: 'main\u0000 p' },
    });
    expect(patch.status).toBe(422);
    expect(patch.body.detail).toBe('target contains a NUL character');
    const rules = (await get('/rules/scraping')).body as { id: number; target: string }[];
    expect(rules.find((r) => r.id === rule.body.id)?.target).toBe('article');
    await s.api(`/api/v1/rules/scraping/${rule.body.id}`, { method: 'DELETE', key });

    const search = await get('/snippets?search=leaf%00light');
    expect(search.status).toBe(422);
    expect(search.body.detail).toBe('search contains a NUL character');
    const urls = await post('/sources/process', {
      urls: ['https://example.org/ok', 'https://example.org/\ud800'],
    });
    expect(urls.status).toBe(422);
    expect(urls.body.detail).toBe('urls.1 contains an unpaired surrogate');
  });

  it('answers 400 for a JSON body that is not valid UTF-8 instead of replacing its bytes', async () => {
    const before = counts();
    const body = Buffer.concat([
      Buffer.from(
        `{"title":"bad bytes","wait":true,"text":${JSON.stringify(article(' '))}`.slice(0, -1),
      ),
      Buffer.from([0xed, 0xa0, 0x80]), // a surrogate encoded as UTF-8: not valid UTF-8
      Buffer.from('"}'),
    ]);
    const r = await fetch(`${s.url}/api/v1/playground/save-segments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body,
    });
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ detail: 'Request body is not valid UTF-8' });
    expect(counts()).toEqual(before);
  });

  it('keeps astral characters byte for byte', async () => {
    const sentence = 'The double-struck 𝔸 and the sun 🌞 sit outside the Basic Multilingual Plane.';
    const saved = await saveText(s, key, `${article('')} ${sentence}`, 'astral 𝔸 🌞');
    expect(saved.segments_created).toBeGreaterThan(0);
    const texts: string[] = [];
    for (const id of saved.snippet_ids) {
      const r = await get(`/snippets/${id}`);
      expect(r.body.source_info.title).toBe('astral 𝔸 🌞');
      texts.push(r.body.text);
    }
    const stored = texts.find((t) => t.includes('𝔸'));
    expect(stored).toBeDefined();
    expect(Buffer.from(stored!, 'utf8').includes(Buffer.from(sentence, 'utf8'))).toBe(true);
    const row = s.adam.db
      .prepare('SELECT CAST(text AS BLOB) FROM snippets WHERE id = ?')
      .pluck()
      .get(saved.snippet_ids[texts.indexOf(stored!)]) as Buffer;
    expect(row.includes(Buffer.from(sentence, 'utf8'))).toBe(true);
    // The tests below count the corpus' snippets.
    for (const id of saved.snippet_ids) {
      expect((await s.api(`/api/v1/snippets/${id}`, { method: 'DELETE', key })).status).toBe(200);
    }
  });
});

describe('GET /snippets', () => {
  it('pages with 50 per page by default, newest first', async () => {
    const r = await get('/snippets');
    expect(r.status).toBe(200);
    expect(r.body.per_page).toBe(50);
    expect(r.body.total).toBe(allIds().length);
    const dates = r.body.snippets.map((x: { created_at: string; id: number }) => x.id);
    expect(dates).toEqual([...dates].sort((a: number, b: number) => b - a));
    const p2 = await get('/snippets?per_page=2&page=2');
    expect(p2.body.snippets).toHaveLength(2);
    expect(p2.body.snippets[0].id).toBe(r.body.snippets[2].id);
  });

  it('sorts by quality_score and word_count in both orders', async () => {
    for (const field of ['quality_score', 'word_count']) {
      const asc = (await get(`/snippets?sort_by=${field}&order=asc`)).body.snippets.map(
        (x: Record<string, number>) => x[field],
      );
      expect(asc).toEqual([...asc].sort((a: number, b: number) => a - b));
      const desc = (await get(`/snippets?sort_by=${field}&order=desc`)).body.snippets.map(
        (x: Record<string, number>) => x[field],
      );
      expect(desc).toEqual([...desc].sort((a: number, b: number) => b - a));
    }
  });

  it('filters by theme, minimum quality, source and words of the text', async () => {
    const tech = (await get('/snippets?theme=technology')).body;
    expect(tech.total).toBeGreaterThan(0);
    expect(tech.snippets.every((x: { theme: string }) => x.theme === 'technology')).toBe(true);
    const minQ = (await get('/snippets?min_quality=0.9')).body;
    expect(minQ.snippets.every((x: { quality_score: number }) => x.quality_score >= 0.9)).toBe(
      true,
    );
    const text = (await get('/snippets?search=' + encodeURIComponent('chlorophyll'))).body;
    expect(text.total).toBeGreaterThan(0);
    expect(text.snippets.every((x: { text: string }) => /chlorophyll/i.test(x.text))).toBe(true);
    // Stemmed: the singular finds the plural.
    const stem = (await get('/snippets?search=volcanologist&match=all')).body;
    expect(stem.snippets.some((x: { text: string }) => x.text.includes('Volcanologists'))).toBe(
      true,
    );
    expect(
      (await get('/snippets?search=' + encodeURIComponent('"); DROP TABLE snippets; --'))).status,
    ).toBe(200);
    expect((await get('/snippets?search=%21%21%21')).body.total).toBe(0);
    const none = (await get('/snippets?search=zzzqqq')).body;
    expect(none.total).toBe(0);
  });

  it('matches any stemmed word by default, newest first or by relevance; all words or the phrase on demand', async () => {
    // A question: no snippet holds all its words ("keep" is only in the database article),
    // several hold some; stemming meets "erupting" with "eruption" and "volcanoes" with "volcano".
    const question = encodeURIComponent('Why do volcanoes keep erupting violently?');
    const any = (await get(`/snippets?search=${question}`)).body;
    expect(any.total).toBeGreaterThan(0);
    const anyIds = any.snippets.map((x: { id: number }) => x.id);
    expect(anyIds).toEqual([...anyIds].sort((a, b) => b - a));
    const ranked = (await get(`/snippets?search=${question}&sort_by=relevance`)).body;
    expect(ranked.total).toBe(any.total);
    expect(ids.volcanoes).toContain(ranked.snippets[0].id);
    expect((await get(`/snippets?search=${question}&match=all`)).body.total).toBe(0);
    const stem = (await get('/snippets?search=erupting&match=all')).body;
    expect(stem.snippets.map((x: { id: number }) => x.id)).toEqual(
      expect.arrayContaining([ids.volcanoes![0]]),
    );
    // Both words are in the stoicism article, not next to each other.
    const apart = encodeURIComponent('calm virtue');
    expect((await get(`/snippets?search=${apart}&match=all`)).body.total).toBeGreaterThan(0);
    expect((await get(`/snippets?search=${apart}&match=phrase`)).body.total).toBe(0);
    const exact = (
      await get(`/snippets?search=${encodeURIComponent('with calm the events')}&match=phrase`)
    ).body;
    expect(exact.snippets.map((x: { id: number }) => x.id)).toEqual(
      expect.arrayContaining([ids.stoicism![0]]),
    );
    // Stop words alone still search (nothing else is left to search for).
    expect((await get('/snippets?search=the')).body.total).toBeGreaterThan(0);
    // Sorting by a column keeps working with a search.
    const byQuality = (await get(`/snippets?search=${question}&sort_by=quality_score&order=asc`))
      .body.snippets as { quality_score: number }[];
    expect(byQuality.map((x) => x.quality_score)).toEqual(
      [...byQuality.map((x) => x.quality_score)].sort((a, b) => a - b),
    );
    expect((await get('/snippets?search=x&match=some')).status).toBe(422);
  });

  it('answers 422 for a bad sort field, order, page or min_quality', async () => {
    for (const q of [
      'sort_by=text',
      'order=up',
      'page=0',
      'per_page=0',
      'min_quality=2',
      'theme=cooking',
      'page=x',
    ]) {
      const r = await get(`/snippets?${q}`);
      expect(r.status, q).toBe(422);
      expect(r.body.detail).toBeTruthy();
    }
  });

  it('answers 404 for an unknown id and 422 for a malformed one', async () => {
    const r = await get('/snippets/999999');
    expect(r.status).toBe(404);
    expect(r.body.detail).toBe('Snippet 999999 not found');
    expect((await get('/snippets/abc')).status).toBe(422);
  });
});

describe('similarity search', () => {
  it('finds the article that answers a question asked in other words', async () => {
    const r = await post('/snippets/search', { query: 'How do plants turn light into sugar?' });
    expect(r.status).toBe(200);
    expect(r.body.results.length).toBeLessThanOrEqual(5);
    expect(ids.photosynthesis).toContain(r.body.results[0].id);
    expect(r.body.results[0].score).toBeGreaterThan(r.body.results.at(-1).score - 1e-9);

    const q2 = await post('/snippets/search', {
      query: 'ancient thinkers on virtue and calm acceptance',
      k: 2,
    });
    expect(q2.body.results).toHaveLength(2);
    expect(ids.stoicism).toContain(q2.body.results[0].id);
  });

  it('searches in hybrid mode by default, saying which side found each result and both scores', async () => {
    const r = await post('/snippets/search', { query: 'How do plants turn light into sugar?' });
    expect(r.body.mode).toBe('hybrid');
    const top = r.body.results[0];
    expect(top.found_by).toEqual(expect.arrayContaining(['keyword', 'vector']));
    expect(top.vector_score).toBeGreaterThan(0);
    expect(top.keyword_score).toBeGreaterThan(0);
    expect(top.score).toBeLessThanOrEqual(1);
    expect(top.similarity).toBe(top.vector_score);
    const scores = r.body.results.map((x: { score: number }) => x.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('keyword mode ranks by bm25 and finds only snippets holding a query word', async () => {
    const r = await post('/snippets/search', {
      query: 'what does chlorophyll absorb?',
      k: 10,
      mode: 'keyword',
    });
    expect(r.status).toBe(200);
    expect(r.body.results.length).toBeGreaterThan(0);
    for (const x of r.body.results) {
      expect(x.text).toMatch(/chlorophyll|absorb/i);
      expect(x.found_by).toEqual(['keyword']);
      // Ranked by bm25; the cosine is still shown, from the stored vector.
      expect(x.score).toBe(x.keyword_score);
      expect(x.similarity).toBe(x.vector_score);
      expect(x.similarity).toBeGreaterThan(0);
    }
    expect(ids.photosynthesis).toContain(r.body.results[0].id);
  });

  it('finds a question that shares no word with its answer by vector and hybrid, not by keyword', async () => {
    const query = 'ancient sages teaching serenity';
    const words = query.split(' ');
    const stoic = ids.stoicism!;
    // The premise: none of the words is in the stoicism article.
    for (const w of words) expect(ARTICLES.stoicism.toLowerCase()).not.toContain(w);
    const keyword = await post('/snippets/search', { query, k: 10, mode: 'keyword' });
    expect(keyword.body.results.filter((x: { id: number }) => stoic.includes(x.id))).toEqual([]);
    for (const mode of ['vector', 'hybrid']) {
      const r = await post('/snippets/search', { query, k: 3, mode });
      expect(r.body.mode).toBe(mode);
      expect(stoic, mode).toContain(r.body.results[0].id);
      expect(r.body.results[0].found_by).toContain('vector');
    }
    const vector = await post('/snippets/search', { query, k: 3, mode: 'vector' });
    expect(vector.body.results[0].similarity).toBe(vector.body.results[0].vector_score);
    expect(vector.body.results[0].score).toBe(vector.body.results[0].vector_score);
  });

  it('answers 422 for an unknown mode, on both search calls', async () => {
    for (const p of ['/snippets/search', '/admin/index/search']) {
      const r = await post(p, { query: 'x', mode: 'fuzzy' });
      expect(r.status, p).toBe(422);
      expect(r.body.detail).toMatch(/mode/);
    }
  });

  it('applies filters', async () => {
    const r = await post('/snippets/search', {
      query: 'tables and queries',
      k: 10,
      filters: { theme: 'science' },
    });
    expect(r.status).toBe(200);
    expect(r.body.results.every((x: { theme: string }) => x.theme === 'science')).toBe(true);
  });

  it('answers 422 for an empty query or k out of range', async () => {
    expect((await post('/snippets/search', { query: '  ' })).status).toBe(422);
    expect((await post('/snippets/search', { query: 'x', k: 0 })).status).toBe(422);
    expect((await post('/snippets/search', { query: 'x', k: 101 })).status).toBe(422);
    expect(
      (await post('/snippets/search', { query: 'x', filters: { colour: 'red' } })).status,
    ).toBe(422);
  });

  it('serves a repeated query from the cache, which the stats count', async () => {
    const before = (await get('/admin/index/stats')).body.cache_stats;
    await post('/snippets/search', { query: 'magma chamber pressure', k: 3 });
    await post('/snippets/search', { query: 'magma chamber pressure', k: 3 });
    const after = (await get('/admin/index/stats')).body.cache_stats;
    expect(after.hits).toBe(before.hits + 1);
    expect(after.hit_rate).toBeGreaterThan(0);
  });
});

describe('index calls', () => {
  it('reports measured stats', async () => {
    const r = await get('/admin/index/stats');
    expect(r.status).toBe(200);
    const n = (await get('/snippets')).body.total;
    expect(r.body.total_vectors).toBe(n);
    expect(r.body.dimension).toBe(384);
    expect(r.body.is_trained).toBe(true);
    expect(r.body.index_size_mb).toBeGreaterThan(0);
    expect(Object.values(r.body.themes as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(
      n,
    );
    expect(r.body.accuracy).toBeGreaterThanOrEqual(0.9);
    expect(r.body.accuracy).toBeLessThanOrEqual(1);
    expect(r.body.accuracy_sample).toBeGreaterThan(0);
    expect(r.body.query_performance.avg_latency_ms).toBeGreaterThan(0);
  });

  it('lists index entries with paging, theme and text search', async () => {
    const r = await get('/admin/index/entries?per_page=3');
    expect(r.status).toBe(200);
    expect(r.body.snippets).toHaveLength(3);
    expect(r.body.snippets[0].snippet_id).toBe(r.body.snippets[0].id);
    expect(r.body.per_page).toBe(3);
    const s2 = await get('/admin/index/entries?search=Seneca');
    expect(s2.body.snippets.every((x: { text: string }) => x.text.includes('Seneca'))).toBe(true);
    expect((await get('/admin/index/entries?per_page=9999')).status).toBe(422);
  });

  it('searches the index with k 10 by default', async () => {
    const r = await post('/admin/index/search', {
      query: 'write-ahead logging and crash recovery',
    });
    expect(r.status).toBe(200);
    expect(r.body.results.length).toBeLessThanOrEqual(10);
    expect(ids.databases).toContain(r.body.results[0].snippet_id);
    expect((await post('/admin/index/search', { query: '' })).status).toBe(422);
  });

  it('shows what the index holds for one snippet', async () => {
    const id = ids.databases![0]!;
    const r = await get(`/snippets/${id}/index`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      snippet_id: id,
      faiss_id: id,
      in_index: true,
      dimension: 384,
      embedder: 'builtin-384',
    });
    expect(r.body.vector_norm).toBeCloseTo(1, 3);
    expect(r.body.vector_preview).toHaveLength(8);
    expect(r.body.nearest.length).toBeGreaterThan(0);
    expect(r.body.nearest.map((x: { snippet_id: number }) => x.snippet_id)).not.toContain(id);
  });

  it('inspects the index file', async () => {
    const r = await get('/snippets/index-inspection');
    expect(r.status).toBe(200);
    expect(r.body.total_vectors).toBe(r.body.total_snippets);
    expect(r.body.total_snippets).toBe((await get('/snippets')).body.total);
    expect(r.body.index_type).toBe((await get('/admin/index/stats')).body.index_type);
    expect(r.body.pending).toBe(0);
    expect(r.body.index_file_bytes).toBeGreaterThan(0);
    expect(r.body.sample[0].in_index).toBe(true);
  });
});

describe('export', () => {
  it('exports chosen snippets as JSON, JSONL and CSV downloads', async () => {
    const chosen = ids.stoicism!.slice(0, 2);
    const json = await post('/snippets/export', { ids: chosen });
    expect(json.status).toBe(200);
    expect(json.headers.get('content-disposition')).toMatch(
      /attachment; filename="snippets-.*\.json"/,
    );
    expect(json.body.snippets.map((x: { id: number }) => x.id)).toEqual(chosen);

    const jsonl = await post('/snippets/export', { ids: chosen, format: 'jsonl' });
    const lines = (jsonl.body as string)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id)).toEqual(chosen);

    const csv = await post('/snippets/export', { ids: chosen, format: 'csv' });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const rows = (csv.body as string).trim().split('\r\n');
    expect(rows[0]).toBe(
      'id,text,theme,quality_score,language,word_count,created_at,indexed_at,source_title,source_url,section',
    );
    expect(rows).toHaveLength(chosen.length + 1);
    expect(rows[1]).toMatch(new RegExp(`^${chosen[0]},"?`));
  });

  it('exports everything without ids, and refuses unknown ids or formats', async () => {
    const all = await post('/snippets/export', {});
    expect(all.body.total).toBe((await get('/snippets')).body.total);
    const unknown = await post('/snippets/export', { ids: [987654] });
    expect(unknown.status).toBe(404);
    expect((await post('/snippets/export', { format: 'xml' })).status).toBe(422);
  });
});

describe('consistency and deletion', () => {
  it('reports a consistent store and index', async () => {
    const r = await get('/snippets/consistency-check');
    expect(r.status).toBe(200);
    expect(r.body.summary.index_only).toBe(0);
    expect(r.body.summary.disk_only).toBe(0);
    expect(r.body.summary.consistent).toBe(r.body.summary.total_disk);
    expect(r.body.snippets_ok.length).toBe(r.body.summary.consistent);
  });

  it('finds a row missing from the index and a vector without a row, and cleans both', async () => {
    const idx = s.adam.services.index;
    const victim = ids.volcanoes![0]!;
    idx.removeAndSave([victim]);
    const orphan = 900_001;
    idx.addAndSave([{ key: orphan, vector: new Float32Array(384).fill(1 / Math.sqrt(384)) }]);

    const report = (await get('/snippets/consistency-check')).body;
    expect(report.summary.disk_only).toBe(1);
    expect(report.summary.index_only).toBe(1);
    expect(report.disk_only[0].id).toBe(victim);
    expect(report.index_only[0].faiss_id).toBe(orphan);
    expect((await get(`/snippets/${victim}/index`)).body.detail).toBe('Snippet not indexed');

    const bad = await post('/snippets/cleanup-orphaned?cleanup_type=both');
    expect(bad.status).toBe(422);
    const a = await post('/snippets/cleanup-orphaned?cleanup_type=index_only');
    expect(a.body).toMatchObject({ action: 'removed_vectors', processed: 1, ids: [orphan] });
    const b = await post('/snippets/cleanup-orphaned?cleanup_type=disk_only');
    expect(b.body).toMatchObject({ action: 'reindexed', processed: 1, ids: [victim] });
    const after = (await get('/snippets/consistency-check')).body.summary;
    expect(after).toMatchObject({ index_only: 0, disk_only: 0 });
    expect((await get(`/snippets/${victim}/index`)).status).toBe(200);
  });

  it('deletes disk-only rows when the body asks', async () => {
    const victim = ids.volcanoes!.at(-1)!;
    s.adam.services.index.removeAndSave([victim]);
    const r = await post('/snippets/cleanup-orphaned?cleanup_type=disk_only', { delete: true });
    expect(r.body).toMatchObject({ action: 'deleted_rows', ids: [victim] });
    expect((await get(`/snippets/${victim}`)).status).toBe(404);
    ids.volcanoes = ids.volcanoes!.filter((i) => i !== victim);
  });

  it('puts lost rows back with refresh-snippet-state', async () => {
    const victim = ids.stoicism![0]!;
    // The row says indexed, the vector is gone (as after a crash that lost the last save).
    s.adam.services.index.removeAndSave([victim]);
    s.adam.db
      .prepare('UPDATE snippets SET index_pending = 0, faiss_id = id WHERE id = ?')
      .run(victim);
    const rowCount = () => s.adam.db.prepare('SELECT COUNT(*) FROM snippets').pluck().get();
    const rowsBefore = rowCount();
    const r = await post('/admin/refresh-snippet-state');
    expect(r.status).toBe(200);
    // Seen three times on a loaded machine: a report of an empty store and an empty index (all
    // counts 0) while this connection counted 7 rows. What the API and a second refresh say
    // then tells a wrong report from a request answered elsewhere.
    const seen: Record<string, unknown> = { rowsBefore, rowsAfter: rowCount(), url: s.url };
    if (r.body.marked_pending !== 1) {
      seen.report = r.body;
      seen.apiTotal = (await get('/snippets')).body.total;
      seen.health = (await get('/health')).body;
      seen.again = (await post('/admin/refresh-snippet-state')).body;
      seen.stats = (await get('/admin/index/stats')).body;
    }
    expect(r.body, JSON.stringify(seen)).toMatchObject({
      marked_pending: 1,
      reindexed: 1,
      index_only: 0,
    });
    expect((await get(`/snippets/${victim}/index`)).status).toBe(200);
  });

  it('deletes a snippet from store and index, and says so', async () => {
    const victim = ids.databases![0]!;
    const r = await s.api(`/api/v1/snippets/${victim}`, { method: 'DELETE', key });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: victim,
      deleted: true,
      removed_from_store: true,
      removed_from_index: true,
    });
    expect((await get(`/snippets/${victim}`)).status).toBe(404);
    const search = await post('/snippets/search', {
      query: 'write-ahead logging crash recovery',
      k: 20,
    });
    expect(search.body.results.map((x: { id: number }) => x.id)).not.toContain(victim);
    expect((await s.api(`/api/v1/snippets/${victim}`, { method: 'DELETE', key })).status).toBe(404);
    const summary = (await get('/snippets/consistency-check')).body.summary;
    expect(summary.total_disk).toBe(summary.total_index);
  });
});
