/**
 * The thread that owns the keyword engine (keyword-client.ts starts it): a build at 1M takes
 * minutes and a common-word query tens of ms, so neither runs on the server's event loop. One
 * message at a time, in arrival order.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { KeywordIndex, type KeywordHit } from './keyword-index.js';
import { parseMatch, type KeywordQuery } from './keyword-query.js';
import { loadKeywordIndex, saveKeywordIndex, verifyKeywordFile } from './keyword-store.js';

/** One row of the change log: old null = an insert, new null = a delete. */
export interface KeywordChange {
  seq: number;
  id: number;
  old: string | null;
  new: string | null;
}

/** What the saved file covers, beside it: the last change applied and the file it goes with. */
export interface KeywordState {
  seq: number;
  size: number;
  mtimeMs: number;
}

export type KeywordRequest =
  | { op: 'open'; dir: string }
  | { op: 'build'; dbFile: string; progress: SharedArrayBuffer }
  | { op: 'apply'; changes: KeywordChange[] }
  | { op: 'search'; match: string; k: number; accept?: Uint32Array }
  | { op: 'scores'; match: string; ids: Uint32Array }
  | { op: 'page'; match: string; offset: number; limit: number; accept?: Uint32Array }
  | { op: 'save'; dir: string }
  | { op: 'verify'; dir: string }
  | { op: 'stats' };

export const STATE_FILE = 'keyword.state.json';

let index: KeywordIndex | null = null;
/** The last change log seq the index holds. */
let seq = 0;

type Search = (
  q: KeywordQuery,
  k: number,
  opts?: { accept?: (id: number) => boolean },
) => KeywordHit[];

/** Is `id` in the sorted `ids`? */
function inSorted(ids: Uint32Array, id: number): boolean {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid]!;
    if (v === id) return true;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * Top k among the ids `accept` lets through. The engine's own `accept` option keeps the exact
 * top k while skipping the others; an engine without it is asked for every match, filtered here.
 */
function searchAccepting(
  q: KeywordQuery,
  k: number,
  accept?: (id: number) => boolean,
): KeywordHit[] {
  const idx = index!;
  const search = idx.search.bind(idx) as Search;
  if (!accept) return search(q, k);
  // Top k all accepted: they are the accepted top k, whether the engine knew `accept` or not.
  const hits = search(q, k, { accept });
  if (hits.every((h) => accept(h.id))) return hits;
  return search(q, idx.size)
    .filter((h) => accept(h.id))
    .slice(0, k);
}

function handle(req: KeywordRequest): unknown {
  switch (req.op) {
    case 'open': {
      index = null;
      seq = 0;
      const state = readState(req.dir);
      // Throws DamagedKeywordIndex: the caller rebuilds.
      const loaded = loadKeywordIndex(req.dir);
      if (!loaded) return { loaded: false, seq: 0, problem: null };
      const file = fs.statSync(path.join(req.dir, 'keyword.idx'));
      if (!state || state.size !== file.size || state.mtimeMs !== file.mtimeMs)
        return { loaded: false, seq: 0, problem: 'its state file does not go with it' };
      index = loaded;
      seq = state.seq;
      return { loaded: true, seq, problem: null, docs: index.size };
    }
    case 'build': {
      const progress = new Int32Array(req.progress);
      const db = new Database(req.dbFile, { readonly: true, fileMustExist: true });
      try {
        // One read transaction: the rows and the log's last seq are the same moment's.
        const read = db.transaction(() => {
          const last =
            (db
              .prepare("SELECT seq FROM sqlite_sequence WHERE name = 'keyword_changes'")
              .pluck()
              .get() as number | undefined) ?? 0;
          Atomics.store(
            progress,
            1,
            db.prepare('SELECT COUNT(*) FROM snippets').pluck().get() as number,
          );
          const rows = db
            // The view (migration 27): title and heading path, then the text, as FTS5 indexes.
            .prepare('SELECT id, text FROM snippets_keyword ORDER BY id')
            .iterate() as Iterable<{ id: number; text: string }>;
          function* counted() {
            let n = 0;
            for (const r of rows) {
              yield r;
              if (++n % 1024 === 0) Atomics.store(progress, 0, n);
            }
            Atomics.store(progress, 0, n);
          }
          return { built: KeywordIndex.build(counted()), last };
        });
        const { built, last } = read();
        index = built;
        seq = last;
        return { seq, docs: built.size };
      } finally {
        db.close();
      }
    }
    case 'verify':
      try {
        verifyKeywordFile(req.dir);
        return { problem: null };
      } catch (e) {
        return { problem: (e as Error).message };
      }
  }
  if (!index) throw new Error('keyword index not open');
  switch (req.op) {
    case 'apply':
      for (const c of req.changes) {
        if (c.seq <= seq) continue;
        if (c.old !== null && c.new !== null) index.update(c.id, c.old, c.new);
        else if (c.old !== null) index.remove(c.id, c.old);
        else if (c.new !== null) index.add(c.id, c.new);
        seq = c.seq;
      }
      return { seq };
    case 'search': {
      const accept = req.accept;
      return searchAccepting(
        parseMatch(req.match),
        req.k,
        accept ? (id) => inSorted(accept, id) : undefined,
      );
    }
    case 'page': {
      // Ranks offset..offset+limit of the whole ranking, and how many rows it holds.
      const ids = req.accept;
      const accept = ids ? (id: number) => inSorted(ids, id) : undefined;
      const q = parseMatch(req.match);
      const hits = searchAccepting(q, req.offset + req.limit, accept).slice(req.offset);
      return { hits, total: index.count(q, { accept }) };
    }
    case 'scores': {
      const ids = req.ids;
      return searchAccepting(parseMatch(req.match), ids.length, (id) => inSorted(ids, id));
    }
    case 'save': {
      fs.mkdirSync(req.dir, { recursive: true });
      saveKeywordIndex(index, req.dir);
      const file = fs.statSync(path.join(req.dir, 'keyword.idx'));
      writeState(req.dir, { seq, size: file.size, mtimeMs: file.mtimeMs });
      return { seq };
    }
    case 'stats':
      return { ...index.stats(), seq };
  }
}

function readState(dir: string): KeywordState | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, STATE_FILE), 'utf8')) as KeywordState;
  } catch {
    return null;
  }
}

function writeState(dir: string, state: KeywordState): void {
  const file = path.join(dir, STATE_FILE);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(state));
  fs.renameSync(`${file}.tmp`, file);
}

/** piscina's entry: one request, answered or thrown. */
export default function run(req: KeywordRequest): unknown {
  return handle(req);
}
