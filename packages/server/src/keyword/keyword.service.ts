import path from 'node:path';
import type { Piscina } from 'piscina';
import type { Logger } from '../logging.js';
import type { ComponentHealth } from '@adam/contracts';
import { prepared, type Db } from '../store/db.js';
import type { SnippetFilter, SnippetRepository } from '../store/snippet.repository.js';
import type { KeywordHit } from './keyword-index.js';
import { parseMatch } from './keyword-query.js';
import { startPool } from '../vector/recall.js';
import type { KeywordChange, KeywordRequest } from './keyword.worker.js';

/** Changes read from the log per step (texts included: a step stays a few MB). */
const DRAIN_BATCH = 2000;
/** Changes applied since the last save that make the next drain save (the log shrinks). */
const SAVE_AFTER = 50_000;

/** The keyword side of search: bm25 ranking and bm25 of given rows (lower is better). */
export interface KeywordSearcher {
  keywordSearch(
    match: string,
    limit: number,
    f?: SnippetFilter,
  ): Promise<{ id: number; bm25: number }[]>;
  keywordScores(match: string, ids: readonly number[]): Promise<Map<number, number>>;
  /**
   * Ranks offset..offset+limit of the listing by relevance (bm25, then id, best first) among
   * the rows `f` lets through, and how many rows match (exact); null when the engine cannot
   * answer it now (not ready, or a phrase): the store's FTS5 listing answers then.
   */
  keywordPage?(
    match: string,
    offset: number,
    limit: number,
    f: SnippetFilter,
  ): Promise<{ ids: number[]; total: number } | null>;
}

/** FTS5 alone (the repository's bm25 SQL), for a SnippetService built without the engine. */
export function ftsKeywordSearcher(snippets: SnippetRepository): KeywordSearcher {
  return {
    keywordSearch: async (match, limit, f) => snippets.keywordSearch(match, limit, f),
    keywordScores: async (match, ids) => snippets.keywordScores(match, ids),
  };
}

type State =
  | { is: 'starting' }
  | { is: 'building'; progress: Int32Array }
  | { is: 'ready' }
  | { is: 'failed'; error: string };

/**
 * The keyword engine (keyword-index.ts) kept in step with the store, on its own thread
 * (keyword.worker.ts). At open it loads `<data>/keyword/keyword.idx`, or builds from the store
 * when that is missing, damaged or behind what the change log still holds; meanwhile, and for
 * what the engine cannot answer (phrases), FTS5 answers. Triggers (migration 20) log every text
 * change in `keyword_changes`; each search first applies what is new there (reading an empty
 * log is one index seek), so a search sees every committed write. Rows of the log are deleted
 * once a save covers them: the log is the journal between saves.
 */
export class KeywordService implements KeywordSearcher {
  /** Started at the first call: the CLI's core never starts the thread. */
  private pool: Piscina | null = null;
  private state: State = { is: 'starting' };
  /** The last seq applied on the thread, and the last one a saved file covers. */
  private applied = 0;
  private saved = 0;
  private draining: Promise<void> | null = null;
  private paused = false;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  private opening: Promise<void> | null = null;
  /** Searches and score lookups answered by the engine and by FTS5 (health shows them). */
  private readonly answered = { engine: 0, fts5: 0 };
  readonly dir: string;

  constructor(
    private readonly deps: {
      db: Db;
      snippets: SnippetRepository;
      dataDir: string;
      log: Logger;
      /** How often changes are applied and, when many, saved in the background (ms). */
      syncEveryMs?: number;
    },
  ) {
    this.dir = path.join(deps.dataDir, 'keyword');
  }

  private get worker(): Piscina {
    this.pool ??= startPool('../keyword/keyword.worker');
    return this.pool;
  }

  private call<T>(req: KeywordRequest): Promise<T> {
    return this.worker.run(req) as Promise<T>;
  }

  get ready(): boolean {
    return this.state.is === 'ready';
  }

