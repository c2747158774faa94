import type { ProcessingSettings } from '@adam/contracts';
import { BUILTIN_EMBEDDER_ID } from '../embedding/builtin-embedder.js';
import type { Engine } from '../engine/engine.js';
import type { Logger } from '../logging.js';
import type { AnalyzeResult, Diagnostic } from '../pipeline/index.js';
import { textHash } from '../pipeline/segment-key.js';
import type { EventBus } from '../lib/event-bus.js';
import type { NewSnippet, SnippetRepository } from '../store/snippet.repository.js';
import { vectorToBlob, type IndexWrites } from './index.service.js';

interface IngestInput {
  text: string;
  /** 'auto' or an ISO 639-1 code. */
  language: string;
  source: { title: string | null; url: string | null };
  jobId?: number | null;
  /** Overrides settings.min_quality_score (a job's own filter). */
  minQuality?: number | null;
  /** Keeps only segments in this language (a job's filter); 'auto' or undefined keeps all. */
  onlyLanguage?: string | null;
  /** More of a segment's metadata (an uploaded document's page and heading), by segment. */
  segmentMetadata?: (segment: Segment) => Record<string, unknown> | undefined;
}

type StoreInput = Omit<IngestInput, 'text'> & { text?: string };
type Segment = AnalyzeResult['segments'][number];

interface StorePlan {
  result: AnalyzeResult;
  input: StoreInput;
  kept: Segment[];
  diagnostics: Diagnostic[];
  /** The first five diagnostics of each segment, by its first 120 characters. */
  diagnosticsOf: Map<string, Diagnostic[]>;
  embedderId: string;
  /** The analysis was embedded in the index's current space. */
  current: boolean;
}

/** How long one slice of storeInSlices may hold the event loop. */
const STORE_SLICE_MS = 8;
/** The first slice, before a row's cost is known; no slice is bigger than the second bound. */
const FIRST_SLICE_ROWS = 4;
const MAX_SLICE_ROWS = 256;

export interface IngestResult {
  snippet_ids: number[];
  segments_created: number;
  duplicates: number;
  language: string;
  method: string;
  fallback_reason: string | null;
  diagnostics: Diagnostic[];
  counts: { before: number; after: number };
}

/**
 * Text + source + settings in, stored and indexed snippets out. The analysis runs on the
 * engine's worker threads; this side writes the rows (with their embeddings, index_pending)
 * first, then adds the vectors to the index, whose save (batched, or at the job's end) marks
 * the rows indexed: a crash in between leaves pending rows that start-up reconciliation indexes.
 */
export class IngestionService {
  constructor(
    private readonly deps: {
      engine: Engine;
      snippets: SnippetRepository;
      index: Pick<IndexWrites, 'addDeferred' | 'reindexLater'>;
      bus: EventBus;
      log: Logger;
    },
  ) {}

  async ingest(input: IngestInput, settings: ProcessingSettings): Promise<IngestResult> {
    return this.storeInSlices(
      await this.deps.engine.analyze(input.text, input.language, settings),
      input,
    );
  }

  /**
   * The writing half of ingest: an analysis made here or by a remote worker becomes rows and
   * vectors. Only the server calls it: it is the single writer of the store and the index.
   * One transaction for all the rows: for a page's few snippets; a document's hundreds go
   * through storeInSlices.
   */
  store(result: AnalyzeResult, input: StoreInput): IngestResult {
    const plan = this.plan(result, input);
    const ids = this.insert(plan, plan.kept);
    return this.finish(plan, ids);
  }

  /**
   * store, in slices of rows that each hold the event loop about `sliceMs` (building the rows
   * and their transaction: the FTS and count triggers cost ~1 ms a row), with a turn of the
   * loop between them, so requests and timers are served while a document's hundreds of
   * snippets are written. Each slice commits on its own: a crash in between leaves the slices
   * before it, and storing the same analysis again adds only the rest (rows dedupe by text).
   */
  async storeInSlices(
    result: AnalyzeResult,
    input: StoreInput,
    opts: { sliceMs?: number; yieldTurn?: () => Promise<void> } = {},
  ): Promise<IngestResult> {
    const sliceMs = opts.sliceMs ?? STORE_SLICE_MS;
    const yieldTurn = opts.yieldTurn ?? (() => new Promise<void>((r) => setImmediate(r)));
    const plan = this.plan(result, input);
    const ids: (number | null)[] = [];
    let size = FIRST_SLICE_ROWS;
    for (let at = 0; at < plan.kept.length;) {
      if (at > 0) await yieldTurn();
      const slice = plan.kept.slice(at, at + size);
      const t0 = performance.now();
      ids.push(...this.insert(plan, slice));
      const perRow = (performance.now() - t0) / slice.length;
      at += slice.length;
      // The next slice sized on this one's cost, at most twice its rows (a few cheap rows say
      // little of the next ones: the texts' lengths differ), never under one row.
      const fits = Math.floor(sliceMs / Math.max(perRow, 0.01));
      size = Math.max(1, Math.min(fits, 2 * slice.length, MAX_SLICE_ROWS));
    }
    return this.finish(plan, ids);
  }

