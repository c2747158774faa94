import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Engine } from '../engine/engine.js';
import { EventBus } from '../lib/event-bus.js';
import { createLogger, LogSink } from '../logging.js';
import type { AnalyzeResult } from '../pipeline/index.js';
import { openDatabase, type Db } from '../store/db.js';
import { SnippetRepository } from '../store/snippet.repository.js';
import { SourceRepository } from '../store/source.repository.js';
import { DocumentProcessor } from './document-processor.js';
import type { ProcessingSettings } from '@adam/contracts';
import { IngestionService } from './ingestion.service.js';

const SPACE = 'test-space';

const opened: { db: Db; dir: string }[] = [];
afterEach(() => {
  for (const { db, dir } of opened.splice(0)) {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** A real store, an index that records what it is handed, a bus that records its events. */
function ingestion() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-ingest-slices-'));
  const db = openDatabase(dir);
  opened.push({ db, dir });
  const snippets = new SnippetRepository(db);
  const indexed: number[] = [];
  const added: number[][] = [];
  const bus = new EventBus();
  bus.on('snippets.added', (e) => added.push(e.ids));
  const service = new IngestionService({
    engine: { id: SPACE } as unknown as Engine,
    snippets,
    index: {
      addDeferred: (entries) => indexed.push(...entries.map((e) => e.key)),
      reindexLater: () => {
        throw new Error('the analysis is in the current space');
      },
    },
    bus,
    log: createLogger({ level: 'silent', sink: new LogSink(), stdout: false }),
  });
  return { service, snippets, db, indexed, added };
}

/** An analysis of `n` segments; `repeat` of them say again what an earlier one said. */
function analysis(n: number, repeat = 0): AnalyzeResult {
  const segment = (i: number) => ({
    text: `Segment ${i % (n - repeat)} tells of the river's ${i % (n - repeat)}th bend.`,
    quality_score: 0.8,
    quality_score_detailed: {},
    theme: 'general',
    theme_scores: {},
    emotions: {},
    entities: [],
    word_count: 7,
    sentence_count: 1,
    vector: new Float32Array([1, i, 0, 0]),
  });
  return {
    language: { code: 'en', confidence: 0.9 },
    document: { ok: true },
    segments: Array.from({ length: n }, (_, i) => segment(i)),
    method: 'sentences',
    fallback_reason: null,
    diagnostics: [],
    segmentation_stats: { method: 'sentences', counts: { before: n, after: n } },
    embedder_id: SPACE,
  } as unknown as AnalyzeResult;
}

const input = {
  language: 'en',
  source: { title: 'Report', url: 'file:0123456789abcdef/report.pdf' },
  jobId: null,
  segmentMetadata: (s: { text: string }) => ({ heading: s.text.slice(0, 9) }),
};

const count = (db: Db) => db.prepare('SELECT COUNT(*) FROM snippets').pluck().get() as number;

describe('IngestionService.storeInSlices', () => {
  it('gives the event loop a turn while it stores: an immediate queued meanwhile runs before the store ends', async () => {
    const { service, db } = ingestion();
    // 600 rows: a first slice of 4, at most twice as many in each next one, so several slices
    // whatever this machine's speed.
    const storing = service.storeInSlices(analysis(600), input);
    let ended = false;
    void storing.then(() => (ended = true));
    const seen = await new Promise<{ ended: boolean; rows: number }>((resolve) =>
      setImmediate(() => resolve({ ended, rows: count(db) })),
    );
    const result = await storing;
    expect(seen.ended).toBe(false);
    expect(seen.rows).toBeGreaterThan(0);
    expect(seen.rows).toBeLessThan(600);
    expect(result.segments_created).toBe(600);
    expect(count(db)).toBe(600);
  });

  it('stores what store stores: the same rows, ids in order, duplicates, vectors and one event', async () => {
    const one = ingestion();
    const sliced = ingestion();
    const whole = one.service.store(analysis(50, 10), input);
    // A few rows first, then one row a slice, each in its own transaction.
    const parts = await sliced.service.storeInSlices(analysis(50, 10), input, { sliceMs: 0 });

    expect(parts.segments_created).toBe(40);
    expect(parts.duplicates).toBe(10);
    expect(parts).toEqual(whole);
    const rows = (db: Db) =>
      db
        .prepare('SELECT id, text, text_hash, source_url, metadata FROM snippets ORDER BY id')
        .all();
    expect(rows(sliced.db)).toEqual(rows(one.db));
    const vectors = (db: Db) =>
      db.prepare('SELECT snippet_id, embedder_id FROM snippet_embeddings ORDER BY 1').all();
    expect(vectors(sliced.db)).toEqual(vectors(one.db));
    expect(sliced.indexed).toEqual(parts.snippet_ids);
    expect(sliced.added).toEqual([parts.snippet_ids]);
    expect(JSON.parse((rows(sliced.db)[0] as { metadata: string }).metadata)).toMatchObject({
      heading: 'Segment 0',
      embedder: SPACE,
    });
  });

  it('counts the rows another job stored between two slices as duplicates', async () => {
    const { service, db } = ingestion();
    const six = analysis(6);
    let turns = 0;
    const result = await service.storeInSlices(six, input, {
      sliceMs: 0,
      yieldTurn: async () => {
        // Between the first slice (a few rows) and the next, another job stores the last text.
        if (turns++ === 0)
          expect(service.store({ ...six, segments: [six.segments[5]!] }, input)).toMatchObject({
            segments_created: 1,
          });
      },
    });
    expect(turns).toBe(2);
    expect(result.segments_created).toBe(5);
    expect(result.duplicates).toBe(1);
    expect(count(db)).toBe(6);
  });
});

describe('DocumentProcessor', () => {
  it("stores a document's snippets with turns of the event loop between slices", async () => {
    const { service, db } = ingestion();
    const big = analysis(600);
    let seen: Promise<number> | null = null;
    const engine = {
      id: SPACE,
      parseDocument: async () => ({
        title: 'Report',
        sections: [{ heading: 'One', page: 1, text: 'The river bends.' }],
        warnings: [],
      }),
      analyzeSections: async () => {
        // Queued as the analysis comes back: it runs at the loop's next turn, which a store
        // in one transaction would only give after its last row.
        seen = new Promise<number>((resolve) => setImmediate(() => resolve(count(db))));
        return { analysis: big, places: big.segments.map(() => ({ page: 1, heading: 'One' })) };
      },
    } as unknown as Engine;
    const processor = new DocumentProcessor({
      engine,
      ingestion: service,
      sources: new SourceRepository(db),
      settings: () => ({ task_timeout_seconds: 30 }) as ProcessingSettings,
      dataDir: path.dirname(db.name),
      log: createLogger({ level: 'silent', sink: new LogSink(), stdout: false }),
    });
    const outcome = await processor.process(
      '00000000-0000-4000-8000-000000000000',
      {
        name: 'report.pdf',
        type: 'pdf',
        size: 1,
        sha256: '0'.repeat(64),
        file: '1',
        source_url: 'file:0000000000000000/report.pdf',
      },
      { language: 'en', minQuality: null, jobId: 1 },
    );
    expect(outcome.ok).toBe(true);
    expect(count(db)).toBe(600);
    const rowsAtTheTurn = await seen!;
    expect(rowsAtTheTurn).toBeGreaterThan(0);
    expect(rowsAtTheTurn).toBeLessThan(600);
  });
});