  /** Loads or builds; resolves once the engine answers (FTS5 answers until then). */
  open(): Promise<void> {
    this.opening ??= this.load().finally(() => (this.opening = null));
    const every = this.deps.syncEveryMs ?? 1000;
    if (!this.timer && every > 0) {
      this.timer = setInterval(() => void this.sync({ saveIfMany: true }).catch(() => {}), every);
      this.timer.unref();
    }
    return this.opening;
  }

  private async load(): Promise<void> {
    let why: string | null = null;
    try {
      const r = await this.call<{ loaded: boolean; seq: number; problem: string | null }>({
        op: 'open',
        dir: this.dir,
      });
      if (r.loaded) {
        why = this.gapProblem(r.seq);
        if (!why) {
          this.applied = this.saved = r.seq;
          this.state = { is: 'ready' };
          await this.sync();
          void this.verifyInBackground();
          return;
        }
      } else why = r.problem ?? 'no saved keyword index';
    } catch (e) {
      why = (e as Error).message;
    }
    this.deps.log.info({ component: 'keyword' }, `Keyword index rebuilt from the store: ${why}`);
    await this.build();
  }

  /** Why the log cannot bring a file saved at `seq` up to date, or null when it can. */
  private gapProblem(seq: number): string | null {
    const { high, after } = this.deps.db
      .prepare(
        `SELECT (SELECT COALESCE(MAX(seq), 0) FROM sqlite_sequence WHERE name = 'keyword_changes') AS high,
                (SELECT COUNT(*) FROM keyword_changes WHERE seq > ?) AS after`,
      )
      .get(seq) as { high: number; after: number };
    if (high < seq) return `the store's change log is behind the saved index (${high} < ${seq})`;
    if (after !== high - seq) return 'the change log no longer holds every change since the save';
    return null;
  }

  private async build(): Promise<void> {
    const progress = new Int32Array(new SharedArrayBuffer(8));
    this.state = { is: 'building', progress };
    try {
      const r = await this.call<{ seq: number; docs: number }>({
        op: 'build',
        dbFile: this.deps.db.name,
        progress: progress.buffer as SharedArrayBuffer,
      });
      this.applied = r.seq;
      this.saved = 0;
      this.state = { is: 'ready' };
      await this.sync();
      await this.save();
      this.deps.log.info({ component: 'keyword' }, `Keyword index built: ${r.docs} snippets`);
    } catch (e) {
      if (this.closed) return;
      this.state = { is: 'failed', error: (e as Error).message };
      this.deps.log.error({ component: 'keyword', err: e }, 'Building the keyword index failed');
    }
  }

  private async verifyInBackground(): Promise<void> {
    const { problem } = await this.call<{ problem: string | null }>({
      op: 'verify',
      dir: this.dir,
    }).catch(() => ({ problem: null }));
    if (problem && !this.closed) {
      this.deps.log.warn(
        { component: 'keyword' },
        `Keyword index rebuilt from the store: ${problem}`,
      );
      await this.build();
    }
  }

  /** Applies what the change log holds past the engine's seq (one drain at a time). */
  sync(opts: { saveIfMany?: boolean } = {}): Promise<void> {
    if (this.state.is !== 'ready' || this.paused || this.closed) return Promise.resolve();
    const run = async () => {
      // Prepared once: every search drains, and preparing cost more than reading an empty log.
      const read = prepared(
        this.deps.db,
        `SELECT seq, snippet_id AS id, old_text AS old, new_text AS new FROM keyword_changes
         WHERE seq > ? ORDER BY seq LIMIT ${DRAIN_BATCH}`,
      );
      for (;;) {
        const changes = read.all(this.applied) as KeywordChange[];
        if (changes.length === 0) break;
        const r = await this.call<{ seq: number }>({ op: 'apply', changes });
        this.applied = r.seq;
      }
      if (opts.saveIfMany && this.applied - this.saved >= SAVE_AFTER) await this.save();
    };
    const prev = this.draining ?? Promise.resolve();
    const p = prev.then(run, run).finally(() => {
      if (this.draining === p) this.draining = null;
    });
    this.draining = p;
    return p;
  }

