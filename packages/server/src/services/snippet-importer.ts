import fs from 'node:fs';
import path from 'node:path';
import {
  IMPORT_BAD_LINES_SHOWN,
  MAX_IMPORT_RECORDS,
  type ImportRecord,
  type ImportResult,
  type ProcessingSettings,
} from '@adam/contracts';
import { BUILTIN_EMBEDDER_ID } from '../embedding/builtin-embedder.js';
import type { Engine } from '../engine/engine.js';
import { stoppedOutcome, type JobContext, type JobOutcome } from '../queue/job-context.js';
import type { EventBus } from '../lib/event-bus.js';
import type { Logger } from '../logging.js';
import { wordCount } from '../pipeline/text.js';
import { domainOf } from '../scraping/rules.js';
import type { Db } from '../store/db.js';
import type { ImportStagingRepository, StagedSnippet } from '../store/import-staging.repository.js';
import type { SnippetRepository } from '../store/snippet.repository.js';
import type { SourceRepository } from '../store/source.repository.js';
import { importLines } from './import-lines.js';
import { blobToVector, vectorToBlob, type IndexWrites } from './index.service.js';
import { textHash } from '../pipeline/segment-key.js';
import { SnippetDeleter } from './snippet-deleter.js';

/** The name a received file gets: a random UUID, nothing from the request. */
export const IMPORT_FILE_NAME =
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/;

/** Records read, analysed or embedded, then staged, per step (a job's progress and stop check). */
const IMPORT_BATCH = 128;
/**
 * Staged rows moved into snippets per transaction: ~0.5 ms a row on a busy 2-core machine, so
 * other requests wait at most ~50 ms for a turn.
 */
export const IMPORT_MOVE_ROWS = 100;
/** Committed rows handed to the index per turn of the event loop. */
const INDEX_CHUNK = 250;

/** What a validation pass over an import file found. */
export interface ImportPlan {
  records: number;
  restored: number;
  analysed: number;
  duplicates: number;
  vectors_reused: number;
  to_embed: number;
  /** The first IMPORT_BAD_LINES_SHOWN bad lines; badCount counts them all. */
  bad: { line: number; reason: string }[];
  badCount: number;
  /** Past MAX_IMPORT_RECORDS: the pass stopped there. */
  tooMany: boolean;
}

/** A record with theme and quality is a snippet to restore; any other a document to analyse. */
const isRestorable = (r: ImportRecord) => r.theme !== undefined && r.quality_score !== undefined;

function sourceOf(r: ImportRecord): { title: string | null; url: string | null } {
  return {
    title: r.title ?? r.source_info?.title ?? null,
    url: r.url ?? r.source_info?.url ?? null,
  };
}

function safeDomain(url: string): string {
  try {
    return domainOf(url);
  } catch {
    return '';
  }
}

/**
 * Imports JSON Lines records: validation, then a job that stages every row (analysed or
 * embedded on the engine's threads as needed) and moves them into snippets in one transaction,
 * then indexes what was committed. A failure or a cancel before the commit leaves nothing.
 */
export class SnippetImporter {
  constructor(
    private readonly deps: {
      db: Db;
      snippets: SnippetRepository;
      sources: SourceRepository;
      staging: ImportStagingRepository;
      index: Pick<
        IndexWrites,
        'addDeferred' | 'dimension' | 'flush' | 'reindexLater' | 'removeAndSave'
      >;
      engine: Engine;
      settings: () => ProcessingSettings;
      bus: EventBus;
      log: Logger;
      /** Where received import files wait for their job (data/imports). */
      dir: string;
    },
  ) {
    this.deleter = new SnippetDeleter(deps);
  }

  private readonly deleter: SnippetDeleter;

  /** The path of a received file, by the name its job carries (never a path from outside). */
  fileFor(name: string): string {
    if (!IMPORT_FILE_NAME.test(name)) throw new Error(`Not an import file name: ${name}`);
    return path.join(this.deps.dir, name);
  }

  get dir(): string {
    return this.deps.dir;
  }

  /** Whether a record's own vector goes in as it is: the active embedder's, of its dimension. */
  private reusable(r: ImportRecord): boolean {
    const { engine } = this.deps;
    return (
      !!r.embedding &&
      r.embedder_id === engine.id &&
      r.embedding.length === engine.dimension &&
      r.embedding.some((x) => x !== 0)
    );
  }

