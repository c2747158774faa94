/**
 * The MATCH expressions the app sends to FTS5 (services/hybrid-search.ts `ftsMatch`), read back
 * into what the keyword engine runs:
 * - `"w1" OR "w2" OR …` (match 'any', what search uses): a row matches if it has any term;
 * - `"w1" "w2" …` (match 'all', the listing's filter box): a row must have every term;
 * - one quoted word: both at once.
 * Each quoted word is one FTS5 phrase; bm25 sums over phrases, so a term two words stem to
 * ("runs" OR "running") counts twice, as it does in FTS5. A quoted group of several words (match
 * 'phrase') needs positions, which this engine does not keep: it is refused, and the caller
 * keeps FTS5 for it.
 */
import { forEachTerm } from './tokenizer.js';

export type KeywordMode = 'any' | 'all';

export interface KeywordQuery {
  mode: KeywordMode;
  /** One term per FTS5 phrase, in the expression's order (repeats kept); null: the phrase has no term. */
  phrases: (string | null)[];
}

export class UnsupportedKeywordQuery extends Error {}

/** Reads an expression made by `ftsMatch`; throws UnsupportedKeywordQuery for anything else. */
export function parseMatch(expr: string): KeywordQuery {
  const groups: string[] = [];
  let sawOr = false;
  let sawAnd = false;
  let i = 0;
  const n = expr.length;
  while (i < n) {
    if (expr.charCodeAt(i) !== 34 /* " */)
      throw new UnsupportedKeywordQuery(`not a quoted word at ${i}`);
    const end = expr.indexOf('"', i + 1);
    if (end < 0) throw new UnsupportedKeywordQuery('unterminated quote');
    groups.push(expr.slice(i + 1, end));
    i = end + 1;
    if (i >= n) break;
    if (expr.startsWith(' OR ', i)) {
      sawOr = true;
      i += 4;
    } else if (expr.charCodeAt(i) === 32) {
      sawAnd = true;
      i += 1;
    } else throw new UnsupportedKeywordQuery(`unexpected character at ${i}`);
  }
  if (groups.length === 0) throw new UnsupportedKeywordQuery('empty expression');
  if (sawOr && sawAnd) throw new UnsupportedKeywordQuery('OR mixed with AND');
  const phrases = groups.map((g) => {
    const found: string[] = [];
    forEachTerm(g, (t) => found.push(t));
    if (found.length > 1) throw new UnsupportedKeywordQuery('a phrase of several terms');
    return found[0] ?? null;
  });
  return { mode: sawOr ? 'any' : 'all', phrases };
}
