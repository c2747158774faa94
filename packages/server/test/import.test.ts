/**
 * POST /snippets/import through HTTP with real servers, SQLite and index: an export of one ADAM
 * (with its vectors) imported into a fresh one gives the same snippets, reusing the vectors its
 * embedder made and embedding the others; bad and hostile lines are named by number and nothing
 * is imported; a failure or a cancel mid-way leaves nothing; an oversized body answers 413.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_MOVE_ROWS, SnippetImporter } from '../src/services/snippet-importer.js';
import { SnippetRepository } from '../src/store/snippet.repository.js';
import { ARTICLES } from './corpus.js';
import { startServer, type TestServer } from './helpers.js';
import { until } from './until.js';

let a: TestServer;
let b: TestServer;
let keyA: string;
let keyB: string;
/** A's export with embeddings, as JSON Lines. */
let exported = '';

interface Row {
  text: string;
  theme: string;
  quality_score: number;
  language: string | null;
  source_title: string | null;
  source_url: string | null;
  section: string | null;
  metadata: string;
  embedding: Buffer | null;
  embedder_id: string | null;
  index_pending: number;
}

function rows(s: TestServer): Row[] {
  return s.adam.db
    .prepare(
      `SELECT s.text, s.theme, s.quality_score, s.language, s.source_title, s.source_url,
              s.section, s.metadata, e.embedding, e.embedder_id, s.index_pending
       FROM snippets s LEFT JOIN snippet_embeddings e ON e.snippet_id = s.id ORDER BY s.text`,
    )
    .all() as Row[];
}

const count = (s: TestServer, table = 'snippets') =>
  s.adam.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;

function postImport(s: TestServer, key: string, body: string | ReadableStream, query = '') {
  return fetch(`${s.url}/api/v1/snippets/import${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson', 'x-api-key': key },
    body,
    // A stream body is sent chunked, without a Content-Length.
    ...(typeof body === 'string' ? {} : { duplex: 'half' }),
  } as RequestInit);
}

async function importAndWait(s: TestServer, key: string, body: string) {
  const res = await postImport(s, key, body);
  const summary = (await res.json()) as { job_id: number; [k: string]: unknown };
  expect(res.status, JSON.stringify(summary)).toBe(202);
  const job = await s.adam.services.jobs.waitForEnd(summary.job_id, 60_000);
  return { summary, job };
}

const importFiles = (s: TestServer) => {
  const dir = path.join(s.dataDir, 'imports');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};

/** A unit vector of the active embedder's dimension (a record's own, made up). */
function unitVector(dimension: number, seed: number): number[] {
  const v = Array.from({ length: dimension }, (_, i) => Math.sin(seed * 7.1 + i * 0.37));
  const norm = Math.hypot(...v);
  return v.map((x) => Math.fround(x / norm));
}

beforeAll(async () => {
  a = await startServer();
  b = await startServer();
  [keyA, keyB] = await Promise.all([a.login(), b.login()]);
  await Promise.all([a.adam.reconciled, b.adam.reconciled]);
  for (const [name, text] of Object.entries(ARTICLES)) {
    const r = await a.api('/api/v1/playground/save-segments', {
      method: 'POST',
      key: keyA,
      body: {
        title: `About ${name}`,
        language: 'en',
        text,
        source_url: `https://articles.example/${name}`,
        wait: true,
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
  // A heading path on some rows (a page's sections): the round trip must keep it.
  a.adam.db.prepare("UPDATE snippets SET section = 'History › Early years' WHERE id % 2 = 0").run();
  const res = await fetch(`${a.url}/api/v1/snippets/export`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': keyA },
    body: JSON.stringify({ format: 'jsonl', include_embeddings: true }),
  });
  expect(res.status).toBe(200);
  exported = await res.text();
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

describe('export with embeddings', () => {
  it('writes each row with its vector and the embedder that made it', () => {
    const lines = exported.trimEnd().split('\n');
    expect(lines.length).toBe(count(a));
    const first = JSON.parse(lines[0]!) as { embedding: number[]; embedder_id: string };
    expect(first.embedder_id).toBe(a.adam.services.engine.id);
    expect(first.embedding).toHaveLength(a.adam.services.engine.dimension);
  });

  it('leaves them out unless asked (the file is as before)', async () => {
    const res = await fetch(`${a.url}/api/v1/snippets/export`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': keyA },
      body: JSON.stringify({ format: 'jsonl' }),
    });
    const plain = (await res.text()).trimEnd().split('\n');
    const withVectors = exported.trimEnd().split('\n');
    expect(plain).toHaveLength(withVectors.length);
    plain.forEach((line, i) => {
      const {
        embedding: _e,
        embedder_id: _id,
        ...rest
      } = JSON.parse(withVectors[i]!) as Record<string, unknown>;
      expect(line).toBe(JSON.stringify(rest));
    });
  });
});