  /** Reads the whole file once: bad lines by number, and what the import would do. */
  async plan(file: string): Promise<ImportPlan> {
    const plan: ImportPlan = {
      records: 0,
      restored: 0,
      analysed: 0,
      duplicates: 0,
      vectors_reused: 0,
      to_embed: 0,
      bad: [],
      badCount: 0,
      tooMany: false,
    };
    const seen = new Set<string>();
    let pending: { hash: string; reusable: boolean }[] = [];
    const settle = () => {
      const stored = this.deps.snippets.findByHashes(pending.map((p) => p.hash));
      for (const p of pending) {
        if (stored.has(p.hash)) plan.duplicates++;
        else if (p.reusable) plan.vectors_reused++;
        else plan.to_embed++;
      }
      pending = [];
    };
    for await (const l of importLines(file)) {
      plan.records++;
      if (plan.records > MAX_IMPORT_RECORDS) {
        plan.tooMany = true;
        break;
      }
      if (!l.ok) {
        plan.badCount++;
        if (plan.bad.length < IMPORT_BAD_LINES_SHOWN) plan.bad.push(l);
        continue;
      }
      if (!isRestorable(l.record)) {
        plan.analysed++;
        continue;
      }
      plan.restored++;
      const hash = textHash(l.record.text);
      if (seen.has(hash)) {
        plan.duplicates++;
        continue;
      }
      seen.add(hash);
      pending.push({ hash, reusable: this.reusable(l.record) });
      if (pending.length >= 500) settle();
    }
    settle();
    return plan;
  }

  /**
   * The import job: stage every record, move the staged rows into snippets, index them. The
   * file was checked when it was received. Stopped or failing before the end, it undoes what it
   * moved and leaves nothing.
   */
  async run(jobId: number, file: string, records: number, ctx: JobContext): Promise<JobOutcome> {
    const { staging } = this.deps;
    // A restarted job starts over; imports a crash cut short are undone first.
    await this.undo(jobId);
    await this.undoAbandoned();
    const counts = { records: 0, duplicates: 0, analysed: 0, rejected: 0 };
    try {
      ctx.progress({ progress: 0, stage: `Reading ${records} records`, stats: { urls_total: 0 } });
      const seen = new Set<string>();
      let batch: ImportRecord[] = [];
      const step = async () => {
        const rows = await this.prepare(batch, seen, counts);
        staging.insertMany(jobId, rows);
        batch = [];
        ctx.progress({
          progress: records ? (0.8 * counts.records) / records : 0.8,
          stage: `Prepared ${counts.records} of ${records} records`,
          segments: { processed: counts.records, total: records },
        });
      };
      for await (const l of importLines(file)) {
        if (!l.ok)
          throw new Error(`line ${l.line}: ${l.reason} (the file changed after it was checked)`);
        batch.push(l.record);
        if (batch.length >= IMPORT_BATCH) {
          await step();
          if (ctx.shouldStop()) return this.stop(jobId, ctx);
        }
      }
      await step();
      if (ctx.shouldStop()) return this.stop(jobId, ctx);

      const moved = await this.move(jobId, ctx);
      if (!moved) return this.stop(jobId, ctx);
      counts.duplicates += moved.duplicates;
      ctx.progress({ progress: 0.95, stage: `Indexing ${moved.ids.length} snippets` });
      await this.indexCommitted(moved.ids, jobId);

      const result: ImportResult = {
        records: counts.records,
        imported: moved.ids.length,
        duplicates: counts.duplicates,
        vectors_reused: moved.reused,
        reembedded: moved.embedded,
        analysed: counts.analysed,
        rejected: counts.rejected,
        sources: moved.sources,
      };
      ctx.setResult(result);
      ctx.progress({
        progress: 1,
        stage: `Imported ${result.imported} snippets`,
        stats: {
          segments_created: result.imported,
          snippets_added: result.imported,
          duplicates: result.duplicates,
        },
      });
      this.deps.log.info(
        { component: 'import' },
        `Import job ${jobId}: ${result.imported} snippets imported, ${result.duplicates} duplicates, ` +
          `${result.vectors_reused} vectors reused, ${result.reembedded} re-embedded`,
      );
      return { status: 'completed', segments_created: result.imported };
    } catch (e) {
      await this.undo(jobId);
      throw e;
    }
  }

