import {
  encodeSnippetCursor,
  SnippetListQuery,
  SnippetSearchRequest,
  type SnippetCursor,
  type CleanupOrphansResponse,
  type ConsistencyReport,
  type DeleteSnippetResponse,
  type ExportRequest,
  type IndexEntriesQuery,
  type IndexEntryList,
  type IndexInspection,
  type ReconcileReport,
  type Snippet,
  type SnippetIndexInfo,
  type SnippetList,
  type SnippetSearchResponse,
} from '@adam/contracts';
import type { z } from 'zod';
import type { Embedder } from '../embedding/embedder.js';
import type { OnnxReranker } from '../embedding/onnx-reranker.js';
import { AppError, Conflict, NotFound, TooManyRequests, Unprocessable } from '../lib/errors.js';
import type { Logger } from '../logging.js';
import { ftsKeywordSearcher, type KeywordSearcher } from '../keyword/keyword.service.js';
import type { EventBus } from '../lib/event-bus.js';
import type {
  SnippetFilter,
  SnippetPosition,
  SnippetRepository,
  SnippetRow,
  SnippetSort,
} from '../store/snippet.repository.js';
import { normalizeInPlace } from '../embedding/embedder.js';
import { ftsMatch, fuseScores, queryWords, type SearchCandidate } from './hybrid-search.js';
import {
  blobToVector,
  storedCosines,
  type IndexMeasures,
  type IndexUpkeep,
  type IndexWrites,
  type VectorSearch,
} from './index.service.js';
import { SnippetDeleter } from './snippet-deleter.js';
import { exportOnThread, type ExportFile, type ExportThreadStats } from './snippet-export.js';
import { toSnippet } from './snippet-pages.js';
import { round } from '../lib/round.js';
import { isSparseQuery } from '../vector/vector-columns.js';

export type { SnippetExport } from './snippet-pages.js';

/** Consistency lists are capped; the summary always counts everything. */
const CONSISTENCY_LIST_LIMIT = 1000;

/**
 * Exports running at once. Each holds a thread of its own (its reads and its file's bytes), a
 * connection to the store and a client's socket: past two, a third client waits its turn (429)
 * rather than taking a core from everyone else.
 */
export const EXPORT_CONCURRENCY = 2;
/** What a refused export is told to wait, in seconds (a 1M-row export takes tens of seconds). */
const EXPORT_RETRY_AFTER_S = 10;

/** Candidates taken from each side in hybrid mode (more when k is larger). */
const HYBRID_DEPTH = 50;
/**
 * Vector mode takes the short-query path (shortVectorSearch) up to this many words: one to
 * three words and 10–15-word questions; whole sentences are longer and the graph finds theirs.
 */
const SHORT_QUERY_WORDS = 15;
/**
 * The short-query path's candidates, measured at 200k (bench/vector-queries.bench.ts, its grid
 * of recall@10 after the exact rerank): the graph's top 50 finds what its top 200 finds; the
 * keyword side's depth pays only for two words (top 50 → 300: 0.850 → 0.897), three words keep
 * 0.96 at 100 and questions 0.996 at 50, and the keyword engine's time grows with the depth.
 */
const SHORT_GRAPH_DEPTH = 50;
/**
 * Two and three words are far from every snippet (a short query's vector sits outside the
 * data's cloud) and HNSW walks badly towards such a point. Their first graph search walks
 * wider, at this expansion, and answers its top SHORT_GRAPH_DEPTH; then a second search goes
 * towards the query from inside the answer: to the point SHIFT_TOWARD_QUERY of the way from the
 * centroid of the first answer's top REFINE_FROM to the query (both unit vectors), for its top
 * SHIFTED_DEPTH. Measured at 1M (bf16, ef 176; bench/vector-queries.bench.ts, its refine table,
 * 100 queries of each kind), recall@10 after the exact rerank, two words / three words: the
 * index's own walk 0.857 / 0.901, then a second search from the centroid itself (this path
 * before) 0.866 / 0.917, towards the query 0.5 / 0.7 / 0.9 of the way 0.886 / 0.894 / 0.879 and
 * 0.931 / 0.939 / 0.921; walks at 300, 700, 1000 with 0.7: 0.902, 0.928, 0.930 and 0.944,
 * 0.964, 0.969, the first search taking 2.2 ms at the index's expansion, 2.9, 5.4, 6.8 ms wider.
 * Questions keep the index's walk and no second search (0.965; 0.978 with it, for its time).
 */
const SHORT_GRAPH_BREADTH = 700;
const REFINE_FROM = 3;
const SHIFT_TOWARD_QUERY = 0.7;
const SHIFTED_DEPTH = 100;
/** The wider walk and the second search are for queries of two to this many words. */
const REFINE_MAX_WORDS = 3;
/**
 * A sparse query (isSparseQuery: one word the embedder knows only by its letters, a number, a
 * code) is far from every snippet: the graph and the keyword side found half of its exact top 10
 * (0.503 at 200k; the graph alone 0.237 at 1M). The index thread's column scan is exact for it up
 * to int8 rounding; its top this many, ranked by exact cosine, hold the exact top 10 (1.000).
 */
