/**
 * An inverted index over snippets with top-k BM25 that stops early: the scores are FTS5's
 * `bm25()` (same terms, constants and idf; see bm25.ts), the ranking the one of `ORDER BY bm25`
 * with ties broken by the higher id, but a query visits a small part of the postings:
 *
 * - Block-max MaxScore (Turtle & Flood's MaxScore, with Lucene's per-block bounds), scored a
 *   window of 2,048 documents at a time as Lucene's MaxScoreBulkScorer does: the query's terms
 *   are sorted by their best possible contribution; the weakest ones, whose bounds add up to less
 *   than the k-th best score so far, are "non-essential" and only looked up for documents the
 *   others bring; a window whose blocks' bounds cannot beat the k-th score is skipped whole.
 *   Chosen over block-max WAND because it keeps one simple loop for 1 to 32 terms (WAND re-sorts
 *   its cursors at every step, which costs most on the 10–15-word questions the issue measures).
 * - A block is 128 postings; its bound is computed at query time from its largest tf and its
 *   shortest document, so it stays valid as the collection's average length moves.
 * - Each posting also carries its impact rounded up to one of 255 levels (a byte, derived at
 *   load): a window adds up these bounds in a tight pass over the essential terms' postings
 *   (no document length read, no division), passes over postings that cannot reach the k-th
 *   score, and computes FTS5's exact score only for the documents that still can.
 *
 * Layout (compact, typed arrays): a base segment, immutable, documents numbered 0..n-1 in id
 * order (postings as plain Uint32 document numbers and Uint16 term counts, per-term contiguous);
 * a small mutable segment for added and updated documents, searched exhaustively; a deletion
 * bitmap over the base. `merge()` folds both into a new base (LSM-style), and runs by itself
 * when the mutable part passes MERGE_AT documents.
 */
import { forEachTerm } from './tokenizer.js';
import { bm25Idf, bm25Term, bm25Tf } from './bm25.js';
import type { KeywordMode, KeywordQuery } from './keyword-query.js';

const BLOCK = 128;
/** Document numbers the bulk scorer adds up at once (searchBaseAny). */
const WINDOW = 2048;
/** Mutable documents before a merge: small enough to score exhaustively in well under 1 ms. */
const MERGE_AT = 20_000;
const MAX_TF = 0xffff;
/** Slack on every pruning test: bounds and scores add the same terms in different orders. */
const SLACK = 1 + 1e-9;

export interface KeywordHit {
  id: number;
  /** BM25 relevance, higher is better: FTS5's bm25() with the sign turned. */
  score: number;
}

export interface KeywordSearchOptions {
  /**
   * Only documents this accepts are ranked (a filtered search or listing): the answer is the
   * exact top k among them. Called at most once per candidate document, never for one whose
   * bounds already rule it out.
   */
  accept?: (id: number) => boolean;
}

export interface KeywordStats {
  docs: number;
  terms: number;
  postings: number;
  mutableDocs: number;
  deletedInBase: number;
  bytes: number;
}

/** The immutable part: every array indexed by term id or document number. */
export interface BaseSegment {
  ids: Uint32Array;
  lengths: Uint32Array;
  /** postStart[t]..postStart[t+1]: term t's postings (t < terms.length). */
  postStart: Uint32Array;
  postDocs: Uint32Array;
  postTf: Uint16Array;
  /** blockStart[t]..blockStart[t+1]: term t's blocks. */
  blockStart: Uint32Array;
  blockLast: Uint32Array;
  blockMaxTf: Uint16Array;
  blockMinLen: Uint32Array;
  /**
   * Per block, the largest bm25Tf of its documents at `impactAvgdl` (rounded up): the exact
   * block bound (idf × this) while the collection's average length is that; when it grows by a
   * factor r, every bm25Tf grows by at most r, so idf × this × r still bounds the block.
   * Derived from the arrays above (not saved: recomputed at load).
   */
  blockImpact: Float32Array;
  /**
   * Per posting, its bm25Tf at `impactAvgdl` in units of IMPACT_UNIT, rounded up: the bulk
   * scorer passes over a posting this rules out without reading its document's length.
   */
  postImpact: Uint8Array;
  impactAvgdl: number;
}

/** The saved part of a base segment (keyword-store.ts). */
export type StoredBaseSegment = Omit<BaseSegment, 'blockImpact' | 'postImpact' | 'impactAvgdl'>;

export class KeywordIndexError extends Error {}

/** Growable typed array helpers. */
function grown<T extends Uint32Array | Uint16Array | Int32Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2, 16));
  next.set(a);
  return next;
}

interface Cursor {
  slot: number;
  idf: number;
  /** How many of the query's phrases are this term. */
  weight: number;
  /** The most this term can add to a score (its best block). */
  ub: number;
  /** What one IMPACT_UNIT of a posting's impact level is worth in this query's score. */
  unit: number;
  pos: number;
  end: number;
  /** Block index (absolute) holding `pos`. */
  blk: number;
  blkEnd: number;
  /** The first block that may hold documents at or after the current window (bounds only). */
  shallow: number;
  /** Absolute index of the term's first posting and first block. */
  post0: number;
  blk0: number;
}