describe('round trip into a fresh ADAM', () => {
  let result: Record<string, number>;

  beforeAll(async () => {
    const { job } = await importAndWait(b, keyB, exported);
    expect(job.status, JSON.stringify(job.errors)).toBe('completed');
    result = job.metadata.result as Record<string, number>;
  });

  it('gives the same snippets: texts, sources, themes, quality, language, metadata', () => {
    const strip = ({ embedding: _e, index_pending: _p, ...r }: Row) => r;
    expect(rows(b).map(strip)).toEqual(rows(a).map(strip));
    expect(rows(b).filter((r) => r.section === 'History › Early years').length).toBeGreaterThan(0);
    expect(result).toMatchObject({ records: count(a), imported: count(a), duplicates: 0 });
  });

  it('reuses every vector byte for byte, and indexes them all', () => {
    const inA = rows(a);
    const inB = rows(b);
    expect(result.vectors_reused).toBe(inA.length);
    expect(result.reembedded).toBe(0);
    inB.forEach((r, i) => expect(Buffer.compare(r.embedding!, inA[i]!.embedding!)).toBe(0));
    expect(inB.every((r) => r.index_pending === 0)).toBe(true);
    expect(b.adam.services.index.size).toBe(inA.length);
  });

  it('restores the sources as import sources with their titles', async () => {
    const r = await b.api('/api/v1/sources/list?per_page=100', { key: keyB });
    expect(r.status).toBe(200);
    const sources = (r.body.sources as { url: string; title: string; kind: string }[])
      .map((s) => ({ url: s.url, title: s.title, kind: s.kind }))
      .sort((x, y) => x.url.localeCompare(y.url));
    expect(sources).toEqual(
      Object.keys(ARTICLES)
        .sort()
        .map((name) => ({
          url: `https://articles.example/${name}`,
          title: `About ${name}`,
          kind: 'import',
        })),
    );
  });

  it('finds the imported snippets by vector and by keyword', async () => {
    for (const mode of ['vector', 'keyword']) {
      const r = await b.api('/api/v1/snippets/search', {
        method: 'POST',
        key: keyB,
        body: { query: 'volcano eruption magma', mode, k: 3 },
      });
      expect(r.status).toBe(200);
      expect(r.body.results[0].source_info.url).toBe('https://articles.example/volcanoes');
    }
  });

  it('counts a second import of the same file as duplicates, adding nothing', async () => {
    const before = count(b);
    const dry = await postImport(b, keyB, exported, '?dry_run=true');
    expect(dry.status).toBe(200);
    expect(await dry.json()).toMatchObject({
      dry_run: true,
      job_id: null,
      records: before,
      duplicates: before,
    });
    const { job } = await importAndWait(b, keyB, exported);
    expect(job.metadata.result).toMatchObject({ imported: 0, duplicates: before });
    expect(count(b)).toBe(before);
  });
});