  /** Writes the file, then drops the log rows it covers. */
  async save(): Promise<void> {
    if (this.state.is !== 'ready') return;
    const { seq } = await this.call<{ seq: number }>({ op: 'save', dir: this.dir });
    this.saved = seq;
    this.deps.db.prepare('DELETE FROM keyword_changes WHERE seq <= ?').run(seq);
  }

  async keywordSearch(
    match: string,
    limit: number,
    f: SnippetFilter = {},
  ): Promise<{ id: number; bm25: number }[]> {
    if (!this.usable(match)) {
      this.answered.fts5++;
      return this.deps.snippets.keywordSearch(match, limit, f);
    }
    this.answered.engine++;
    await this.sync();
    const filtered = Object.values(f).some((v) => v !== undefined);
    const accept = filtered ? sortedIds(this.deps.snippets.idsMatching(f)) : undefined;
    const hits = await this.call<KeywordHit[]>({ op: 'search', match, k: limit, accept });
    return hits.map((h) => ({ id: h.id, bm25: -h.score }));
  }

  async keywordScores(match: string, ids: readonly number[]): Promise<Map<number, number>> {
    if (!this.usable(match) || ids.length === 0) {
      this.answered.fts5++;
      return this.deps.snippets.keywordScores(match, ids);
    }
    this.answered.engine++;
    await this.sync();
    const hits = await this.call<KeywordHit[]>({ op: 'scores', match, ids: sortedIds(ids) });
    return new Map(hits.map((h) => [h.id, -h.score]));
  }

  async keywordPage(
    match: string,
    offset: number,
    limit: number,
    f: SnippetFilter,
  ): Promise<{ ids: number[]; total: number } | null> {
    if (!this.usable(match)) return null;
    this.answered.engine++;
    await this.sync();
    const filtered = Object.values(f).some((v) => v !== undefined);
    const accept = filtered ? sortedIds(this.deps.snippets.idsMatching(f)) : undefined;
    const r = await this.call<{ hits: KeywordHit[]; total: number }>({
      op: 'page',
      match,
      offset,
      limit,
      accept,
    });
    return { ids: r.hits.map((h) => h.id), total: r.total };
  }

  /** The engine answers this expression now (ready, and not a phrase). */
  private usable(match: string): boolean {
    if (this.state.is !== 'ready' || this.paused) return false;
    try {
      parseMatch(match);
      return true;
    } catch {
      return false;
    }
  }

  /** A restore replaces the data: no drain meanwhile, then a rebuild from the restored store. */
  pause(): Promise<void> {
    this.paused = true;
    return this.draining ?? Promise.resolve();
  }

  async resume(restored: boolean): Promise<void> {
    this.paused = false;
    if (!restored || this.closed) return;
    void this.build();
  }

  health(): ComponentHealth {
    const s = this.state;
    const details = {
      path: this.dir,
      applied_seq: this.applied,
      saved_seq: this.saved,
      answered: { ...this.answered },
    };
    // FTS5 answers every search meanwhile, same results: the server is not "starting" for the
    // minutes a build takes at 1M, and the state says what answers.
    if (s.is === 'starting')
      return { status: 'healthy', details: { ...details, state: 'loading; FTS5 answers' } };
    if (s.is === 'building') {
      const done = Atomics.load(s.progress, 0);
      const total = Atomics.load(s.progress, 1);
      return {
        status: 'healthy',
        details: { ...details, state: `building ${done} of ${total}; FTS5 answers` },
      };
    }
    if (s.is === 'failed')
      return { status: 'degraded', error: s.error, details: { ...details, state: 'FTS5 answers' } };
    return { status: 'healthy', details: { ...details, state: 'ready' } };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.timer) clearInterval(this.timer);
    try {
      // A build under way is dropped (the next start builds again), not waited for.
      if (this.state.is === 'ready') {
        await this.sync();
        await this.save();
      }
    } catch (e) {
      this.deps.log.warn({ component: 'keyword', err: e }, 'Saving the keyword index failed');
    }
    this.closed = true;
    await this.pool?.close({ force: true });
  }
}

function sortedIds(ids: readonly number[]): Uint32Array {
  return Uint32Array.from(ids).sort();
}
