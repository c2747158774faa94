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
  segmentMetadata?: (
    segment: AnalyzeResult['segments'][number],
  ) => Record<string, unknown> | undefined;
}

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
    return this.store(await this.deps.engine.analyze(input.text, input.language, settings), input);
  }

  /**
   * The writing half of ingest: an analysis made here or by a remote worker becomes rows and
   * vectors. Only the server calls it: it is the single writer of the store and the index.
   */
  store(result: AnalyzeResult, input: Omit<IngestInput, 'text'> & { text?: string }): IngestResult {
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
    const rows: NewSnippet[] = kept.map((s) => ({
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
      metadata: JSON.stringify({
        segmentation_method: result.method,
        segmentation_fallback_reason: result.fallback_reason,
        segmentation_diagnostic: diagnostics
          .filter((d) => d.snippet === s.text.slice(0, 120))
          .slice(0, 5),
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
      if (id !== null) entries.push({ key: id, vector: kept[i]!.vector });
    });
    if (current) this.deps.index.addDeferred(entries);
    else this.deps.index.reindexLater(entries.map((e) => e.key));

    const created = entries.map((e) => e.key);
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