describe('vectors of another embedder', () => {
  it('re-embeds a record whose embedder differs, and keeps a matching one as given', async () => {
    const s = b.adam.services;
    const dimension = s.engine.dimension;
    const own = unitVector(dimension, 1);
    const lines = [
      {
        text: 'Glaciers carve valleys as they slide downhill under their own weight.',
        theme: 'science',
        quality_score: 0.61,
        embedding: unitVector(dimension, 2),
        embedder_id: 'onnx:someone/else@main',
      },
      {
        text: 'A compiler turns source code into machine instructions in several passes.',
        theme: 'technology',
        quality_score: 0.72,
        embedding: own,
        embedder_id: s.engine.id,
      },
    ];
    const dry = await postImport(
      b,
      keyB,
      lines.map((l) => JSON.stringify(l)).join('\n'),
      '?dry_run=1',
    );
    expect(await dry.json()).toMatchObject({ records: 2, vectors_reused: 1, to_embed: 1 });
    const { job } = await importAndWait(b, keyB, lines.map((l) => JSON.stringify(l)).join('\n'));
    expect(job.metadata.result).toMatchObject({ imported: 2, vectors_reused: 1, reembedded: 1 });
    const stored = new Map(rows(b).map((r) => [r.text, r]));
    const glacier = stored.get(lines[0]!.text)!;
    expect(glacier.embedder_id).toBe(s.engine.id);
    const [fresh] = await s.engine.embed([lines[0]!.text]);
    expect(Buffer.compare(glacier.embedding!, Buffer.from(fresh!.buffer))).toBe(0);
    const compiler = stored.get(lines[1]!.text)!;
    expect(Buffer.compare(compiler.embedding!, Buffer.from(Float32Array.from(own).buffer))).toBe(0);
    expect(compiler).toMatchObject({ theme: 'technology', quality_score: 0.72, index_pending: 0 });
  });

  it('analyses a minimal record like pasted text', async () => {
    const before = count(b);
    const { job } = await importAndWait(
      b,
      keyB,
      JSON.stringify({ text: ARTICLES.databases.replace(/data/g, 'records'), title: 'Stores' }) +
        '\n',
    );
    const r = job.metadata.result as Record<string, number>;
    expect(r).toMatchObject({ records: 1, analysed: 1 });
    expect(r.imported).toBeGreaterThan(0);
    expect(count(b)).toBe(before + r.imported!);
  });
});