const SPARSE_SCAN_DEPTH = 100;
function shortKeywordDepth(words: number): number {
  return words <= 2 ? 300 : words === 3 ? 100 : 50;
}
/** The point `t` of the way from `from` to `to`, both taken as unit vectors; a unit vector. */
function pointBetween(from: Float32Array, to: Float32Array, t: number): Float32Array {
  if (from.length !== to.length) return from;
  const a = from.slice();
  const b = to.slice();
  normalizeInPlace(a);
  normalizeInPlace(b);
  for (let d = 0; d < a.length; d++) a[d] = (1 - t) * a[d]! + t * b[d]!;
  normalizeInPlace(a);
  return a;
}
const isShortQuery = (query: string) => queryWords(query).length <= SHORT_QUERY_WORDS;

/**
 * The listing's order when the query names none: newest first, also for a text search (a page
 * in bm25 order must score every match: 0.3–0.6 s on a common word at a million rows; ranked
 * retrieval is POST /snippets/search, and `sort_by=relevance` asks for it here).
 */
export function listSort(q: Pick<ListQuery, 'sort_by'>): SnippetSort {
  return q.sort_by ?? 'created_at';
}

/** Where a page starts: the cursor's seek or offset, else the page number's offset. */
function listPosition(cursor: SnippetCursor | undefined, offset: number): SnippetPosition {
  if (!cursor) return offset;
  const { at } = cursor;
  if (at.way === 'offset') return at.offset;
  const key = { value: at.value, id: at.id };
  return at.way === 'after' ? { after: key } : { before: key };
}

type ListQuery = z.output<typeof SnippetListQuery>;
type SearchRequest = z.output<typeof SnippetSearchRequest>;

/** Where the rerank stage finds its settings and its model (bound once the registry exists). */
export interface RerankerSource {
  /** The processing settings' rerank_enabled, rerank_top_n and reranker_model, read per search. */
  settings(): { enabled: boolean; top_n: number; model: string };
  /** The installed reranker model of that name, ready to score; null when there is none. */
  reranker(name: string): OnnxReranker | null;
}

/** A search's rerank stage: the model and how many of the fused list it re-scores. */
interface RerankPlan {
  reranker: OnnxReranker;
  topN: number;
}

/** What the stage did: its scores by snippet id, and the response's `rerank`. */
interface RerankOutcome {
  scores: Map<number, number>;
  info: NonNullable<SnippetSearchResponse['rerank']>;
}

/** A search's candidates by id, and the one for an id (made on first sight). */
function candidateMap(): {
  candidates: Map<number, SearchCandidate>;
  candidate: (id: number) => SearchCandidate;
} {
  const candidates = new Map<number, SearchCandidate>();
  const candidate = (id: number) => {
    let c = candidates.get(id);
    if (!c) candidates.set(id, (c = { id, keyword: null, vector: null, foundBy: [] }));
    return c;
  };
  return { candidates, candidate };
}

export class SnippetService {
  private readonly deleter: SnippetDeleter;
  private exportsRunning = 0;
  private readonly exportThreads: ExportThreadStats = { threads: 0, rowsRead: 0, chunksAsked: 0 };
  private rerankers: RerankerSource | null = null;

  constructor(
    private readonly deps: {
      snippets: SnippetRepository;
      index: VectorSearch &
        Pick<IndexWrites, 'indexRows' | 'removeAndSave'> &
        Pick<IndexUpkeep, 'reconcile' | 'lastSavedAt'> &
        Pick<IndexMeasures, 'recordLatency' | 'diskBytes' | 'indexType'>;
      embedder: Embedder;
      bus: EventBus;
      log: Logger;
      /** The processing setting `search_vector_weight`, read at each search. */
      vectorWeight: () => number;
      /** The keyword side: the engine when ready, FTS5 otherwise (keyword/keyword.service.ts); FTS5 when absent. */
      keyword?: KeywordSearcher;
    },
  ) {
    this.deleter = new SnippetDeleter(deps);
  }

  /** Binds the rerank stage's settings and models (the registry is built after this service). */
  useReranker(source: RerankerSource): void {
    this.rerankers = source;
  }

