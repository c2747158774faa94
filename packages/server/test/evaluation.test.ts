/**
 * Evaluation sets over the API (issue 27): a BEIR upload on a small generated set in that layout
 * (and each kind of bad input), sets and their versions, a run end to end, two runs compared.
 * Both queue modes run evaluation_run in job-drivers.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers.js';
import { createRoleUser } from './role-users.js';
import { until } from './until.js';

let s: TestServer;
let key: string;
let viewer: string;

/** A generated corpus on four distinct subjects; doc-4 is never judged. */
const CORPUS = [
  {
    _id: 'doc-1',
    title: 'Volcanic eruptions',
    text: 'A volcano erupts when magma rises through the crust and escapes as lava, ash and gas. Basaltic lava flows far from the vent, while sticky rhyolite magma traps gas and explodes.',
  },
  {
    _id: 'doc-2',
    title: 'Sourdough baking',
    text: 'Sourdough bread rises with a starter of wild yeast and lactic bacteria fed on flour and water. Bakers fold the dough, let it ferment overnight and bake it in a hot covered pot.',
  },
  {
    _id: 'doc-3',
    title: 'Chess openings',
    text: 'A chess opening is the first moves of a game. The Sicilian defence answers the king pawn with the c-pawn, and the Queen gambit offers a pawn for control of the centre.',
  },
  {
    _id: 'doc-4',
    title: 'Lighthouse keeping',
    text: 'Lighthouse keepers trimmed the wicks and wound the clockwork that turned the great lens every night. They logged passing ships in a ledger, polished the brass and kept the fog bell ringing through long winter storms on rocky islands.',
  },
];
const QUERIES = [
  { _id: 'q1', text: 'how does lava erupt from a volcano' },
  { _id: 'q2', text: 'sourdough starter yeast fermentation' },
  { _id: 'q3', text: 'sicilian defence chess opening' },
  { _id: 'q4', text: 'a query no qrels line names' },
];
const QRELS = [
  'query-id\tcorpus-id\tscore',
  'q1\tdoc-1\t2',
  'q2\tdoc-2\t1',
  'q3\tdoc-3\t2',
  'q3\tdoc-missing\t1',
];

const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

function beirForm(
  files: { name: string; data: string | Buffer }[],
  fields: Record<string, string> = { name: 'Generated BEIR set' },
): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  for (const file of files) f.append('file', new Blob([file.data]), file.name);
  return f;
}

const goodFiles = (over: Record<string, string> = {}) =>
  Object.entries({
    'queries.jsonl': jsonl(QUERIES),
    'qrels/test.tsv': QRELS.join('\n') + '\n',
    ...over,
  }).map(([name, data]) => ({ name, data }));