describe('refusals: nothing is imported', () => {
  let small: TestServer;
  let keyS: string;
  beforeAll(async () => {
    small = await startServer({ build: { importMaxBytes: 64 * 1024 } });
    keyS = await small.login();
  });
  afterAll(async () => {
    await small?.close();
  });

  it('names every bad line by number with its reason', async () => {
    const before = count(b);
    const jobs = count(b, 'jobs');
    const body = [
      JSON.stringify({ text: 'A fine record about tides and the moon.', title: 'Tides' }),
      JSON.stringify({ title: 'no text' }),
      '',
      JSON.stringify({ text: 'Bad theme', theme: 'cooking', quality_score: 0.5 }),
      '{"text": "broken',
      JSON.stringify({ text: 'Bad url', url: 'javascript:alert(1)' }),
      JSON.stringify({ text: 'Bad score', theme: 'science', quality_score: 7 }),
      '[1, 2, 3]',
    ].join('\n');
    const res = await postImport(b, keyB, body);
    expect(res.status).toBe(422);
    const err = (await res.json()) as { detail: string; errors: { field: string }[] };
    expect(err.detail).toMatch(/^6 of 7 lines are not valid records, nothing was imported/);
    expect(err.detail).toContain('line 2: text: required');
    expect(err.errors.map((e) => e.field)).toEqual([
      'line 2',
      'line 4',
      'line 5',
      'line 6',
      'line 7',
      'line 8',
    ]);
    expect(count(b)).toBe(before);
    expect(count(b, 'jobs')).toBe(jobs);
    expect(importFiles(b)).toEqual([]);
  });

  it('refuses hostile lines clearly, each bounded', async () => {
    const deep = '{"a":'.repeat(200) + '1' + '}'.repeat(200);
    const body = [
      JSON.stringify({ text: 'x'.repeat(10 * 1024 * 1024) }),
      `{"text": "deep", "metadata": ${deep}}`,
      '{"text": "proto", "metadata": {"__proto__": {"polluted": true}}}',
      '{"text": "nan", "theme": "science", "quality_score": 0.5, "embedding": [NaN, 1]}',
      '{"text": "inf", "theme": "science", "quality_score": 0.5, "embedding": [1e999, 1]}',
      '{"text": "big", "theme": "science", "quality_score": 0.5, "embedding": [1e300, 1]}',
      '{"text": "nul \\u0000 inside"}',
    ].join('\n');
    const res = await postImport(b, keyB, body);
    expect(res.status).toBe(422);
    const err = (await res.json()) as { errors: { field: string; message: string }[] };
    const byLine = Object.fromEntries(err.errors.map((e) => [e.field, e.message]));
    expect(byLine['line 1']).toMatch(/longer than 1048576 bytes/);
    expect(byLine['line 2']).toMatch(/nested deeper than 32 levels/);
    expect(byLine['line 3']).toMatch(/__proto__/);
    expect(byLine['line 4']).toMatch(/not valid JSON/);
    expect(byLine['line 5']).toMatch(/embedding\.0: must be a finite number/);
    expect(byLine['line 6']).toMatch(/must fit a 32-bit float/);
    expect(byLine['line 7']).toMatch(/NUL/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(importFiles(b)).toEqual([]);
  });

  it('answers 413 past the size limit, declared or streamed', async () => {
    const line = JSON.stringify({ text: 'Rivers carry sediment to the sea. '.repeat(50) }) + '\n';
    const body = line.repeat(Math.ceil((100 * 1024) / line.length));
    const declared = await postImport(small, keyS, body);
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as { detail: string }).detail).toMatch(/larger than/);
    const bytes = new TextEncoder().encode(body);
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < bytes.length; i += 8192) c.enqueue(bytes.subarray(i, i + 8192));
        c.close();
      },
    });
    const streamed = await postImport(small, keyS, stream);
    expect(streamed.status).toBe(413);
    expect(count(small)).toBe(0);
    expect(importFiles(small)).toEqual([]);
    // Under the limit, the same records go in.
    const ok = await postImport(small, keyS, line.repeat(3), '?dry_run=true');
    expect(ok.status).toBe(200);
  });

  it('answers 415 for a JSON body', async () => {
    const r = await small.api('/api/v1/snippets/import', {
      method: 'POST',
      key: keyS,
      body: { text: 'not lines' },
    });
    expect(r.status).toBe(415);
  });
});