  private async stop(jobId: number, ctx: JobContext): Promise<JobOutcome> {
    const n = await this.undo(jobId);
    this.deps.log.info(
      { component: 'import' },
      `Import job ${jobId} stopped: nothing imported (${n} moved snippets removed)`,
    );
    return stoppedOutcome(ctx);
  }

  /**
   * Undoes the imports whose job no longer runs (a job deleted while the server was down): start-up
   * calls it, and every import before it begins. Answers how many snippets went.
   */
  async undoAbandoned(): Promise<number> {
    let removed = 0;
    for (const jobId of this.deps.staging.abandonedJobIds()) removed += await this.undo(jobId);
    if (removed)
      this.deps.log.warn(
        { component: 'import' },
        `${removed} snippets of unfinished imports removed (an import lands whole or not at all)`,
      );
    return removed;
  }

  /**
   * Undoes an import that did not finish: the snippets its move made are deleted (a chunk per
   * turn of the event loop), then its staged rows. Answers how many snippets went.
   */
  async undo(jobId: number): Promise<number> {
    const { staging } = this.deps;
    let removed = 0;
    for (;;) {
      const ids = staging.movedSnippetIds(jobId, IMPORT_MOVE_ROWS);
      if (ids.length === 0) break;
      removed += this.deleter.delete(ids).snippets_deleted;
      staging.deleteMoved(jobId, ids);
      await new Promise((resolve) => setImmediate(resolve));
    }
    staging.deleteForJob(jobId);
    return removed;
  }

  /**
   * One batch of records to staged rows: restored ones keep their fields and, when the active
   * embedder made it, their vector; the others are embedded (one call per batch), documents are
   * analysed like pasted text. Duplicates (in the file or already stored) are left out.
   */
  private async prepare(
    batch: ImportRecord[],
    seen: Set<string>,
    counts: { records: number; duplicates: number; analysed: number; rejected: number },
  ): Promise<StagedSnippet[]> {
    const { engine, snippets } = this.deps;
    const settings = this.deps.settings();
    const rows: StagedSnippet[] = [];
    const toEmbed: StagedSnippet[] = [];
    for (const r of batch) {
      counts.records++;
      if (!isRestorable(r)) {
        counts.analysed++;
        const analysis = await engine.analyze(r.text, r.language || 'auto', settings);
        counts.rejected += analysis.diagnostics.filter((d) => d.status === 'rejected').length;
        const embedderId = analysis.embedder_id ?? BUILTIN_EMBEDDER_ID;
        const src = sourceOf(r);
        for (const s of analysis.segments) {
          rows.push({
            text: s.text,
            text_hash: textHash(s.text),
            theme: s.theme,
            quality_score: s.quality_score,
            language: analysis.language.code === 'und' ? null : analysis.language.code,
            word_count: s.word_count,
            size_bytes: Buffer.byteLength(s.text, 'utf8'),
            source_title: src.title,
            source_url: src.url,
            section: s.section,
            metadata: JSON.stringify({
              ...r.metadata,
              segmentation_method: analysis.method,
              quality_score_detailed: s.quality_score_detailed,
              theme_scores: s.theme_scores,
              emotions: s.emotions,
              entities: s.entities,
              language_confidence: analysis.language.confidence,
              sentence_count: s.sentence_count,
              embedder: embedderId,
            }),
            embedding: vectorToBlob(s.vector),
            embedder_id: embedderId,
            vector_origin: 'analysed',
          });
        }
        continue;
      }
      const src = sourceOf(r);
      const reuse = this.reusable(r);
      const metadata: Record<string, unknown> = { ...r.metadata };
      const row: StagedSnippet = {
        text: r.text,
        text_hash: textHash(r.text),
        theme: r.theme!,
        quality_score: r.quality_score!,
        language: r.language || null,
        word_count: wordCount(r.text),
        size_bytes: Buffer.byteLength(r.text, 'utf8'),
        source_title: src.title,
        source_url: src.url,
        section: r.section ?? null,
        metadata: '',
        embedding: reuse ? vectorToBlob(Float32Array.from(r.embedding!)) : null,
        embedder_id: reuse ? engine.id : null,
        vector_origin: reuse ? 'reused' : 'embedded',
      };
      if (reuse && 'embedder' in metadata) metadata.embedder = engine.id;
      row.metadata = JSON.stringify(metadata);
      rows.push(row);
      if (!reuse) toEmbed.push(row);
    }
    // Duplicates are dropped before anything is embedded for them.
    const stored = snippets.findByHashes(rows.map((r) => r.text_hash));
    const kept = rows.filter((r) => {
      if (seen.has(r.text_hash) || stored.has(r.text_hash)) {
        counts.duplicates++;
        return false;
      }
      seen.add(r.text_hash);
      return true;
    });
    const keptSet = new Set(kept);
    const embed = toEmbed.filter((r) => keptSet.has(r));
    const size = settings.embedding_batch_size;
    for (let i = 0; i < embed.length; i += size) {
      const part = embed.slice(i, i + size);
      const space = engine.id;
      const vectors = await engine.embed(part.map((r) => r.text));
      part.forEach((r, j) => {
        r.embedding = vectorToBlob(vectors[j]!);
        r.embedder_id = space;
        const m = JSON.parse(r.metadata) as Record<string, unknown>;
        if ('embedder' in m) r.metadata = JSON.stringify({ ...m, embedder: space });
      });
    }
    return kept;
  }

