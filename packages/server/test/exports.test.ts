/**
 * POST /snippets/export past 100,000 rows: every row in each format, streamed as it is read,
 * two exports at a time, a client that leaves frees its slot and its thread, /health answered
 * meanwhile. Rows are read on each export's own thread: "rows read" is what those threads
 * report, so the checks wait on what the server did, never on the clock; and the server's own
 * repository is watched, since a row read there would hold the event loop.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SnippetRepository } from '../src/store/snippet.repository.js';
import { startServer, type TestServer } from './helpers.js';
import { until } from './until.js';

/** Past the 100,000 rows every export used to stop at without saying so. */
const ROWS = 100_123;

let s: TestServer;
let key: string;

/** Rows the export threads have read since `read.reset()`. */
const read = {
  since: 0,
  get rows(): number {
    return exportThreads().rowsRead - this.since;
  },
  reset(): void {
    this.since = exportThreads().rowsRead;
  },
};

/**
 * Calls on the server thread's repository by the methods an export could read rows or ids by:
 * none may come from an export (each would hold the event loop for a page).
 */
const mainThreadReads: string[] = [];
const originals: [string, unknown][] = [];
function watchMainThreadReads(): void {
  const proto = SnippetRepository.prototype as unknown as Record<string, unknown>;
  for (const name of ['findByIds', 'pageAfterId', 'existingIds', 'maxId', 'embeddings']) {
    const original = proto[name];
    if (typeof original !== 'function') continue;
    originals.push([name, original]);
    proto[name] = function (this: unknown, ...args: unknown[]) {
      mainThreadReads.push(name);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
}

beforeAll(async () => {
  s = await startServer();
  key = await s.login();
  await s.adam.reconciled;
  // Bare SQL, one statement: ingestion would take minutes for this many rows.
  s.adam.db
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO snippets (text, text_hash, theme, quality_score, language, word_count,
         size_bytes, source_title, source_url, job_id, metadata, index_pending, created_at, updated_at)
       SELECT 'Row ' || i || ', with a "quoted" word', 'export-test-' || i, 'science', 0.5, 'en', 5,
         30, CASE WHEN i % 3 = 0 THEN '=Title ' || i END,
         CASE WHEN i % 3 = 0 THEN 'https://export.example/' || i END, NULL, '{}', 1,
         '2026-11-26T10:00:00.000Z', '2026-11-26T10:00:00.000Z'
       FROM n`,
    )
    .run(ROWS);
  watchMainThreadReads();
}, 120_000);
afterAll(async () => {
  const proto = SnippetRepository.prototype as unknown as Record<string, unknown>;
  for (const [name, original] of originals) proto[name] = original;
  await s?.close();
});

const exportsRunning = () => s.adam.services.snippets.exportsInProgress;
const exportThreads = () => s.adam.services.snippets.exportThreadStats;
afterEach(async () => {
  // Every test leaves its exports ended or aborted: the next one starts with both slots free
  // and no export thread left.
  await until(() => exportsRunning() === 0, { what: 'export slots freed' });
  await until(() => exportThreads().threads === 0, { what: 'export threads ended' });
  // Whatever the export, not one row or id was read on the server's thread.
  expect(mainThreadReads).toEqual([]);
});

function startExport(body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(`${s.url}/api/v1/snippets/export`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
    signal,
  });
}

/** Reads a body to its end, calling `onChunk` with each piece of text. */
async function drain(res: Response, onChunk: (text: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of res.body!) onChunk(decoder.decode(chunk, { stream: true }));
}

/** Counts the line ends of a body and keeps its last line (no body held whole). */
async function lines(res: Response): Promise<{ count: number; first: string; last: string }> {
  let count = 0;
  let first = '';
  let tail = '';
  let last = '';
  await drain(res, (text) => {
    const parts = (tail + text).split('\n');
    tail = parts.pop()!;
    for (const p of parts) {
      if (count === 0) first = p;
      last = p;
      count++;
    }
  });
  return { count, first, last };
}

describe('export of more than 100,000 rows', () => {
  it('answers every row as JSON, with the total', async () => {
    const res = await startExport({ format: 'json' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="snippets-.*\.json"$/,
    );
    const body = (await res.json()) as { snippets: { id: number }[]; total: number };
    expect(body.total).toBe(ROWS);
    expect(body.snippets).toHaveLength(ROWS);
    expect(body.snippets[0]!.id).toBe(1);
    expect(body.snippets[ROWS - 1]!.id).toBe(ROWS);
    expect(body.snippets.every((r, i) => r.id === i + 1)).toBe(true);
  }, 120_000);

  it('answers every row as JSON Lines', async () => {
    const res = await startExport({ format: 'jsonl' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    const { count, first, last } = await lines(res);
    expect(count).toBe(ROWS);
    expect(JSON.parse(first).id).toBe(1);
    expect(JSON.parse(last)).toMatchObject({
      id: ROWS,
      text: `Row ${ROWS}, with a "quoted" word`,
    });
  }, 120_000);

  it('answers every row as CSV, escaped as before', async () => {
    const res = await startExport({ format: 'csv' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    const { count, first, last } = await lines(res);
    expect(count).toBe(ROWS + 1);
    expect(first).toBe(
      'id,text,theme,quality_score,language,word_count,created_at,indexed_at,source_title,source_url,section\r',
    );
    // ROWS % 3 !== 0: a row without a source.
    expect(last).toBe(
      `${ROWS},"Row ${ROWS}, with a ""quoted"" word",science,0.5,en,5,2026-11-26T10:00:00.000Z,,,,\r`,
    );
  }, 120_000);
});

describe('a streamed export', () => {
  it('sends its first bytes before the last row is read', async () => {
    read.reset();
    const abort = new AbortController();
    const res = await startExport({ format: 'json' }, abort.signal);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toMatch(/^\{\n {2}"snippets": \[/);
    // The client has not read on: the server waits for it instead of reading every row (what
    // the socket buffers hold is far less than half the file).
    expect(read.rows).toBeGreaterThan(0);
    expect(read.rows).toBeLessThan(ROWS / 2);
    abort.abort();
  }, 120_000);

  it('runs two at once: a third gets 429 with Retry-After, an aborted client frees its slot', async () => {
    const held = [new AbortController(), new AbortController()];
    for (const abort of held) {
      const res = await startExport({ format: 'csv' }, abort.signal);
      expect(res.status).toBe(200);
      await res.body!.getReader().read();
    }

    const third = await startExport({ format: 'jsonl' });
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await third.json()) as { detail: string }).detail).toMatch(
      /exports are already running/,
    );
    expect(exportsRunning()).toBe(2);

    held[0]!.abort();
    await until(() => exportsRunning() === 1, { what: 'the aborted export to free its slot' });
    const next = await startExport({ format: 'jsonl', ids: [1, 2, 3] });
    expect(next.status).toBe(200);
    expect((await lines(next)).count).toBe(3);
    held[1]!.abort();
  }, 120_000);

  it('frees its slot when its ids are refused', async () => {
    const res = await startExport({ ids: [1, ROWS + 50] });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { detail: string }).detail).toBe(
      `Snippets ${ROWS + 50} not found`,
    );
    expect(exportsRunning()).toBe(0);
  });

  it('leaves /health answering while it reads', async () => {
    read.reset();
    let done = false;
    const res = await startExport({ format: 'jsonl' });
    expect(res.status).toBe(200);
    const all = lines(res).finally(() => (done = true));
    // Rows read when each /health answer came back: answers must come between the pages, at
    // several points of the export (a body made at once reads every row in one call).
    const seen: number[] = [];
    while (!done) {
      const health = await s.api('/api/v1/health');
      expect(health.status).toBe(200);
      seen.push(read.rows);
    }
    const during = new Set(seen.filter((n) => n > 0 && n < ROWS));
    expect(during.size).toBeGreaterThanOrEqual(3);
    expect((await all).count).toBe(ROWS);
  }, 120_000);
});
