/** Wire answers for the index and maintenance screens' tests, shaped by the contracts. */
import type { IndexStats, Job, Snippet, SnippetSearchResponse } from '@adam/contracts';

export function indexStats(over: Partial<IndexStats> = {}): IndexStats {
  return {
    total_vectors: 1234,
    index_size_mb: 2.5,
    index_type: 'HNSW (usearch, cosine, M=16)',
    dimension: 384,
    is_trained: true,
    training_samples: 1234,
    themes: { science: 700, technology: 300, philosophy: 34, general: 200 },
    last_optimized: '2026-03-01T10:00:00.000Z',
    query_performance: { avg_latency_ms: 1.25, queries: 42 },
    cache_stats: { hit_rate: 0.5, hits: 21, misses: 21, size: 12 },
    accuracy: 0.98,
    accuracy_sample: 50,
    storage: 'f32',
    embedder: 'builtin-hash-384',
    ...over,
  };
}

export function snippet(id: number, over: Partial<Snippet> = {}): Snippet {
  return {
    id,
    text: `Honey bees store nectar as honey (snippet ${id}).`,
    theme: 'science',
    quality_score: 0.82,
    language: 'en',
    word_count: 8,
    size_bytes: 48,
    created_at: '2026-03-01T09:00:00.000Z',
    updated_at: '2026-03-01T09:00:00.000Z',
    indexed_at: '2026-03-01T09:01:00.000Z',
    faiss_id: id,
    index_pending: false,
    source_info: { title: 'Honeybees', url: 'http://site/articles/honeybees' },
    job_id: 1,
    metadata: {},
    ...over,
  };
}

export function searchResponse(query: string, ids: number[]): SnippetSearchResponse {
  return {
    query,
    mode: 'hybrid',
    results: ids.map((id, i) => ({
      ...snippet(id),
      snippet_id: id,
      similarity: 0.7 - i * 0.1,
      score: 0.9 - i * 0.1,
      found_by: ['keyword', 'vector'],
      vector_score: 0.7 - i * 0.1,
      keyword_score: 5 - i,
      rerank_score: null,
    })),
    total: ids.length,
    latency_ms: 1.5,
    rerank: null,
  };
}

export function job(id: number, over: Partial<Job> = {}): Job {
  return {
    id,
    type: 'rebuild_index',
    status: 'processing',
    priority: 'high',
    urls: [],
    progress: 0.3,
    stage: 'Re-indexed 3 of 10 snippets',
    stats: {},
    errors: [],
    filters: {},
    metadata: { action: 'optimize_index' },
    worker_id: 'server',
    attempts: 1,
    created_at: '2026-03-01T10:00:00.000Z',
    started_at: '2026-03-01T10:00:00.000Z',
    completed_at: null,
    failed_at: null,
    cancelled_at: null,
    heartbeat_at: null,
    updated_at: '2026-03-01T10:00:00.000Z',
    ...over,
  };
}