  /**
   * Moves the staged rows into snippets, IMPORT_MOVE_ROWS rows per transaction and a turn of the
   * event loop between (one transaction for a large import would hold the server for its whole
   * length: ~0.5 ms a row). Each moved row keeps the id it became, so undo() can take them out
   * again, even after a crash. The sources and the end of the staging go in one last
   * transaction. A text stored meanwhile by another job makes its row a duplicate here.
   * Answers null when the job was stopped meanwhile (the caller undoes the move).
   */
  private async move(
    jobId: number,
    ctx: JobContext,
  ): Promise<{
    ids: number[];
    duplicates: number;
    reused: number;
    embedded: number;
    sources: number;
  } | null> {
    const { db, snippets, sources, staging } = this.deps;
    const total = staging.countForJob(jobId);
    let done = 0;
    for (let after = 0; ;) {
      const page = staging.pageToMove(jobId, after, IMPORT_MOVE_ROWS);
      if (page.length === 0) break;
      after = page[page.length - 1]!.id;
      db.transaction(() => {
        const got = snippets.insertMany(
          page.map(({ id: _id, vector_origin: _origin, ...r }) => ({ ...r, job_id: jobId })),
        );
        staging.markMoved(page.map((r, i) => ({ id: r.id, snippet_id: got[i] ?? null })));
      })();
      done += page.length;
      ctx.progress({
        progress: 0.8 + (0.15 * done) / Math.max(1, total),
        stage: `Stored ${done} of ${total} snippets`,
      });
      await new Promise((resolve) => setImmediate(resolve));
      if (ctx.shouldStop()) return null;
    }
    return db.transaction(() => {
      const ids = staging.movedSnippetIds(jobId);
      const counts = staging.movedCounts(jobId);
      const named = staging.movedSources(jobId);
      for (const s of named) {
        sources.upsertResult({
          url: s.url,
          kind: 'import',
          domain: safeDomain(s.url),
          title: s.title,
          language: s.language,
          segments: s.n,
          job_id: jobId,
          status: 'ok',
          error: null,
        });
      }
      staging.deleteForJob(jobId);
      return { ids, ...counts, sources: named.length };
    })();
  }

  /**
   * The committed rows' vectors into the index, from the rows (no vector is held for the whole
   * import); a row whose vector is of a space left meanwhile is re-embedded later. Saved once.
   */
  private async indexCommitted(ids: number[], jobId: number): Promise<void> {
    const { index, snippets, engine, bus } = this.deps;
    for (let i = 0; i < ids.length; i += INDEX_CHUNK) {
      const chunk = ids.slice(i, i + INDEX_CHUNK);
      const entries: { key: number; vector: Float32Array }[] = [];
      const later: number[] = [];
      for (const [id, e] of snippets.embeddings(chunk)) {
        if (
          e.embedding &&
          e.embedder_id === engine.id &&
          e.embedding.byteLength === index.dimension * 4
        )
          entries.push({ key: id, vector: blobToVector(e.embedding) });
        else later.push(id);
      }
      index.addDeferred(entries);
      index.reindexLater(later);
      bus.emit('snippets.added', { ids: chunk, job_id: jobId });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await index.flush();
  }

  /** Removes an import file once its job no longer needs it. */
  static removeFile(file: string): void {
    fs.rmSync(file, { force: true });
  }
}