  /**
   * Whether this search reranks, and with what: the request's `rerank` over the setting. Asked
   * outside hybrid mode: 422; asked with no installed reranker configured: 409. On by the
   * setting alone, it applies to hybrid searches and is skipped when its model is gone.
   */
  private rerankPlan(req: SearchRequest): RerankPlan | null {
    if (req.rerank === true && req.mode !== 'hybrid') {
      throw new Unprocessable('rerank applies to hybrid search', [
        { field: 'rerank', message: 'rerank applies to hybrid search' },
      ]);
    }
    const conf = this.rerankers?.settings();
    const wanted = req.rerank ?? conf?.enabled ?? false;
    if (!wanted || req.mode !== 'hybrid') return null;
    const reranker = conf && conf.model !== '' ? this.rerankers!.reranker(conf.model) : null;
    if (!reranker) {
      if (req.rerank !== true) return null;
      throw new Conflict(
        conf?.model
          ? `The reranker ${conf.model} is not installed: install it or choose another in the processing settings`
          : 'No reranker is configured: install a reranker model and choose it in the processing settings (reranker_model)',
      );
    }
    return { reranker, topN: req.rerank_top_n ?? conf!.top_n };
  }

  /**
   * Re-scores the top N of a ranking with the cross-encoder and orders them by its score (ties
   * keep their fused order); the rest stay below in their order.
   */
  private async rerankTop(
    query: string,
    ranked: { candidate: SearchCandidate; score: number }[],
    plan: RerankPlan,
  ): Promise<{ ranked: typeof ranked; outcome: RerankOutcome }> {
    const started = performance.now();
    const head = ranked.slice(0, plan.topN);
    const rows = new Map(
      this.deps.snippets.findByIds(head.map((r) => r.candidate.id)).map((r) => [r.id, r]),
    );
    // A row deleted since the fusion is dropped by finish(); its pair is not worth scoring.
    const present = head.filter((r) => rows.has(r.candidate.id));
    const scores = await plan.reranker.score(
      query,
      present.map((r) => rows.get(r.candidate.id)!.text),
    );
    const byId = new Map(present.map((r, i) => [r.candidate.id, scores[i]!]));
    const order = present
      .map((r, i) => ({ r, i, s: scores[i]! }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .map((x) => x.r);
    return {
      ranked: [...order, ...ranked.slice(plan.topN)],
      outcome: {
        scores: byId,
        info: {
          model: plan.reranker.name,
          top_n: plan.topN,
          latency_ms: round(performance.now() - started, 2),
        },
      },
    };
  }

  /** The index's content screen: indexed snippets, newest first, each with its snippet_id. */
  async indexEntries(q: z.output<typeof IndexEntriesQuery>): Promise<IndexEntryList> {
    const page = await this.list(
      {
        page: q.page,
        per_page: q.per_page,
        search: q.search,
        theme: q.theme,
        match: 'any',
        sort_by: 'created_at',
        order: 'desc',
        cursor: q.cursor,
      },
      { indexedOnly: true },
    );
    return { ...page, snippets: page.snippets.map((s) => ({ ...s, snippet_id: s.id })) };
  }

  /**
   * A page of snippets, by `page` (an offset: its cost grows with the depth) or by a cursor of
   * a page before (a keyset seek: the same cost at any depth; by relevance, an offset too).
   */
  async list(q: ListQuery, opts: { indexedOnly?: boolean } = {}): Promise<SnippetList> {
    const sort = listSort(q);
    const cursor = q.cursor;
    if (cursor && (cursor.sort !== sort || cursor.order !== q.order))
      throw new Unprocessable(
        `Invalid query: cursor: belongs to a listing sorted by ${cursor.sort} ${cursor.order}, ` +
          `not ${sort} ${q.order} (send the same sort and order as the page that gave it)`,
      );
    const filter: SnippetFilter = {
      indexed_only: opts.indexedOnly,
      theme: q.theme,
      min_quality: q.min_quality,
      job_id: q.job_id,
      source_url: q.source_url || undefined,
    };
    const pageNo = cursor?.page ?? q.page;
    const empty = { snippets: [], total: 0, total_exact: true, per_page: q.per_page };
    if (q.search) {
      const match = ftsMatch(q.search, q.match);
      if (!match) return { ...empty, page: pageNo, next_cursor: null, prev_cursor: null };
      filter.match = match;
    }
    const at = listPosition(cursor, (q.page - 1) * q.per_page);
    let page =
      (await this.rankedPage(filter, sort, q.order, q.per_page, at)) ??
      this.deps.snippets.listPage(filter, sort, q.order, q.per_page, at);
    let shown = pageNo;
    const before = typeof at !== 'number' && 'before' in at;
    if (before && !page.more) {
      // Nothing before these rows: this is the first page (read whole if rows went since).
      if (page.rows.length < q.per_page)
        page = this.deps.snippets.listPage(filter, sort, q.order, q.per_page, 0);
      shown = 1;
    }
    const first = page.rows[0];
    const last = page.rows.at(-1);
    const make = (p: number, to: SnippetCursor['at']) =>
      encodeSnippetCursor({ sort, order: q.order, page: Math.max(1, p), at: to });
    const key = (way: 'after' | 'before', r: SnippetRow) =>
      make(shown + (way === 'after' ? 1 : -1), {
        way,
        value: sort === 'quality_score' || sort === 'word_count' ? r[sort] : null,
        id: r.id,
      });
    let next: string | null = null;
    let prev: string | null = null;
    if (typeof at === 'number') {
      // By offset (a page number, or relevance): the neighbours are offsets or keys.
      const hasPrev = at > 0 && shown > 1;
      if (sort === 'relevance') {
        if (page.more) next = make(shown + 1, { way: 'offset', offset: at + q.per_page });
        if (hasPrev)
          prev = make(shown - 1, { way: 'offset', offset: Math.max(0, at - q.per_page) });
      } else {
        if (page.more && last) next = key('after', last);
        if (hasPrev && first) prev = key('before', first);
      }
    } else if (before) {
      if (last) next = key('after', last);
      if (page.more && first && shown > 1) prev = key('before', first);
    } else {
      if (page.more && last) next = key('after', last);
      if (first) prev = key('before', first);
    }
    return {
      snippets: page.rows.map(toSnippet),
      total: page.total,
      total_exact: page.exact,
      page: shown,
      per_page: q.per_page,
      next_cursor: next,
      prev_cursor: prev,
    };
  }

  /**
   * A page of a text search by relevance, best first, from the keyword engine: its ranking is
   * the listing's (bm25, then newer first) and its total an exact count of the matches among
   * the filtered rows. Null when FTS5 answers (the engine not ready, a phrase, worst first).
   */
  private async rankedPage(
    filter: SnippetFilter,
    sort: SnippetSort,
    order: 'asc' | 'desc',
    limit: number,
    at: SnippetPosition,
  ) {
    const keyword = this.deps.keyword;
    const { match, ...rest } = filter;
    if (sort !== 'relevance' || order !== 'desc' || !match || typeof at !== 'number') return null;
    if (!keyword?.keywordPage) return null;
    const others = Object.fromEntries(
      Object.entries(rest).filter(([, v]) => v !== undefined && v !== false),
    ) as SnippetFilter;
    // One row past the page says whether there is more.
    const ranked = await keyword.keywordPage(match, at, limit + 1, others);
    if (!ranked) return null;
    const rows = this.deps.snippets.findByIds(ranked.ids.slice(0, limit));
    const byId = new Map(rows.map((r) => [r.id, r]));
    return {
      rows: ranked.ids
        .slice(0, limit)
        .map((id) => byId.get(id))
        .filter((r): r is SnippetRow => !!r),
      total: ranked.total,
      exact: true,
      more: ranked.ids.length > limit,
    };
  }

  get(id: number): Snippet {
    const row = this.deps.snippets.findById(id);
    if (!row) throw new NotFound('snippet', id);
    return toSnippet(row);
  }

  /**
   * Search in one of three modes. `vector`: the query embedded like the snippets and looked up
   * in the index. `keyword`: FTS5 bm25 over the stemmed words, any of them. `hybrid`: both lists
   * of candidates, each completed with the other side's score, ranked by the weighted sum of the
   * normalised scores (weight from the processing settings).
   */
  async search(req: SearchRequest): Promise<SnippetSearchResponse> {
    const started = performance.now();
    const rerank = this.rerankPlan(req);
    const f = req.filters;
    const rowFilter: SnippetFilter = {
      theme: f?.theme,
      min_quality: f?.min_quality,
      job_id: f?.job_id,
      source_url: f?.source_url,
    };
    const filtered = Object.values(rowFilter).some((v) => v !== undefined);
    // Deeper lists than k, so that a snippet second on both sides can reach the top.
    const depth = req.mode === 'hybrid' ? Math.max(HYBRID_DEPTH, req.k * 2) : req.k;
    const { candidates, candidate } = candidateMap();

    const match = req.mode === 'vector' ? null : ftsMatch(req.query, 'any');
    if (req.mode === 'vector' && isShortQuery(req.query)) {
      return this.finish(req, started, await this.shortVectorSearch(req, rowFilter, filtered));
    }
    // The two sides run at once, each on its own thread (keyword engine, vector index): the
    // call waits for the slower, not for their sum. The keyword side's stored cosines are read
    // while the index searches (fuse needs them for the rows the index does not return).
    const embedded =
      req.mode === 'keyword' ? null : this.deps.embedder.embed([req.query]).then((v) => v[0]!);
    const keywordSide = async () => {
      if (!match) return { hits: [], cosines: new Map<number, number>() };
      const hits = await (
        this.deps.keyword ?? ftsKeywordSearcher(this.deps.snippets)
      ).keywordSearch(match, depth, rowFilter);
      const cosines =
        embedded && hits.length
          ? this.storedCosines(
              hits.map((h) => h.id),
              await embedded,
            )
          : new Map<number, number>();
      return { hits, cosines };
    };
    const [keywordHits, vectorSide] = await Promise.all([
      keywordSide(),
      embedded && this.vectorSide(req, rowFilter, filtered, depth, embedded),
    ]);
    for (const h of keywordHits.hits) {
      const c = candidate(h.id);
      c.keyword = -h.bm25;
      c.foundBy.push('keyword');
    }
    const queryVector = vectorSide?.queryVector ?? null;
    for (const h of vectorSide?.hits ?? []) {
      const c = candidate(h.key);
      c.vector = h.similarity;
      c.foundBy.push('vector');
    }
    // The index's own cosine stands for what it found, as completeCosines leaves it.
    for (const [id, cosine] of keywordHits.cosines) candidates.get(id)!.vector ??= cosine;

    const ranked =
      req.mode === 'hybrid'
        ? await this.fuse(candidates, match, queryVector!, req.k)
        : [...candidates.values()]
            .map((c) => ({ candidate: c, score: (req.mode === 'vector' ? c.vector : c.keyword)! }))
            .sort((a, b) => b.score - a.score || a.candidate.id - b.candidate.id);
    if (rerank) {
      const done = await this.rerankTop(req.query, ranked, rerank);
      return this.finish(req, started, done.ranked, done.outcome);
    }
    return this.finish(req, started, ranked);
  }

  /** The index's top `depth` for the query, once embedded (on this thread when short). */
  private async vectorSide(
    req: SearchRequest,
    rowFilter: SnippetFilter,
    filtered: boolean,
    depth: number,
    embedded: Promise<Float32Array>,
  ): Promise<{ queryVector: Float32Array; hits: { key: number; similarity: number }[] }> {
    const queryVector = await embedded;
    const { hits } = await this.deps.index.search(
      queryVector,
      depth,
      `${req.query}\u0000${JSON.stringify(req.filters ?? {})}`,
      this.allowedBy(rowFilter, filtered),
    );
    return { queryVector, hits };
  }

  /** The top k of a ranking as the response: rows read, the cosine completed in keyword mode. */
  private async finish(
    req: SearchRequest,
    started: number,
    ranked: { candidate: SearchCandidate; score: number }[],
    rerank: RerankOutcome | null = null,
  ): Promise<SnippetSearchResponse> {
    const top = ranked.slice(0, req.k);
    const rows = new Map(
      this.deps.snippets.findByIds(top.map((r) => r.candidate.id)).map((r) => [r.id, r]),
    );
    if (req.mode === 'keyword' && top.length) {
      // The cosine is shown in every mode: from the stored vectors, the query embedded once.
      const vector = (await this.deps.embedder.embed([req.query]))[0]!;
      this.completeCosines(
        top.map((r) => r.candidate),
        vector,
      );
    }
    const results = top
      .filter((r) => rows.has(r.candidate.id))
      .map(({ candidate: c, score }) => ({
        ...toSnippet(rows.get(c.id)!),
        snippet_id: c.id,
        similarity: round(c.vector ?? 0, 4),
        score: round(score, 4),
        found_by: c.foundBy,
        vector_score: c.vector === null ? null : round(c.vector, 4),
        keyword_score: c.keyword === null ? null : round(c.keyword, 4),
        rerank_score: rerank?.scores.has(c.id) ? round(rerank.scores.get(c.id)!, 4) : null,
      }));
    const latency = performance.now() - started;
    // The index's figure is the retrieval's: the rerank stage's cost is reported on its own.
    if (req.mode !== 'keyword')
      this.deps.index.recordLatency(latency - (rerank?.info.latency_ms ?? 0));
    return {
      query: req.query,
      mode: req.mode,
      results,
      total: results.length,
      latency_ms: round(latency, 2),
      rerank: rerank?.info ?? null,
    };
  }

  /**
   * Hybrid ranking with both scores for what is shown. Every candidate the keyword side missed
   * gets its cosine from the stored vector (cheap). The bm25 of a candidate the vector side
   * alone found is read for the top k only: FTS5 scores given rowids by walking each word's
   * whole posting list (~0.5 s for 50 rows at 1M), and below the keyword side's HYBRID_DEPTH
   * best a bm25 is small — ranking without it moved nDCG@10 by under 0.003 on bench/relevance.
   * Completing can only raise a top-k candidate, so the top k stay the same rows.
   */
  private async fuse(
    candidates: Map<number, SearchCandidate>,
    match: string | null,
    queryVector: Float32Array,
    k: number,
  ): Promise<{ candidate: SearchCandidate; score: number }[]> {
    this.completeCosines([...candidates.values()], queryVector);
    const weight = this.deps.vectorWeight();
    const basis = {
      terms: match ? match.split(' OR ').length : 0,
      documents: this.deps.snippets.maxId(),
    };
    const first = fuseScores([...candidates.values()], weight, basis);
    const missing = first
      .slice(0, k)
      .filter((r) => r.candidate.keyword === null)
      .map((r) => r.candidate.id);
    if (!match || missing.length === 0) return first;
    for (const [id, bm25] of await (
      this.deps.keyword ?? ftsKeywordSearcher(this.deps.snippets)
    ).keywordScores(match, missing))
      candidates.get(id)!.keyword = -bm25;
    return fuseScores([...candidates.values()], weight, basis);
  }

  /** The index's filter for a search's row filter (none when the search has no filter). */
  private allowedBy(
    rowFilter: SnippetFilter,
    filtered: boolean,
  ): ((key: number) => boolean) | undefined {
    if (!filtered) return undefined;
    const ids = new Set(this.deps.snippets.idsMatching(rowFilter));
    return (key) => ids.has(key);
  }

  /**
   * Vector mode for the queries people type (a few words, a question): the graph, built and
   * tuned on whole sentences, misses most of their exact top 10 (recall@10 0.21–0.83 at 200k,
   * ef 256 no better). So the candidates are the graph's wider top ∪ the keyword engine's top
   * for the query's words, every one given its exact cosine from the stored vector, and the top
   * k by that cosine is the answer — what the exact scan over all snippets would give whenever
   * its top k holds a query word or is near enough for the graph.
   */
  private async shortVectorSearch(
    req: SearchRequest,
    rowFilter: SnippetFilter,
    filtered: boolean,
  ): Promise<{ candidate: SearchCandidate; score: number }[]> {
    const { candidates, candidate } = candidateMap();
    const match = ftsMatch(req.query, 'any');
    // A short query is embedded on this thread; then the keyword engine and the graph, each on
    // its own thread, run at once: the search waits for the slower side, not their sum.
    const queryVector = (await this.deps.embedder.embed([req.query]))[0]!;
    const allow = this.allowedBy(rowFilter, filtered);
    const words = queryWords(req.query).length;
    const walksWide = words >= 2 && words <= REFINE_MAX_WORDS;
    const [keywordHits, { hits }, scanned] = await Promise.all([
      match
        ? (this.deps.keyword ?? ftsKeywordSearcher(this.deps.snippets)).keywordSearch(
            match,
            Math.max(shortKeywordDepth(queryWords(req.query).length), req.k),
            rowFilter,
          )
        : Promise.resolve([]),
      this.deps.index.search(
        queryVector,
        Math.max(SHORT_GRAPH_DEPTH, req.k),
        `${req.query}\u0000${JSON.stringify(req.filters ?? {})}`,
        allow,
        walksWide ? SHORT_GRAPH_BREADTH : 0,
      ),
      isSparseQuery(queryVector)
        ? this.deps.index.scanColumns(
            queryVector,
            Math.max(SPARSE_SCAN_DEPTH, req.k) * (filtered ? 4 : 1),
            allow,
          )
        : Promise.resolve(null),
    ]);
    for (const h of scanned ?? []) candidate(h.key).foundBy.push('vector');
    for (const h of keywordHits) {
      const c = candidate(h.id);
      c.keyword = -h.bm25;
      c.foundBy.push('keyword');
    }
    const graphSimilarity = new Map<number, number>();
    for (const h of hits) {
      const c = candidate(h.key);
      if (!c.foundBy.includes('vector')) c.foundBy.push('vector');
      graphSimilarity.set(h.key, h.similarity);
    }
    // Every cosine exact, the graph's own ones too (a quantised graph's are approximate); the
    // graph's stands where the stored vector is of another embedder (a space switch).
    this.completeCosines([...candidates.values()], queryVector);
    for (const [id, similarity] of graphSimilarity) candidates.get(id)!.vector ??= similarity;
    const byCosine = () =>
      [...candidates.values()]
        .filter((c) => c.vector !== null)
        .map((c) => ({ candidate: c, score: c.vector! }))
        .sort((a, b) => b.score - a.score || a.candidate.id - b.candidate.id);
    // Then the graph once more, towards the query from the centroid of that answer's top
    // REFINE_FROM: it walks well from inside the answer's neighbourhood.
    const centroid = walksWide
      ? this.centroidOf(
          byCosine()
            .slice(0, REFINE_FROM)
            .map((r) => r.candidate.id),
        )
      : null;
    if (centroid) {
      const { hits: near } = await this.deps.index.search(
        pointBetween(centroid, queryVector, SHIFT_TOWARD_QUERY),
        Math.max(SHIFTED_DEPTH, req.k),
        `${req.query}\u0000${JSON.stringify(req.filters ?? {})}\u0000refine`,
        allow,
      );
      // Their similarity is to that point: each gets its cosine to the query from its vector.
      const found = near.filter((h) => !candidates.has(h.key)).map((h) => candidate(h.key));
      for (const c of found) c.foundBy.push('vector');
      this.completeCosines(found, queryVector);
    }
    return byCosine();
  }

  /** The normalised mean of the rows' stored vectors of the current embedder; null for none. */
  private centroidOf(ids: readonly number[]): Float32Array | null {
    let sum: Float32Array | null = null;
    for (const e of this.deps.snippets.storedVectors(ids).values()) {
      if (e.embedder_id !== this.deps.embedder.id) continue;
      const v = blobToVector(e.embedding);
      if (sum && v.length !== sum.length) continue;
      sum ??= new Float32Array(v.length);
      for (let d = 0; d < v.length; d++) sum[d]! += v[d]!;
    }
    if (sum) normalizeInPlace(sum);
    return sum;
  }

  /** Sets the cosine of candidates without one from their stored vector of the current embedder. */
  private completeCosines(candidates: SearchCandidate[], queryVector: Float32Array): void {
    const byId = new Map(candidates.filter((c) => c.vector === null).map((c) => [c.id, c]));
    if (byId.size === 0) return;
    for (const [id, cosine] of this.storedCosines([...byId.keys()], queryVector))
      byId.get(id)!.vector = cosine;
  }

  /** The cosine to the query of each row's stored vector of the current embedder (others left out). */
  private storedCosines(ids: readonly number[], queryVector: Float32Array): Map<number, number> {
    return storedCosines(this.deps.snippets, ids, queryVector, this.deps.embedder.id);
  }

  /** What the index holds for a snippet; 404 'Snippet not indexed' when it is not there. */
  async indexInfo(id: number): Promise<SnippetIndexInfo> {
    const row = this.deps.snippets.findById(id);
    if (!row) throw new NotFound('snippet', id);
    if (!this.deps.index.has(id) || row.index_pending === 1)
      throw new AppError(404, 'Snippet not indexed');
    const stored = this.deps.snippets.embeddings([id]).get(id);
    const vector = stored?.embedding ? blobToVector(stored.embedding) : null;
    const nearest = vector
      ? (await this.deps.index.search(vector, 6, `#neighbours:${id}`)).hits
          .filter((h) => h.key !== id)
          .slice(0, 5)
          .map((h) => ({ snippet_id: h.key, similarity: round(h.similarity, 4) }))
      : [];
    return {
      snippet_id: id,
      faiss_id: id,
      indexed_at: row.indexed_at,
      in_index: true,
      dimension: this.deps.index.dimension,
      embedder: stored?.embedder_id ?? null,
      vector_norm: vector ? round(Math.hypot(...vector), 4) : null,
      vector_preview: vector ? Array.from(vector.subarray(0, 8), (x) => round(x, 5)) : [],
      nearest,
    };
  }

  /** Removes the row and its vector; says which of the two existed. */
  delete(id: number): DeleteSnippetResponse {
    const deleted = this.deleter.delete([id]);
    const inStore = deleted.snippets_deleted === 1;
    const inIndex = deleted.vectors_deleted === 1;
    if (!inStore && !inIndex) throw new NotFound('snippet', id);
    this.deps.log.info(
      { component: 'snippets' },
      `Snippet ${id} deleted (store: ${inStore ? 'yes' : 'no'}, index: ${inIndex ? 'yes' : 'no'})`,
    );
    return { id, deleted: true, removed_from_store: inStore, removed_from_index: inIndex };
  }

  /**
   * Starts an export: the ids asked for (in that order), or every snippet in id (= created_at)
   * order, all of them. Past EXPORT_CONCURRENCY running exports the call is refused (429);
   * unknown ids are refused before anything is sent (404). The rows are read and the file
   * written on the export's own thread, a chunk at a time as the client takes them
   * (snippet-export.ts): memory holds a chunk or two whatever the size, and the event loop is
   * never held. The export sees the rows that exist when it starts: rows added later are left
   * out, rows deleted before their page is read are skipped.
   */
  async openExport(req: z.output<typeof ExportRequest>): Promise<ExportFile> {
    if (this.exportsRunning >= EXPORT_CONCURRENCY) {
      throw new TooManyRequests(
        `${EXPORT_CONCURRENCY} exports are already running; try again when one has finished`,
        EXPORT_RETRY_AFTER_S,
      );
    }
    // Taken before the thread starts: starting it yields, and a slot must not be handed twice.
    this.exportsRunning++;
    let taken = true;
    const free = () => {
      if (taken) this.exportsRunning--;
      taken = false;
    };
    try {
      return await exportOnThread({
        dbFile: this.deps.snippets.file,
        ids: req.ids,
        embeddings: req.include_embeddings,
        format: req.format,
        now: new Date(),
        stats: this.exportThreads,
        onEnd: free,
      });
    } catch (e) {
      free();
      throw e;
    }
  }

  /** Exports under way (a slot is freed when the file ends or its client goes away). */
  get exportsInProgress(): number {
    return this.exportsRunning;
  }

  /** What the exports' threads have done: threads alive, rows read, chunks being read. */
  get exportThreadStats(): Readonly<ExportThreadStats> {
    return this.exportThreads;
  }

  consistency(): ConsistencyReport {
    const {
      okIds,
      diskOnly: diskOnlyIds,
      indexOnly: indexOnlyKeys,
      totalDisk,
    } = this.consistencyIds();
    const entries = (ids: number[]) =>
      this.deps.snippets.findByIds(ids.slice(-CONSISTENCY_LIST_LIMIT)).map((r) => {
        const s = toSnippet(r);
        return {
          id: s.id,
          theme: s.theme,
          quality_score: s.quality_score,
          created_at: s.created_at,
          indexed_at: s.indexed_at,
          faiss_id: s.faiss_id,
          metadata: s.metadata,
          size_bytes: s.size_bytes,
          source_info: s.source_info,
          text: s.text.slice(0, 200),
          index_pending: s.index_pending,
        };
      });
    return {
      summary: {
        total_index: this.deps.index.size,
        total_disk: totalDisk,
        consistent: okIds.length,
        index_only: indexOnlyKeys.length,
        disk_only: diskOnlyIds.length,
      },
      snippets_ok: entries(okIds),
      index_only: indexOnlyKeys.slice(0, CONSISTENCY_LIST_LIMIT).map((k) => ({ faiss_id: k })),
      disk_only: entries(diskOnlyIds),
      checked_at: new Date().toISOString(),
    };
  }

  /**
   * index_only: drops vectors that have no row. disk_only: indexes rows missing from the
   * index, or deletes them when asked to.
   */
  async cleanupOrphans(
    type: 'index_only' | 'disk_only',
    opts: { delete?: boolean; ids?: number[] } = {},
  ): Promise<CleanupOrphansResponse> {
    const report = this.consistencyIds();
    const pick = (all: number[]) => (opts.ids ? all.filter((id) => opts.ids!.includes(id)) : all);
    if (type === 'index_only') {
      const removed = this.deps.index.removeAndSave(pick(report.indexOnly));
      this.deps.log.info(
        { component: 'snippets' },
        `Removed ${removed.length} orphaned vectors from the index`,
      );
      return {
        cleanup_type: type,
        action: 'removed_vectors',
        processed: removed.length,
        ids: removed,
      };
    }
    const ids = pick(report.diskOnly);
    if (opts.delete) {
      // Pending rows may have a stale vector: it goes with them rather than stay an orphan.
      this.deleter.delete(ids);
      this.deps.log.info(
        { component: 'snippets' },
        `Deleted ${ids.length} snippets missing from the index`,
      );
      return { cleanup_type: type, action: 'deleted_rows', processed: ids.length, ids };
    }
    this.deps.snippets.markPending(ids);
    let done = 0;
    for (let i = 0; i < ids.length; i += 256)
      done += await this.deps.index.indexRows(ids.slice(i, i + 256));
    this.deps.log.info(
      { component: 'snippets' },
      `Re-indexed ${done} snippets missing from the index`,
    );
    return { cleanup_type: type, action: 'reindexed', processed: done, ids };
  }

  private consistencyIds(): {
    okIds: number[];
    diskOnly: number[];
    indexOnly: number[];
    totalDisk: number;
  } {
    const state = this.deps.snippets.indexState();
    const rowIds = new Set<number>();
    const okIds: number[] = [];
    const diskOnly: number[] = [];
    for (const r of state) {
      rowIds.add(r.id);
      (this.deps.index.has(r.id) && !r.index_pending ? okIds : diskOnly).push(r.id);
    }
    const indexOnly = this.deps.index.keys().filter((k) => !rowIds.has(k));
    return { okIds, diskOnly, indexOnly, totalDisk: state.length };
  }

  refreshState(): Promise<ReconcileReport> {
    return this.deps.index.reconcile();
  }

  inspection(): IndexInspection {
    const counts = this.deps.snippets.indexCounts();
    const latest = this.deps.snippets.listPage({}, 'created_at', 'desc', 20, 0).rows;
    return {
      index_type: this.deps.index.indexType,
      dimension: this.deps.index.dimension,
      embedder: this.deps.embedder.id,
      total_vectors: this.deps.index.size,
      total_snippets: counts.total,
      pending: counts.pending,
      index_file_bytes: this.deps.index.diskBytes(),
      last_saved_at: this.deps.index.lastSavedAt,
      sample: latest.map((r) => ({
        snippet_id: r.id,
        faiss_id: r.faiss_id,
        indexed_at: r.indexed_at,
        in_index: this.deps.index.has(r.id),
      })),
    };
  }
}