describe('all or nothing', () => {
  /** Restored records with their own vectors: no model work, many rows. */
  function records(n: number, tag: string): string {
    const s = b.adam.services;
    const out: string[] = [];
    for (let i = 0; i < n; i++)
      out.push(
        JSON.stringify({
          text: `Record ${i} of the ${tag} batch tells of harbour ${i * 7} and its lighthouse.`,
          title: `${tag} ${i}`,
          url: `https://${tag}.example/${i % 5}`,
          theme: 'general',
          quality_score: 0.5,
          embedding: unitVector(s.engine.dimension, i + 10),
          embedder_id: s.engine.id,
        }),
      );
    return out.join('\n');
  }

  it('leaves nothing when storing fails half-way', async () => {
    const before = count(b);
    const sources = count(b, 'sources');
    const proto = SnippetRepository.prototype;
    const original = proto.insertMany;
    let calls = 0;
    // The rows are stored IMPORT_MOVE_ROWS per transaction: the second batch fails.
    proto.insertMany = function (this: SnippetRepository, rs) {
      if (++calls === 2) throw new Error('disk full (forced)');
      return original.call(this, rs);
    };
    try {
      const { job } = await importAndWait(b, keyB, records(3 * IMPORT_MOVE_ROWS, 'failing'));
      expect(job.status).toBe('failed');
      expect(JSON.stringify(job.errors)).toContain('disk full (forced)');
    } finally {
      proto.insertMany = original;
    }
    expect(calls).toBe(2);
    expect(count(b)).toBe(before);
    expect(count(b, 'sources')).toBe(sources);
    expect(count(b, 'import_staging')).toBe(0);
    expect(b.adam.services.index.size).toBe(before);
    expect(importFiles(b)).toEqual([]);
  });

  it('takes out what it stored when cancelled while storing', async () => {
    const before = count(b);
    const proto = SnippetRepository.prototype;
    const original = proto.insertMany;
    let jobId = 0;
    let calls = 0;
    // The rows are stored a batch per transaction: the job is cancelled as the first lands.
    proto.insertMany = function (this: SnippetRepository, rs) {
      const out = original.call(this, rs);
      if (++calls === 1) b.adam.services.jobs.cancel(jobId);
      return out;
    };
    try {
      const res = await postImport(b, keyB, records(3 * IMPORT_MOVE_ROWS, 'cancelled-store'));
      jobId = ((await res.json()) as { job_id: number }).job_id;
      await until(() => importFiles(b).length === 0, { what: 'the import ended' });
    } finally {
      proto.insertMany = original;
    }
    expect(calls).toBe(1);
    expect(b.adam.services.jobs.get(jobId).status).toBe('cancelled');
    expect(count(b)).toBe(before);
    expect(count(b, 'import_staging')).toBe(0);
  });

  it('undoes an import a crash cut short when the next one runs', async () => {
    const before = count(b);
    const proto = SnippetImporter.prototype;
    const undo = proto.undo;
    // A crash after the first batch was stored: the job ends without undoing it.
    let crashes = 1;
    proto.undo = async function (this: SnippetImporter, jobId: number) {
      if (crashes > 0 && count(b, 'import_staging') > 0) {
        crashes--;
        return 0;
      }
      return undo.call(this, jobId);
    };
    const orig = SnippetRepository.prototype.insertMany;
    let calls = 0;
    SnippetRepository.prototype.insertMany = function (this: SnippetRepository, rs) {
      if (++calls === 2) throw new Error('power cut (forced)');
      return orig.call(this, rs);
    };
    try {
      const { job } = await importAndWait(b, keyB, records(3 * IMPORT_MOVE_ROWS, 'crashed'));
      expect(job.status).toBe('failed');
    } finally {
      SnippetRepository.prototype.insertMany = orig;
    }
    expect(count(b)).toBe(before + IMPORT_MOVE_ROWS);
    try {
      const { job } = await importAndWait(
        b,
        keyB,
        JSON.stringify({
          text: 'After the crash, a lone record.',
          theme: 'general',
          quality_score: 0.3,
        }),
      );
      expect(job.metadata.result).toMatchObject({ imported: 1 });
    } finally {
      proto.undo = undo;
    }
    expect(count(b)).toBe(before + 1);
    expect(count(b, 'import_staging')).toBe(0);
  });

  it('leaves nothing when cancelled mid-way', async () => {
    const before = count(b);
    const engine = b.adam.services.engine;
    const embed = engine.embed.bind(engine);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let waiting = false;
    // Records without vectors are embedded a batch at a time: once a batch is staged, the next
    // one waits here.
    engine.embed = async (texts: string[]) => {
      if (count(b, 'import_staging') > 0) {
        waiting = true;
        await gate;
      }
      return embed(texts);
    };
    try {
      const lines = Array.from({ length: 300 }, (_, i) =>
        JSON.stringify({
          text: `Cancelled record ${i} about the mill on the river ${i * 3}.`,
          theme: 'general',
          quality_score: 0.4,
        }),
      ).join('\n');
      const res = await postImport(b, keyB, lines);
      const { job_id } = (await res.json()) as { job_id: number };
      await until(() => waiting, { what: 'a batch staged and the next one waiting' });
      const cancel = await b.api(`/api/v1/sources/jobs/${job_id}/cancel`, {
        method: 'POST',
        key: keyB,
      });
      expect(cancel.status).toBe(200);
      release();
      await until(() => importFiles(b).length === 0 && count(b, 'import_staging') === 0, {
        what: 'the import stopped and cleaned up',
      });
      expect(b.adam.services.jobs.get(job_id).status).toBe('cancelled');
    } finally {
      engine.embed = embed;
      release();
    }
    expect(count(b)).toBe(before);
  });
});