async function upload(body: FormData | string, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.url}/api/v1/evaluation/sets/import`, {
    method: 'POST',
    headers: { 'x-api-key': key, ...headers },
    body,
  });
  return { status: res.status, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function jobEnd(jobId: number) {
  return until(
    async () => {
      const r = await s.api(`/api/v1/sources/jobs/${jobId}`, { key });
      return ['completed', 'failed', 'cancelled'].includes(r.body.status) ? r.body : null;
    },
    { timeout: 90_000, what: `job ${jobId} to end` },
  );
}

async function runToEnd(setId: number, body: Record<string, unknown> = {}) {
  const started = await s.api('/api/v1/evaluation/runs', {
    method: 'POST',
    key,
    body: { set_id: setId, ...body },
  });
  expect(started.status).toBe(202);
  const job = await jobEnd(started.body.job_id);
  expect(job.status, JSON.stringify(job.errors)).toBe('completed');
  return (await s.api(`/api/v1/evaluation/runs/${started.body.id}`, { key })).body;
}

let imported: any; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  s = await startServer();
  key = await s.login();
  viewer = (await createRoleUser(s, key, 'viewer')).key;
  const r = await upload(
    beirForm(goodFiles({ 'corpus.jsonl': jsonl(CORPUS) }), {
      name: 'Generated BEIR set',
      description: 'four subjects',
      import_corpus: 'true',
    }),
  );
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  imported = r.body;
  expect((await jobEnd(imported.corpus.job_id)).status).toBe('completed');
}, 120_000);
afterAll(async () => {
  await s?.close();
});

describe('BEIR import', () => {
  it('makes a set of the judged queries, imports the corpus, and reports the unmapped ids', async () => {
    expect(imported).toMatchObject({
      queries: 3,
      judgments: 3,
      queries_without_judgments: 1,
      mapped: { snippet: 0, source: 0, source_url: 0, source_title: 3 },
      unmapped: { count: 1, ids: ['doc-missing'] },
      corpus: { records: 4 },
      set: { name: 'Generated BEIR set', description: 'four subjects', latest: { number: 1 } },
    });
    const set = await s.api(`/api/v1/evaluation/sets/${imported.set.id}`, { key: viewer });
    expect(set.status).toBe(200);
    expect(set.body.queries.map((q: { text: string }) => q.text)).toEqual(
      QUERIES.slice(0, 3).map((q) => q.text),
    );
    expect(set.body.queries[0].judgments).toEqual([
      { kind: 'source_title', ref: 'Volcanic eruptions', grade: 2 },
    ]);
    const titles = s.adam.db
      .prepare('SELECT DISTINCT source_title FROM snippets ORDER BY 1')
      .pluck()
      .all();
    expect(titles).toEqual(CORPUS.map((d) => d.title).sort());
  });

  it('maps corpus ids to existing sources by title without importing the corpus again', async () => {
    const r = await upload(
      beirForm(
        goodFiles({
          'corpus.jsonl': jsonl(CORPUS),
          'qrels/dev.tsv': 'query-id\tcorpus-id\tscore\nq1\tVolcanic eruptions\t1\n',
        }),
      ),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.corpus).toBeNull();
    expect(r.body.mapped.source_title).toBe(4);
    expect(r.body.unmapped.ids).toEqual(['doc-missing']);
  });

  const bad: [string, () => FormData, RegExp][] = [
    [
      'a line of queries.jsonl that is not JSON',
      () =>
        beirForm(
          goodFiles({ 'queries.jsonl': `${JSON.stringify(QUERIES[0])}\n{"_id": "q2", "text"\n` }),
        ),
      /queries\.jsonl line 2: line/,
    ],
    [
      'a query without text',
      () => beirForm(goodFiles({ 'queries.jsonl': jsonl([QUERIES[0]!, { _id: 'q2' }]) })),
      /queries\.jsonl line 2: text/,
    ],
    [
      'a qrels file without its header',
      () => beirForm(goodFiles({ 'qrels/test.tsv': 'q1\tdoc-1\t1\n' })),
      /test\.tsv line 1: header/,
    ],
    [
      'a score that is not 0 to 3',
      () =>
        beirForm(
          goodFiles({
            'qrels/test.tsv': 'query-id\tcorpus-id\tscore\nq1\tdoc-1\t1\nq2\tdoc-2\t7\n',
          }),
        ),
      /test\.tsv line 3: score must be an integer from 0 to 3/,
    ],
    [
      'a qrels line of two fields',
      () => beirForm(goodFiles({ 'qrels/test.tsv': 'query-id\tcorpus-id\tscore\nq1 doc-1 1\n' })),
      /test\.tsv line 2: line must hold 3 tab-separated fields/,
    ],
    [
      'a qrels query id queries.jsonl lacks',
      () => beirForm(goodFiles({ 'qrels/test.tsv': 'query-id\tcorpus-id\tscore\nq9\tdoc-1\t1\n' })),
      /q9 is not in queries\.jsonl/,
    ],
    [
      'a corpus line without text',
      () => beirForm(goodFiles({ 'corpus.jsonl': jsonl([{ _id: 'doc-1', title: 'x' }]) })),
      /corpus\.jsonl line 1: text/,
    ],
    [
      'no queries.jsonl',
      () => beirForm(goodFiles().filter((f) => f.name !== 'queries.jsonl')),
      /queries\.jsonl is missing/,
    ],
    [
      'a file outside the layout',
      () => beirForm([...goodFiles(), { name: 'notes.txt', data: 'x' }]),
      /notes\.txt: not a file of the BEIR layout/,
    ],
    [
      'import_corpus without corpus.jsonl',
      () => beirForm(goodFiles(), { name: 'x', import_corpus: 'true' }),
      /no corpus\.jsonl was sent/,
    ],
    ['no name', () => beirForm(goodFiles(), {}), /name must be 1 to 200 characters/],
  ];
  it.each(bad)(
    'answers 422 naming the line and field for %s, and stores nothing',
    async (_, body, detail) => {
      const before = (await s.api('/api/v1/evaluation/sets', { key })).body.sets.length;
      const r = await upload(body());
      expect(r.status).toBe(422);
      expect(r.body.detail).toMatch(detail);
      expect((await s.api('/api/v1/evaluation/sets', { key })).body.sets.length).toBe(before);
    },
  );

  it('answers 413 for a file past 64 MB', async () => {
    const huge = Buffer.alloc(64 * 1024 * 1024 + 1024, 0x20);
    const r = await upload(beirForm([...goodFiles(), { name: 'corpus.jsonl', data: huge }]));
    expect(r.status).toBe(413);
    expect(r.body.detail).toMatch(/too large/);
  });

  it('answers 415 for a body that is not multipart, and 403 to a viewer', async () => {
    const r = await upload(jsonl(QUERIES), { 'content-type': 'application/json' });
    expect([415, 400]).toContain(r.status);
    const v = await fetch(`${s.url}/api/v1/evaluation/sets/import`, {
      method: 'POST',
      headers: { 'x-api-key': viewer },
      body: beirForm(goodFiles()),
    });
    expect(v.status).toBe(403);
  });
});

describe('sets and versions', () => {
  it('makes a new version for each edit and keeps the old ones as they were', async () => {
    const created = await s.api('/api/v1/evaluation/sets', {
      method: 'POST',
      key,
      body: {
        name: 'Hand-made',
        queries: [
          { text: 'volcano lava', judgments: [{ source_title: 'Volcanic eruptions', grade: 3 }] },
        ],
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    // A query from a search the console ran: its results marked by snippet id.
    const search = await s.api('/api/v1/snippets/search', {
      method: 'POST',
      key,
      body: { query: 'sourdough bread', mode: 'keyword', k: 3 },
    });
    const top = search.body.results[0].snippet_id as number;
    const added = await s.api(`/api/v1/evaluation/sets/${id}/queries`, {
      method: 'POST',
      key,
      body: { text: 'sourdough bread', judgments: [{ snippet_id: top, grade: 2 }] },
    });
    expect(added.status).toBe(201);
    expect(added.body.version.number).toBe(2);
    const qKey = added.body.queries[1].key as number;
    const edited = await s.api(`/api/v1/evaluation/sets/${id}/queries/${qKey}/judgments`, {
      method: 'PUT',
      key,
      body: {
        judgments: [
          { snippet_id: top, grade: 1 },
          { source_id: 999999, grade: 0 },
        ],
      },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.version).toMatchObject({
      number: 3,
      change: `judgments of query ${qKey} edited`,
    });
    const removed = await s.api(`/api/v1/evaluation/sets/${id}/queries/${qKey}`, {
      method: 'DELETE',
      key,
    });
    expect(removed.body.version).toMatchObject({ number: 4, query_count: 1 });
    const v2 = await s.api(`/api/v1/evaluation/sets/${id}/versions/2`, { key: viewer });
    expect(v2.body.queries[1].judgments).toEqual([{ kind: 'snippet', ref: String(top), grade: 2 }]);
    const versions = await s.api(`/api/v1/evaluation/sets/${id}/versions`, { key: viewer });
    expect(versions.body.versions.map((v: { number: number }) => v.number)).toEqual([4, 3, 2, 1]);
    const renamed = await s.api(`/api/v1/evaluation/sets/${id}`, {
      method: 'PATCH',
      key,
      body: { name: 'Renamed' },
    });
    expect(renamed.body).toMatchObject({ name: 'Renamed', latest: { number: 4 } });
  });

  it('refuses bad judgments, unknown sets and queries, and writes by a viewer', async () => {
    const two = await s.api('/api/v1/evaluation/sets', {
      method: 'POST',
      key,
      body: {
        name: 'x',
        queries: [{ text: 'q', judgments: [{ snippet_id: 1, source_id: 2, grade: 1 }] }],
      },
    });
    expect(two.status).toBe(422);
    expect(JSON.stringify(two.body)).toMatch(/exactly one of/);
    const grade = await s.api('/api/v1/evaluation/sets', {
      method: 'POST',
      key,
      body: { name: 'x', queries: [{ text: 'q', judgments: [{ snippet_id: 1, grade: 4 }] }] },
    });
    expect(grade.status).toBe(422);
    expect(JSON.stringify(grade.body)).toMatch(/0 to 3/);
    expect((await s.api('/api/v1/evaluation/sets/999', { key })).status).toBe(404);
    const noQuery = await s.api(`/api/v1/evaluation/sets/${imported.set.id}/queries/999`, {
      method: 'DELETE',
      key,
    });
    expect(noQuery.status).toBe(404);
    expect(noQuery.body.detail).toBe('Query 999 not found');
    const asViewer = await s.api('/api/v1/evaluation/sets', {
      method: 'POST',
      key: viewer,
      body: { name: 'x' },
    });
    expect(asViewer.status).toBe(403);
  });
});

describe('runs', () => {
  let first: any; // eslint-disable-line @typescript-eslint/no-explicit-any

  it('scores every query in every mode through the real search, with the state it ran on', async () => {
    first = await runToEnd(imported.set.id);
    expect(first.status).toBe('completed');
    expect(first.modes).toEqual(['keyword', 'vector', 'hybrid']);
    expect(first.state).toMatchObject({
      embedder: s.adam.services.engine.id,
      fusion: { vector_weight: 0.4 },
    });
    expect(first.state.snippet_count).toBe(
      s.adam.db.prepare('SELECT COUNT(*) FROM snippets').pluck().get(),
    );
    expect(first.state.snippet_count).toBeGreaterThanOrEqual(4);
    const keyword = first.summary.find((m: { mode: string }) => m.mode === 'keyword');
    // Each query names its subject: keyword search puts the judged document first.
    expect(keyword).toMatchObject({ queries: 3, mrr: 1, recall_10: 1 });
    expect(keyword.latency_p95_ms).toBeGreaterThanOrEqual(keyword.latency_p50_ms);
    const results = await s.api(`/api/v1/evaluation/runs/${first.id}/results?mode=keyword`, {
      key: viewer,
    });
    expect(results.body.results).toHaveLength(3);
    const volcano = results.body.results[0];
    const titleOf = s.adam.db.prepare('SELECT source_title FROM snippets WHERE id = ?').pluck();
    expect(titleOf.get(volcano.ranked[0])).toBe('Volcanic eruptions');
    expect(volcano).toMatchObject({ text: QUERIES[0]!.text, mrr: 1, ndcg_10: 1 });
    const all = await s.api(`/api/v1/evaluation/runs/${first.id}/results`, { key });
    expect(all.body.results).toHaveLength(9);
  }, 120_000);

  it('compares two runs: the query whose judgment moved lost, the others stayed', async () => {
    const set = (await s.api(`/api/v1/evaluation/sets/${imported.set.id}`, { key })).body;
    const chess = set.queries[2];
    // The chess query now judges the lighthouse page relevant instead: it must lose.
    await s.api(`/api/v1/evaluation/sets/${imported.set.id}/queries/${chess.key}/judgments`, {
      method: 'PUT',
      key,
      body: { judgments: [{ source_title: 'Lighthouse keeping', grade: 2 }] },
    });
    const second = await runToEnd(imported.set.id, { modes: ['keyword'] });
    expect(second.version).toBe(2);
    const c = await s.api(`/api/v1/evaluation/runs/compare?base=${first.id}&head=${second.id}`, {
      key: viewer,
    });
    expect(c.status).toBe(200);
    expect(c.body.summary).toEqual([
      expect.objectContaining({ mode: 'keyword', gained: 0, lost: 1, unchanged: 2 }),
    ]);
    const lost = c.body.queries.find((q: { key: number }) => q.key === chess.key);
    expect(lost).toMatchObject({ outcome: 'lost', text: QUERIES[2]!.text, base: { mrr: 1 } });
    expect(lost.delta.ndcg_10).toBeLessThan(0);
    // The same search both times: nothing entered, left or moved.
    expect(lost).toMatchObject({ entered: [], left: [], moved: [] });
  }, 120_000);

  it('answers 404 for unknown runs and sets, 422 for bad modes, 409 comparing an unfinished run', async () => {
    expect((await s.api('/api/v1/evaluation/runs/999', { key })).status).toBe(404);
    const noSet = await s.api('/api/v1/evaluation/runs', {
      method: 'POST',
      key,
      body: { set_id: 999 },
    });
    expect(noSet.status).toBe(404);
    const badMode = await s.api('/api/v1/evaluation/runs', {
      method: 'POST',
      key,
      body: { set_id: imported.set.id, modes: ['keyword', 'keyword'] },
    });
    expect(badMode.status).toBe(422);
    const empty = await s.api('/api/v1/evaluation/sets', {
      method: 'POST',
      key,
      body: { name: 'empty' },
    });
    const none = await s.api('/api/v1/evaluation/runs', {
      method: 'POST',
      key,
      body: { set_id: empty.body.id },
    });
    expect(none.status).toBe(422);
    const runId = s.adam.db
      .prepare(
        "INSERT INTO eval_runs (set_id, version_id, modes, status, created_at) VALUES (?, ?, '[\"keyword\"]', 'pending', '2026-01-01') RETURNING id",
      )
      .pluck()
      .get(imported.set.id, imported.set.latest.id) as number;
    const c = await s.api(`/api/v1/evaluation/runs/compare?base=${first.id}&head=${runId}`, {
      key,
    });
    expect(c.status).toBe(409);
    expect(c.body.detail).toMatch(/only completed runs compare/);
    // A run whose job was deleted before it ran is closed when read, not left waiting.
    const orphan = s.adam.db
      .prepare(
        "INSERT INTO eval_runs (set_id, version_id, modes, status, job_id, created_at) VALUES (?, ?, '[\"keyword\"]', 'pending', 99999, '2026-01-01') RETURNING id",
      )
      .pluck()
      .get(imported.set.id, imported.set.latest.id) as number;
    const closed = await s.api(`/api/v1/evaluation/runs/${orphan}`, { key: viewer });
    expect(closed.body).toMatchObject({ status: 'failed', error: 'Its job 99999 was deleted' });
    // A set with a run in progress stays; one without goes, and only for an administrator.
    const busy = await s.api(`/api/v1/evaluation/sets/${imported.set.id}`, {
      method: 'DELETE',
      key,
    });
    expect(busy.status).toBe(409);
    const operator = (await createRoleUser(s, key, 'operator')).key;
    const asOperator = await s.api(`/api/v1/evaluation/sets/${empty.body.id}`, {
      method: 'DELETE',
      key: operator,
    });
    expect(asOperator.status).toBe(403);
    const gone = await s.api(`/api/v1/evaluation/sets/${empty.body.id}`, { method: 'DELETE', key });
    expect(gone.status).toBe(204);
    expect((await s.api(`/api/v1/evaluation/sets/${empty.body.id}`, { key })).status).toBe(404);
  });
});
