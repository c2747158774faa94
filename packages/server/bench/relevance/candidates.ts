/**
 * A relevance set in a real ADAM store (rows through SnippetRepository, so FTS5 and its triggers
 * are used; vectors through IndexService.reconcile and the real HNSW index), and each query's
 * completed candidates: the keyword side's and the vector side's `depth` best, every candidate
 * given the other side's score too (bm25 from FTS5, cosine from the stored vector), so that
 * fusions compared on them differ only in how they combine the two.
 */
import path from 'node:path';
import type { Embedder } from '../../src/embedding/embedder.js';
import { dot } from '../../src/embedding/embedder.js';
import type { EvalSet } from '../eval/evaluate.js';
import { createLogger, LogSink } from '../../src/logging.js';
import { EventBus } from '../../src/lib/event-bus.js';
import { ftsMatch, type SearchCandidate } from '../../src/services/hybrid-search.js';
import { blobToVector, IndexService } from '../../src/services/index.service.js';
import { textHash } from '../../src/pipeline/segment-key.js';
import { openDatabase, type Db } from '../../src/store/db.js';
import { SnippetRepository } from '../../src/store/snippet.repository.js';
import { removeDir, tempDataDir } from '../common.js';

export interface RelevanceStore {
  db: Db;
  repo: SnippetRepository;
  index: IndexService;
  /** Snippet id → the set's document id. */
  docIdOf: Map<number, string>;
  close(): void;
}

export async function openRelevanceStore(
  name: string,
  set: EvalSet,
  embedder: Embedder,
): Promise<RelevanceStore> {
  const dataDir = tempDataDir(`adam-bench-relevance-${name}-`);
  const db = openDatabase(dataDir);
  const repo = new SnippetRepository(db);
  const ids = repo.insertMany(
    set.docs.map((d) => ({
      text: d.text,
      text_hash: textHash(d.text),
      theme: 'general',
      quality_score: 0.5,
      language: null,
      word_count: d.text.split(/\s+/).length,
      size_bytes: Buffer.byteLength(d.text, 'utf8'),
      // No title: keyword search matches a title (migration 27), and a set's document ids name
      // their topics; the sets measure the text.
      source_title: null,
      source_url: null,
      job_id: null,
      metadata: '{}',
      embedding: null,
      embedder_id: null,
    })),
  );
  const docIdOf = new Map<number, string>();
  ids.forEach((id, i) => {
    if (id === null) throw new Error(`${name} document ${set.docs[i]!.id} is a duplicate`);
    docIdOf.set(id, set.docs[i]!.id);
  });
  const log = createLogger({ level: 'warn', sink: new LogSink(), stdout: false });
  const index = new IndexService({
    dir: path.join(dataDir, 'index'),
    snippets: repo,
    embedder,
    log,
    bus: new EventBus(),
  });
  await index.reconcile();
  return {
    db,
    repo,
    index,
    docIdOf,
    close: () => {
      db.close();
      removeDir(dataDir);
    },
  };
}

/** Each query's completed candidates in an open store (ids are snippet ids). */
export async function completedCandidates(
  store: RelevanceStore,
  set: EvalSet,
  embedder: Embedder,
  depth: number,
): Promise<SearchCandidate[][]> {
  const { repo, index } = store;
  const lists: SearchCandidate[][] = [];
  for (const q of set.queries) {
    const cands = new Map<number, SearchCandidate>();
    const get = (id: number) => {
      let c = cands.get(id);
      if (!c) cands.set(id, (c = { id, keyword: null, vector: null, foundBy: [] }));
      return c;
    };
    const match = ftsMatch(q.text, 'any');
    if (match)
      for (const h of repo.keywordSearch(match, depth)) {
        get(h.id).keyword = -h.bm25;
        get(h.id).foundBy.push('keyword');
      }
    const qv = (await embedder.embed([q.text]))[0]!;
    for (const h of (await index.search(qv, depth, `fusion\u0000${depth}\u0000${q.text}`)).hits) {
      get(h.key).vector = h.similarity;
      get(h.key).foundBy.push('vector');
    }
    const all = [...cands.keys()];
    for (const [id, e] of repo.embeddings(all))
      if (e.embedding && cands.get(id)!.vector === null)
        cands.get(id)!.vector = dot(qv, blobToVector(e.embedding));
    if (match)
      for (const [id, bm25] of repo.keywordScores(match, all)) cands.get(id)!.keyword = -bm25;
    lists.push([...cands.values()]);
  }
  return lists;
}

/** Candidates of a set with the set's document ids, in a store opened and removed here. */
export async function buildCandidates(
  name: string,
  set: EvalSet,
  embedder: Embedder,
  depth: number,
): Promise<{ documents: number; lists: (SearchCandidate & { doc: string })[][] }> {
  const store = await openRelevanceStore(name, set, embedder);
  try {
    const lists = await completedCandidates(store, set, embedder, depth);
    return {
      documents: set.docs.length,
      lists: lists.map((l) => l.map((c) => ({ ...c, doc: store.docIdOf.get(c.id)! }))),
    };
  } finally {
    store.close();
  }
}