/** One query's state: unique terms by slot, and per candidate each slot's part of the score. */
interface Query {
  terms: number[];
  weights: number[];
  idf: number[];
  /** The slot of each phrase with a term, in the query's order. */
  phraseSlots: number[];
  avgdl: number;
  contrib: Float64Array;
  top: TopK;
  /** max(1, avgdl / the base's impactAvgdl): what the blocks' impacts are multiplied by. */
  impactScale: number;
  accept: ((id: number) => boolean) | undefined;
}

/** The score as FTS5 adds it up: phrase by phrase, in the query's order. */
function phraseSum(q: Query): number {
  let s = 0;
  for (const slot of q.phraseSlots) s += q.contrib[slot]!;
  return s;
}

/**
 * A window's sums and where each essential term's posting of each document is. Entries are
 * valid only under the current window's stamp, so nothing is cleared between windows but the
 * bitset of documents seen.
 */
class WindowBuffers {
  readonly acc = new Float64Array(WINDOW);
  readonly accStamp = new Uint32Array(WINDOW);
  readonly bits = new Uint32Array(WINDOW / 32);
  readonly posAt: Uint32Array;
  readonly posStamp: Uint32Array;
  private stamp = 0;
  constructor(readonly terms: number) {
    this.posAt = new Uint32Array(terms * WINDOW);
    this.posStamp = new Uint32Array(terms * WINDOW);
  }
  /** A stamp no entry holds yet. */
  next(): number {
    if (this.stamp === 0xffffffff) {
      this.stamp = 0;
      this.accStamp.fill(0);
      this.posStamp.fill(0);
    }
    return ++this.stamp;
  }
}