  /** What to store of an analysis: the segments kept by the filters, and their diagnostics. */
  private plan(result: AnalyzeResult, input: StoreInput): StorePlan {
    const sourceText = input.text ?? '';
    const diagnostics = [...result.diagnostics];
    const minQuality = input.minQuality ?? null;
    const wantLanguage =
      input.onlyLanguage && input.onlyLanguage !== 'auto' ? input.onlyLanguage : null;
    let kept = result.segments;
    if (wantLanguage && result.language.code !== wantLanguage && result.language.code !== 'und') {
      diagnostics.push({
        snippet: sourceText.slice(0, 120),
        score: 0,
        status: 'rejected',
        reason: `language ${result.language.code} is not the requested ${wantLanguage}`,
      });
      kept = [];
    }
    if (minQuality !== null) {
      kept = kept.filter((s) => {
        if (s.quality_score >= minQuality) return true;
        diagnostics.push({
          snippet: s.text.slice(0, 120),
          score: s.quality_score,
          status: 'rejected',
          reason: `quality ${s.quality_score.toFixed(2)} below the job's minimum ${minQuality.toFixed(2)}`,
        });
        return false;
      });
    }

    // The space that embedded this analysis (an analysis made before spaces existed: the
    // built-in one). One left by a switch since is stored as it is and re-embedded below.
    const embedderId = result.embedder_id ?? BUILTIN_EMBEDDER_ID;
    const current = embedderId === this.deps.engine.id;

    // Each segment's diagnostics, by its first 120 characters (as they were recorded).
    const diagnosticsOf = new Map<string, Diagnostic[]>();
    for (const d of diagnostics) {
      const list = diagnosticsOf.get(d.snippet);
      if (!list) diagnosticsOf.set(d.snippet, [d]);
      else if (list.length < 5) list.push(d);
    }
    return { result, input, kept, diagnostics, diagnosticsOf, embedderId, current };
  }

  /**
   * Writes `segments` (in one transaction) and hands their vectors to the index at once, so no
   * turn of the loop sees a new row without its pending vector. Answers ids in input order.
   */
  private insert(plan: StorePlan, segments: Segment[]): (number | null)[] {
    const { result, input, embedderId } = plan;
    const rows: NewSnippet[] = segments.map((s) => ({
      text: s.text,
      text_hash: textHash(s.text),
      theme: s.theme,
      quality_score: s.quality_score,
      language: result.language.code === 'und' ? null : result.language.code,
      word_count: s.word_count,
      size_bytes: Buffer.byteLength(s.text, 'utf8'),
      source_title: input.source.title,
      source_url: input.source.url,
      job_id: input.jobId ?? null,
      section: s.section,
      metadata: JSON.stringify({
        segmentation_method: result.method,
        segmentation_fallback_reason: result.fallback_reason,
        segmentation_diagnostic: plan.diagnosticsOf.get(s.text.slice(0, 120)) ?? [],
        quality_score_detailed: s.quality_score_detailed,
        theme_scores: s.theme_scores,
        emotions: s.emotions,
        entities: s.entities,
        language_confidence: result.language.confidence,
        sentence_count: s.sentence_count,
        embedder: embedderId,
        ...input.segmentMetadata?.(s),
      }),
      embedding: vectorToBlob(s.vector),
      embedder_id: embedderId,
    }));
    const ids = this.deps.snippets.insertMany(rows);
    const entries: { key: number; vector: Float32Array }[] = [];
    ids.forEach((id, i) => {
      if (id !== null) entries.push({ key: id, vector: segments[i]!.vector });
    });
    if (plan.current) this.deps.index.addDeferred(entries);
    else this.deps.index.reindexLater(entries.map((e) => e.key));
    return ids;
  }

  private finish(plan: StorePlan, ids: (number | null)[]): IngestResult {
    const { result, input, diagnostics } = plan;
    const created = ids.filter((id): id is number => id !== null);
    const duplicates = ids.length - created.length;
    this.deps.log.info(
      { component: 'ingestion' },
      `Stored ${created.length} snippets from ${input.source.title || input.source.url || 'pasted text'}` +
        ` (${result.method}${duplicates ? `, ${duplicates} duplicates skipped` : ''})`,
    );
    if (created.length)
      this.deps.bus.emit('snippets.added', { ids: created, job_id: input.jobId ?? null });
    return {
      snippet_ids: created,
      segments_created: created.length,
      duplicates,
      language: result.language.code,
      method: result.method,
      fallback_reason: result.fallback_reason,
      diagnostics,
      counts: { before: result.segmentation_stats.counts.before, after: created.length },
    };
  }
}