/** Top-k by (score desc, id desc), a binary min-heap on the worst kept. */
class TopK {
  readonly scores: number[] = [];
  readonly ids: number[] = [];
  constructor(readonly k: number) {}
  get full(): boolean {
    return this.scores.length >= this.k;
  }
  /** The score to beat (−∞ until full). */
  get threshold(): number {
    return this.full ? this.scores[0]! : -Infinity;
  }
  private worse(i: number, j: number): boolean {
    const a = this.scores[i]!;
    const b = this.scores[j]!;
    return a < b || (a === b && this.ids[i]! < this.ids[j]!);
  }
  private swap(i: number, j: number): void {
    const score = this.scores[i]!;
    this.scores[i] = this.scores[j]!;
    this.scores[j] = score;
    const id = this.ids[i]!;
    this.ids[i] = this.ids[j]!;
    this.ids[j] = id;
  }
  offer(score: number, id: number): boolean {
    if (this.k <= 0) return false;
    if (this.full) {
      const s0 = this.scores[0]!;
      if (score < s0 || (score === s0 && id < this.ids[0]!)) return false;
      this.scores[0] = score;
      this.ids[0] = id;
      this.down(0);
      return true;
    }
    this.scores.push(score);
    this.ids.push(id);
    let i = this.scores.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.worse(i, p)) break;
      this.swap(i, p);
      i = p;
    }
    return true;
  }
  private down(i: number): void {
    const n = this.scores.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.worse(l, m)) m = l;
      if (r < n && this.worse(r, m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}

export class KeywordIndex {
  private readonly termIds = new Map<string, number>();
  private readonly termList: string[] = [];
  /** Live documents with each term, base and mutable together (bm25's nHit). */
  private df = new Int32Array(0);
  private base: BaseSegment;
  private baseDeleted: Uint8Array;
  private deletedInBase = 0;
  private liveDocs = 0;
  private totalTokens = 0;
  // Mutable segment: documents by number; postings per term as [doc, tf, doc, tf, ...].
  private mutIds: number[] = [];
  private mutLengths: number[] = [];
  private mutDeleted: boolean[] = [];
  private mutLive = 0;
  private readonly mutById = new Map<number, number>();
  private readonly mutPostings = new Map<number, number[]>();
  /** Merge on its own when the mutable part grows past this (tests lower it). */
  mergeAt = MERGE_AT;

  private constructor(base: BaseSegment, terms: readonly string[]) {
    this.base = base;
    for (const t of terms) this.termId(t);
    this.baseDeleted = new Uint8Array(base.ids.length);
    this.liveDocs = base.ids.length;
    this.df = new Int32Array(Math.max(16, terms.length));
    for (let t = 0; t < terms.length; t++) this.df[t] = base.postStart[t + 1]! - base.postStart[t]!;
    let total = 0;
    for (let d = 0; d < base.lengths.length; d++) total += base.lengths[d]!;
    this.totalTokens = total;
  }

  /** An index over `rows`, which come in ascending id order (`ORDER BY id`). */
  static build(rows: Iterable<{ id: number; text: string }>): KeywordIndex {
    const dict = new Map<string, number>();
    const terms: string[] = [];
    let ids = new Uint32Array(1024);
    let lengths = new Uint32Array(1024);
    let docStart = new Uint32Array(1025);
    let streamTerm = new Uint32Array(1 << 16);
    let streamTf = new Uint16Array(1 << 16);
    let tfScratch = new Int32Array(1024);
    let dfCount = new Uint32Array(1024);
    const touched: number[] = [];
    let n = 0;
    let s = 0;
    let last = -1;
    for (const row of rows) {
      checkId(row.id);
      if (row.id <= last)
        throw new KeywordIndexError(
          `rows must come in ascending id order (${row.id} after ${last})`,
        );
      last = row.id;
      let len = 0;
      forEachTerm(row.text, (term) => {
        let t = dict.get(term);
        if (t === undefined) {
          t = terms.length;
          dict.set(term, t);
          terms.push(term);
          tfScratch = grown(tfScratch, t + 1);
          dfCount = grown(dfCount, t + 1);
        }
        if (tfScratch[t] === 0) touched.push(t);
        tfScratch[t]!++;
        len++;
      });
      ids = grown(ids, n + 1);
      lengths = grown(lengths, n + 1);
      docStart = grown(docStart, n + 2);
      streamTerm = grown(streamTerm, s + touched.length);
      streamTf = grown(streamTf, s + touched.length);
      ids[n] = row.id;
      lengths[n] = len;
      for (const t of touched) {
        streamTerm[s] = t;
        streamTf[s] = Math.min(MAX_TF, tfScratch[t]!);
        s++;
        dfCount[t]!++;
        tfScratch[t] = 0;
      }
      touched.length = 0;
      docStart[++n] = s;
    }
    const T = terms.length;
    const postStart = new Uint32Array(T + 1);
    for (let t = 0; t < T; t++) postStart[t + 1] = postStart[t]! + dfCount[t]!;
    const postDocs = new Uint32Array(s);
    const postTf = new Uint16Array(s);
    const fill = postStart.slice(0, T);
    for (let d = 0; d < n; d++) {
      for (let p = docStart[d]!; p < docStart[d + 1]!; p++) {
        const t = streamTerm[p]!;
        const at = fill[t]!++;
        postDocs[at] = d;
        postTf[at] = streamTf[p]!;
      }
    }
    const base = withBlocks(ids.slice(0, n), lengths.slice(0, n), postStart, postDocs, postTf);
    return new KeywordIndex(base, terms);
  }

  /** An index from a saved base segment (keyword-store.ts). */
  static fromBase(base: StoredBaseSegment, terms: readonly string[]): KeywordIndex {
    return new KeywordIndex(withImpacts(base), terms);
  }

  /** The base segment and its terms, after folding in every change (for saving). */
  compacted(): { base: BaseSegment; terms: readonly string[] } {
    if (this.mutIds.length > 0 || this.deletedInBase > 0) this.merge();
    return { base: this.base, terms: this.termList };
  }

  get size(): number {
    return this.liveDocs;
  }

  has(id: number): boolean {
    return this.baseNumber(id) >= 0 || this.mutById.has(id);
  }

  /** Adds a document; throws if `id` is already in. */
  add(id: number, text: string): void {
    checkId(id);
    if (this.has(id)) throw new KeywordIndexError(`document ${id} is already indexed`);
    const counts = new Map<number, number>();
    let len = 0;
    forEachTerm(text, (term) => {
      const t = this.termId(term);
      counts.set(t, (counts.get(t) ?? 0) + 1);
      len++;
    });
    const d = this.mutIds.length;
    this.mutIds.push(id);
    this.mutLengths.push(len);
    this.mutDeleted.push(false);
    this.mutById.set(id, d);
    this.mutLive++;
    for (const [t, tf] of counts) {
      let list = this.mutPostings.get(t);
      if (!list) this.mutPostings.set(t, (list = []));
      list.push(d, Math.min(MAX_TF, tf));
      this.df[t]!++;
    }
    this.liveDocs++;
    this.totalTokens += len;
    if (this.mutIds.length >= this.mergeAt) this.merge();
  }

  /**
   * Removes a document. `text` is the text it was indexed with (as FTS5's 'delete' command
   * takes it): the index keeps no forward lists, and bm25's document counts need its terms.
   * A text whose length in terms differs from the indexed one is refused.
   */
  remove(id: number, text: string): boolean {
    const b = this.baseNumber(id);
    const m = b < 0 ? this.mutById.get(id) : undefined;
    if (b < 0 && m === undefined) return false;
    const seen = new Set<number>();
    let len = 0;
    forEachTerm(text, (term) => {
      len++;
      const t = this.termIds.get(term);
      if (t !== undefined) seen.add(t);
    });
    const indexedLen = b >= 0 ? this.base.lengths[b]! : this.mutLengths[m!]!;
    if (len !== indexedLen)
      throw new KeywordIndexError(`document ${id}: the text given is not the text indexed`);
    for (const t of seen) this.df[t]!--;
    if (b >= 0) {
      this.baseDeleted[b] = 1;
      this.deletedInBase++;
    } else {
      this.mutDeleted[m!] = true;
      this.mutById.delete(id);
      this.mutLive--;
    }
    this.liveDocs--;
    this.totalTokens -= len;
    return true;
  }

  update(id: number, oldText: string, newText: string): void {
    this.remove(id, oldText);
    this.add(id, newText);
  }

  /** Documents the last search scored (for tests and benches: how early it stopped). */
  scoredInLastSearch = 0;

  /** Searches and answers how many base documents were scored. */
  countScored(query: KeywordQuery, k: number): number {
    this.search(query, k);
    return this.scoredInLastSearch;
  }

  /** Postings of a term in the base segment. */
  postingCount(term: string): number {
    const t = this.termIds.get(term);
    const b = this.base;
    return t === undefined || t >= b.postStart.length - 1
      ? 0
      : b.postStart[t + 1]! - b.postStart[t]!;
  }

  /** Terms (byte strings) with `min`..`max` postings in the base segment (benches: rare words). */
  termsWithPostings(min: number, max: number): string[] {
    const b = this.base;
    const out: string[] = [];
    for (let t = 0; t < b.postStart.length - 1; t++) {
      const n = b.postStart[t + 1]! - b.postStart[t]!;
      if (n >= min && n <= max) out.push(this.termList[t]!);
    }
    return out;
  }

  stats(): KeywordStats {
    const b = this.base;
    const bytes =
      b.ids.byteLength +
      b.lengths.byteLength +
      b.postStart.byteLength +
      b.postDocs.byteLength +
      b.postTf.byteLength +
      b.blockStart.byteLength +
      b.blockLast.byteLength +
      b.blockMaxTf.byteLength +
      b.blockMinLen.byteLength +
      b.blockImpact.byteLength +
      b.postImpact.byteLength +
      this.baseDeleted.byteLength +
      this.df.byteLength;
    return {
      docs: this.liveDocs,
      terms: this.termList.length,
      postings: b.postDocs.length,
      mutableDocs: this.mutLive,
      deletedInBase: this.deletedInBase,
      bytes,
    };
  }

  /** The best `k` documents for `query`, best first (score desc, then id desc). */
  search(query: KeywordQuery, k: number, options: KeywordSearchOptions = {}): KeywordHit[] {
    if (k <= 0 || this.liveDocs === 0) return [];
    // Unique terms get a slot; a phrase with no term, or an unknown term, matches nothing.
    const slotOf = new Map<number, number>();
    const terms: number[] = [];
    const weights: number[] = [];
    const phraseSlots: number[] = [];
    let missing = false;
    for (const p of query.phrases) {
      const t = p === null ? undefined : this.termIds.get(p);
      if (t === undefined || this.df[t]! <= 0) {
        missing = true;
        continue;
      }
      let slot = slotOf.get(t);
      if (slot === undefined) {
        slot = terms.length;
        slotOf.set(t, slot);
        terms.push(t);
        weights.push(0);
      }
      weights[slot]!++;
      phraseSlots.push(slot);
    }
    if (terms.length === 0 || (query.mode === 'all' && missing)) return [];
    const q: Query = {
      terms,
      weights,
      idf: terms.map((t) => bm25Idf(this.liveDocs, this.df[t]!)),
      phraseSlots,
      avgdl: this.totalTokens / this.liveDocs,
      contrib: new Float64Array(terms.length),
      top: new TopK(k),
      impactScale: 1,
      accept: options.accept,
    };
    q.impactScale = Math.max(1, q.avgdl / this.base.impactAvgdl);
    this.scoredInLastSearch = 0;
    this.searchMutable(query.mode, q);
    // One term: 'all' is 'any', and the bulk scorer's bounds skip what the plain walk scores.
    if (query.mode === 'any' || terms.length === 1) this.searchBaseAny(q);
    else this.searchBaseAll(q);
    const { scores, ids } = q.top;
    return ids
      .map((id, i) => ({ id, score: scores[i]! }))
      .sort((a, b) => b.score - a.score || b.id - a.id);
  }

  /** Folds the mutable segment and the deletions into a new base. */
  merge(): void {
    const old = this.base;
    const nOld = old.ids.length;
    // Mutable live documents in id order.
    const mut: number[] = [];
    for (let d = 0; d < this.mutIds.length; d++) if (!this.mutDeleted[d]) mut.push(d);
    mut.sort((a, b) => this.mutIds[a]! - this.mutIds[b]!);
    const n = nOld - this.deletedInBase + mut.length;
    const ids = new Uint32Array(n);
    const lengths = new Uint32Array(n);
    const fromBase = new Int32Array(nOld).fill(-1);
    const fromMut = new Int32Array(this.mutIds.length).fill(-1);
    let i = 0;
    let j = 0;
    let out = 0;
    while (i < nOld || j < mut.length) {
      if (i < nOld && this.baseDeleted[i]) {
        i++;
        continue;
      }
      const takeBase = j >= mut.length || (i < nOld && old.ids[i]! < this.mutIds[mut[j]!]!);
      if (takeBase) {
        fromBase[i] = out;
        ids[out] = old.ids[i]!;
        lengths[out++] = old.lengths[i++]!;
      } else {
        const d = mut[j++]!;
        fromMut[d] = out;
        ids[out] = this.mutIds[d]!;
        lengths[out++] = this.mutLengths[d]!;
      }
    }
    // Terms no live document has any more are dropped, and ids renumbered.
    const T = this.termList.length;
    const keep: number[] = [];
    for (let t = 0; t < T; t++) if (this.df[t]! > 0) keep.push(t);
    const postStart = new Uint32Array(keep.length + 1);
    for (let x = 0; x < keep.length; x++) postStart[x + 1] = postStart[x]! + this.df[keep[x]!]!;
    const total = postStart[keep.length]!;
    const postDocs = new Uint32Array(total);
    const postTf = new Uint16Array(total);
    const oldTerms = old.postStart.length - 1;
    for (let x = 0; x < keep.length; x++) {
      const t = keep[x]!;
      let at = postStart[x]!;
      const mp = this.mutPostings.get(t) ?? [];
      // Mutable postings of live documents, by new number.
      const mutPairs: number[] = [];
      for (let p = 0; p < mp.length; p += 2) {
        const nd = fromMut[mp[p]!]!;
        if (nd >= 0) mutPairs.push(nd, mp[p + 1]!);
      }
      sortPairs(mutPairs);
      let q = 0;
      const [bs, be] = t < oldTerms ? [old.postStart[t]!, old.postStart[t + 1]!] : [0, 0];
      for (let p = bs; p < be; p++) {
        const nd = fromBase[old.postDocs[p]!]!;
        if (nd < 0) continue;
        while (q < mutPairs.length && mutPairs[q]! < nd) {
          postDocs[at] = mutPairs[q]!;
          postTf[at++] = mutPairs[q + 1]!;
          q += 2;
        }
        postDocs[at] = nd;
        postTf[at++] = old.postTf[p]!;
      }
      for (; q < mutPairs.length; q += 2) {
        postDocs[at] = mutPairs[q]!;
        postTf[at++] = mutPairs[q + 1]!;
      }
      if (at !== postStart[x + 1])
        throw new KeywordIndexError(`merge: term counts disagree (${at} ≠ ${postStart[x + 1]})`);
    }
    const terms = keep.map((t) => this.termList[t]!);
    this.base = withBlocks(ids, lengths, postStart, postDocs, postTf);
    this.termIds.clear();
    this.termList.length = 0;
    for (const t of terms) this.termId(t);
    this.df = new Int32Array(Math.max(16, terms.length));
    for (let t = 0; t < terms.length; t++) this.df[t] = postStart[t + 1]! - postStart[t]!;
    this.baseDeleted = new Uint8Array(n);
    this.deletedInBase = 0;
    this.mutIds = [];
    this.mutLengths = [];
    this.mutDeleted = [];
    this.mutLive = 0;
    this.mutById.clear();
    this.mutPostings.clear();
  }

  // --- internals -----------------------------------------------------------------------------

  /**
   * How many live documents match `query` (among those `accept` lets through): for 'any' the
   * union of the terms' postings, for 'all' their intersection, as `search` would rank them
   * with k unbounded. Exact; costs one pass over the terms' postings (no scoring).
   */
  count(query: KeywordQuery, options: KeywordSearchOptions = {}): number {
    const terms = new Set<number>();
    for (const p of query.phrases) {
      const t = p === null ? undefined : this.termIds.get(p);
      if (t === undefined || this.df[t]! <= 0) {
        if (query.mode === 'all') return 0;
        continue;
      }
      terms.add(t);
    }
    if (terms.size === 0) return 0;
    const accept = options.accept;
    const list = [...terms];
    return this.countBase(query.mode, list, accept) + this.countMutable(query.mode, list, accept);
  }

  private countBase(
    mode: KeywordMode,
    terms: number[],
    accept: ((id: number) => boolean) | undefined,
  ): number {
    const b = this.base;
    const baseTerms = b.postStart.length - 1;
    const lists: { pos: number; end: number }[] = [];
    for (const t of terms) {
      const empty = t >= baseTerms || b.postStart[t] === b.postStart[t + 1];
      if (empty) {
        if (mode === 'all') return 0;
        continue;
      }
      lists.push({ pos: b.postStart[t]!, end: b.postStart[t + 1]! });
    }
    if (lists.length === 0) return 0;
    const live = (doc: number) => !this.baseDeleted[doc] && (!accept || accept(b.ids[doc]!));
    let n = 0;
    if (lists.length === 1) {
      const { pos, end } = lists[0]!;
      if (!accept && this.deletedInBase === 0) return end - pos;
      for (let p = pos; p < end; p++) if (live(b.postDocs[p]!)) n++;
      return n;
    }
    if (mode === 'any') {
      // Postings are in document order: a doc seen twice is counted once through a mark.
      const seen = new Uint8Array(b.ids.length);
      for (const { pos, end } of lists)
        for (let p = pos; p < end; p++) {
          const doc = b.postDocs[p]!;
          if (seen[doc]) continue;
          seen[doc] = 1;
          if (live(doc)) n++;
        }
      return n;
    }
    lists.sort((x, y) => x.end - x.pos - (y.end - y.pos));
    const lead = lists[0]!;
    outer: for (let p = lead.pos; p < lead.end; p++) {
      const doc = b.postDocs[p]!;
      for (let i = 1; i < lists.length; i++) {
        const c = lists[i]!;
        while (c.pos < c.end && b.postDocs[c.pos]! < doc) c.pos++;
        if (c.pos >= c.end) return n;
        if (b.postDocs[c.pos]! !== doc) continue outer;
      }
      if (live(doc)) n++;
    }
    return n;
  }

  private countMutable(
    mode: KeywordMode,
    terms: number[],
    accept: ((id: number) => boolean) | undefined,
  ): number {
    if (this.mutLive === 0) return 0;
    const hits = new Map<number, number>();
    for (const t of terms) {
      const list = this.mutPostings.get(t);
      if (!list) continue;
      for (let p = 0; p < list.length; p += 2) {
        const d = list[p]!;
        if (!this.mutDeleted[d]) hits.set(d, (hits.get(d) ?? 0) + 1);
      }
    }
    let n = 0;
    for (const [d, h] of hits)
      if ((mode === 'any' || h === terms.length) && (!accept || accept(this.mutIds[d]!))) n++;
    return n;
  }

  private termId(term: string): number {
    let t = this.termIds.get(term);
    if (t === undefined) {
      t = this.termList.length;
      this.termIds.set(term, t);
      this.termList.push(term);
      this.df = grown(this.df, t + 1);
    }
    return t;
  }

  /** The base number of a live base document, or -1. */
  private baseNumber(id: number): number {
    const ids = this.base.ids;
    let lo = 0;
    let hi = ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = ids[mid]!;
      if (v === id) return this.baseDeleted[mid] ? -1 : mid;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  private searchMutable(mode: KeywordMode, q: Query): void {
    if (this.mutLive === 0) return;
    const perDoc = new Map<number, Float64Array>();
    for (let slot = 0; slot < q.terms.length; slot++) {
      const list = this.mutPostings.get(q.terms[slot]!);
      if (!list) continue;
      for (let p = 0; p < list.length; p += 2) {
        const d = list[p]!;
        if (this.mutDeleted[d]) continue;
        let c = perDoc.get(d);
        if (!c) perDoc.set(d, (c = new Float64Array(q.terms.length).fill(-1)));
        c[slot] = bm25Term(q.idf[slot]!, list[p + 1]!, this.mutLengths[d]!, q.avgdl);
      }
    }
    for (const [d, c] of perDoc) {
      if (mode === 'all' && c.includes(-1)) continue;
      if (q.accept && !q.accept(this.mutIds[d]!)) continue;
      for (let s = 0; s < c.length; s++) q.contrib[s] = Math.max(0, c[s]!);
      q.top.offer(phraseSum(q), this.mutIds[d]!);
    }
  }

  private cursors(q: Query): Cursor[] {
    const b = this.base;
    const baseTerms = b.postStart.length - 1;
    const out: Cursor[] = [];
    for (let slot = 0; slot < q.terms.length; slot++) {
      const t = q.terms[slot]!;
      if (t >= baseTerms || b.postStart[t] === b.postStart[t + 1]) continue;
      const idf = q.idf[slot]!;
      const weight = q.weights[slot]!;
      let best = 0;
      for (let x = b.blockStart[t]!; x < b.blockStart[t + 1]!; x++)
        if (b.blockImpact[x]! > best) best = b.blockImpact[x]!;
      const ub = weight * idf * best * q.impactScale;
      out.push({
        slot,
        idf,
        weight,
        ub,
        unit: weight * idf * q.impactScale * IMPACT_UNIT,
        pos: b.postStart[t]!,
        end: b.postStart[t + 1]!,
        blk: b.blockStart[t]!,
        blkEnd: b.blockStart[t + 1]!,
        shallow: b.blockStart[t]!,
        post0: b.postStart[t]!,
        blk0: b.blockStart[t]!,
      });
    }
    return out;
  }

  /** Moves `c` to its first posting ≥ `target` (pos = end when none), its block kept in step. */
  private advance(c: Cursor, target: number): void {
    const b = this.base;
    if (c.pos >= c.end || b.postDocs[c.pos]! >= target) return;
    while (c.blk < c.blkEnd && b.blockLast[c.blk]! < target) c.blk++;
    if (c.blk >= c.blkEnd) {
      c.pos = c.end;
      return;
    }
    const blockFirst = c.post0 + (c.blk - c.blk0) * BLOCK;
    let lo = c.pos < blockFirst ? blockFirst : c.pos;
    // The block's last document is >= target: a binary search past the first few.
    const docs = b.postDocs;
    if (docs[lo]! < target && lo + 4 < c.end && docs[lo + 4]! < target) {
      lo += 5;
      let hi = Math.min(blockFirst + BLOCK, c.end) - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (docs[mid]! < target) lo = mid + 1;
        else hi = mid;
      }
    } else while (docs[lo]! < target) lo++;
    c.pos = lo;
  }

  /**
   * 'any' queries, scored a window of WINDOW document numbers at a time (Lucene's
   * MaxScoreBulkScorer): per window each term's bound is the best of its blocks that overlap it;
   * a window whose bounds cannot reach the k-th score is skipped whole; otherwise the terms are
   * split again by those bounds, the essential ones' postings are added up in one tight pass per
   * term, and only the documents whose sum plus the others' bounds can still reach the k-th score
   * look the others up and are scored exactly (phrase order, as FTS5 adds them).
   */
  private searchBaseAny(q: Query): void {
    const b = this.base;
    const cs = this.cursors(q).sort((x, y) => x.ub - y.ub);
    const m = cs.length;
    if (m === 0) return;
    const { avgdl, contrib, top, accept, impactScale } = q;
    // prefix[i]: the bounds of cursors 0..i-1 added up; cursors below firstEssential cannot
    // bring a document into the top k on their own, so windows start at the others' documents.
    const prefix = new Float64Array(m + 1);
    for (let i = 0; i < m; i++) prefix[i + 1] = prefix[i]! + cs[i]!.ub;
    let firstEssential = 0;
    const { postDocs, postTf, postImpact, blockLast, blockImpact, lengths, ids } = b;
    const nDocs = ids.length;
    const deleted = this.baseDeleted;
    const win = this.windowBuffers(m);
    const { acc, accStamp, bits, posAt, posStamp } = win;
    const bound = new Float64Array(m);
    const order = new Int32Array(m);
    const winPrefix = new Float64Array(m + 1);
    /** Per window rank below ess: where the document's posting is in that term's list (-1: none). */
    const found = new Int32Array(m);
    let from = 0;
    for (;;) {
      let theta = top.threshold;
      while (firstEssential < m && prefix[firstEssential + 1]! * SLACK < theta) firstEssential++;
      if (firstEssential >= m) return;
      let start = 0xffffffff;
      for (let i = firstEssential; i < m; i++) {
        const c = cs[i]!;
        this.advance(c, from);
        if (c.pos < c.end && postDocs[c.pos]! < start) start = postDocs[c.pos]!;
      }
      if (start === 0xffffffff) return;
      const end = Math.min(start + WINDOW, nDocs);
      from = end;
      // Each term's bound over [start, end): its blocks that overlap it ("shallow": no decoding).
      let total = 0;
      for (let i = 0; i < m; i++) {
        const c = cs[i]!;
        let best = 0;
        if (c.pos < c.end) {
          let x = c.shallow > c.blk ? c.shallow : c.blk;
          while (x < c.blkEnd && blockLast[x]! < start) x++;
          c.shallow = x;
          for (; x < c.blkEnd && postDocs[c.post0 + (x - c.blk0) * BLOCK]! < end; x++)
            if (blockImpact[x]! > best) best = blockImpact[x]!;
        }
        bound[i] = c.weight * c.idf * best * impactScale;
        total += bound[i]!;
      }
      if (total * SLACK < theta) continue;
      // The window's own split: order[0..ess-1] cannot reach the k-th score together.
      for (let i = 0; i < m; i++) {
        let j = i;
        while (j > 0 && bound[order[j - 1]!]! > bound[i]!) {
          order[j] = order[j - 1]!;
          j--;
        }
        order[j] = i;
      }
      for (let j = 0; j < m; j++) winPrefix[j + 1] = winPrefix[j]! + bound[order[j]!]!;
      let ess = 0;
      while (ess < m && winPrefix[ess + 1]! * SLACK < theta) ess++;
      const stamp = win.next();
      bits.fill(0);
      for (let j = ess; j < m; j++) {
        const c = cs[order[j]!]!;
        this.advance(c, start);
        const row = j * WINDOW;
        // A level's worth of this term's part: postings add their bound (no length read).
        const unit = c.unit;
        // A posting below this level cannot lift its document to theta with every other term
        // at its window bound: passed over (its document, if another term brings it, is then
        // bounded short of its due, which keeps it out as it should be).
        const minLevel = (theta / SLACK - (total - bound[order[j]!]!)) / unit;
        let p = c.pos;
        for (; p < c.end; p++) {
          const d = postDocs[p]!;
          if (d >= end) break;
          const level = postImpact[p]!;
          if (level < minLevel) continue;
          const r = d - start;
          const v = unit * level;
          if (accStamp[r] === stamp) acc[r] = acc[r]! + v;
          else {
            accStamp[r] = stamp;
            acc[r] = v;
            bits[r >>> 5]! |= 1 << (r & 31);
            this.scoredInLastSearch++;
          }
          posStamp[row + r] = stamp;
          posAt[row + r] = p;
        }
        c.pos = p;
        if (p < c.end) c.blk = c.blk0 + Math.floor((p - c.post0) / BLOCK);
      }
      const others = winPrefix[ess]!;
      for (let w = 0; w < bits.length; w++) {
        let word = bits[w]!;
        while (word !== 0) {
          const low = word & -word;
          word ^= low;
          const r = (w << 5) | (31 - Math.clz32(low));
          if ((acc[r]! + others) * SLACK < theta) continue;
          const doc = start + r;
          if (deleted[doc] || (accept !== undefined && !accept(ids[doc]!))) continue;
          // The others looked up, the best first, while the document can still reach theta
          // (by their postings' bounds: the exact parts are computed for the survivors only).
          let score = acc[r]!;
          let j = ess - 1;
          for (; j >= 0; j--) {
            if ((score + winPrefix[j + 1]!) * SLACK < theta) break;
            const c = cs[order[j]!]!;
            this.advance(c, doc);
            found[j] = -1;
            if (c.pos < c.end && postDocs[c.pos]! === doc) {
              found[j] = c.pos;
              score += c.unit * postImpact[c.pos]!;
            }
          }
          if (j >= 0 || score * SLACK < theta) continue;
          contrib.fill(0);
          const len = lengths[doc]!;
          for (let e = 0; e < ess; e++) {
            if (found[e]! < 0) continue;
            const c = cs[order[e]!]!;
            contrib[c.slot] = bm25Term(c.idf, postTf[found[e]!]!, len, avgdl);
          }
          for (let e = ess; e < m; e++) {
            const at = e * WINDOW + r;
            if (posStamp[at] !== stamp) continue;
            const c = cs[order[e]!]!;
            contrib[c.slot] = bm25Term(c.idf, postTf[posAt[at]!]!, len, avgdl);
          }
          if (top.offer(phraseSum(q), ids[doc]!)) theta = top.threshold;
        }
      }
    }
  }

  /** The bulk scorer's buffers, kept between searches (one search runs at a time). */
  private windowScratch: WindowBuffers | null = null;

  private windowBuffers(terms: number): WindowBuffers {
    if (!this.windowScratch || this.windowScratch.terms < terms)
      this.windowScratch = new WindowBuffers(terms);
    return this.windowScratch;
  }

  private searchBaseAll(q: Query): void {
    const b = this.base;
    const cs = this.cursors(q);
    if (cs.length < q.terms.length) return; // a term only in the mutable part: no base doc has all
    cs.sort((x, y) => x.end - x.pos - (y.end - y.pos));
    const { avgdl, contrib, top } = q;
    const lead = cs[0]!;
    let ubSum = 0;
    for (const c of cs) ubSum += c.ub;
    outer: for (; lead.pos < lead.end; lead.pos++) {
      if (ubSum * SLACK < top.threshold) return;
      const doc = b.postDocs[lead.pos]!;
      if (this.baseDeleted[doc]) continue;
      for (let i = 1; i < cs.length; i++) {
        const c = cs[i]!;
        this.advance(c, doc);
        if (c.pos >= c.end) return;
        if (b.postDocs[c.pos]! !== doc) continue outer;
      }
      if (q.accept && !q.accept(b.ids[doc]!)) continue;
      for (const c of cs)
        contrib[c.slot] = bm25Term(c.idf, b.postTf[c.pos]!, b.lengths[doc]!, avgdl);
      top.offer(phraseSum(q), b.ids[doc]!);
    }
  }
}

function checkId(id: number): void {
  if (!Number.isInteger(id) || id < 0 || id > 0xfffffffe)
    throw new KeywordIndexError(`document id ${id} is outside 0..4294967294`);
}

/** Sorts [doc, tf, doc, tf, ...] pairs by doc. */
function sortPairs(pairs: number[]): void {
  if (pairs.length <= 2) return;
  const idx = Array.from({ length: pairs.length / 2 }, (_, i) => i).sort(
    (a, b) => pairs[2 * a]! - pairs[2 * b]!,
  );
  const copy = pairs.slice();
  idx.forEach((from, to) => {
    pairs[2 * to] = copy[2 * from]!;
    pairs[2 * to + 1] = copy[2 * from + 1]!;
  });
}

/** A base segment with its per-block bounds computed. */
function withBlocks(
  ids: Uint32Array,
  lengths: Uint32Array,
  postStart: Uint32Array,
  postDocs: Uint32Array,
  postTf: Uint16Array,
): BaseSegment {
  const T = postStart.length - 1;
  const blockStart = new Uint32Array(T + 1);
  for (let t = 0; t < T; t++)
    blockStart[t + 1] = blockStart[t]! + Math.ceil((postStart[t + 1]! - postStart[t]!) / BLOCK);
  const nb = blockStart[T]!;
  const blockLast = new Uint32Array(nb);
  const blockMaxTf = new Uint16Array(nb);
  const blockMinLen = new Uint32Array(nb);
  for (let t = 0; t < T; t++) {
    let x = blockStart[t]!;
    for (let p = postStart[t]!; p < postStart[t + 1]!; p += BLOCK, x++) {
      const end = Math.min(p + BLOCK, postStart[t + 1]!);
      let maxTf = 0;
      let minLen = 0xffffffff;
      for (let q = p; q < end; q++) {
        if (postTf[q]! > maxTf) maxTf = postTf[q]!;
        const len = lengths[postDocs[q]!]!;
        if (len < minLen) minLen = len;
      }
      blockLast[x] = postDocs[end - 1]!;
      blockMaxTf[x] = maxTf;
      blockMinLen[x] = minLen;
    }
  }
  return withImpacts({
    ids,
    lengths,
    postStart,
    postDocs,
    postTf,
    blockStart,
    blockLast,
    blockMaxTf,
    blockMinLen,
  });
}

/** Float32 above or at `v` (the impacts are upper bounds). */
const F32_UP = 1 + 1e-6;
/** bm25Tf stays below k1 + 1 = 2.2: 255 steps of this cover it. */
const IMPACT_UNIT = 2.2 / 255;

/** A base segment with its blocks' impacts computed (one pass over the postings). */
function withImpacts(s: StoredBaseSegment): BaseSegment {
  const { lengths, postStart, postDocs, postTf, blockStart } = s;
  let total = 0;
  for (let d = 0; d < lengths.length; d++) total += lengths[d]!;
  const avgdl = lengths.length > 0 && total > 0 ? total / lengths.length : 1;
  const T = postStart.length - 1;
  const blockImpact = new Float32Array(blockStart[T] ?? 0);
  const postImpact = new Uint8Array(postDocs.length);
  for (let t = 0; t < T; t++) {
    const end = postStart[t + 1]!;
    let x = blockStart[t]!;
    for (let p = postStart[t]!; p < end; p += BLOCK, x++) {
      const stop = Math.min(p + BLOCK, end);
      let best = 0;
      for (let q = p; q < stop; q++) {
        const v = bm25Tf(postTf[q]!, lengths[postDocs[q]!]!, avgdl);
        if (v > best) best = v;
        postImpact[q] = Math.min(255, Math.floor(v / IMPACT_UNIT) + 1);
      }
      blockImpact[x] = best * F32_UP;
    }
  }
  return { ...s, blockImpact, postImpact, impactAvgdl: avgdl };
}
