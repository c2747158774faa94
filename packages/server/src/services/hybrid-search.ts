import type { TextMatch } from '@adam/contracts';

/** Longer queries are cut: FTS5 cost grows with every OR'ed term. */
export const MAX_QUERY_WORDS = 32;

/**
 * Function words of the four pipeline languages. Dropped from an any-word query (unless
 * nothing else is left): bm25 gives them almost no weight anyway, but at a million rows each
 * one costs a walk over most of the index.
 */
const STOP_WORDS = new Set(
  `a an and are as at be been but by can could did do does for from had has have how i if in into is it its
  me my no not of on or our so such than that the their them then there these they this to too was we were
  what when where which while who whom why will with would you your
  au aux avec ce ces dans de des du elle en est et il je la le les leur mais ne nous on ou par pas pour qu que qui sa se ses son sur un une vous
  al con como del el en es la las lo los por que se su un una y
  auf das dem den der des die ein eine einen ist mit nicht und von wie zu`.split(/\s+/),
);

/** The words FTS5 would see in a text (letters and digits), at most MAX_QUERY_WORDS. */
export function queryWords(text: string): string[] {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, MAX_QUERY_WORDS);
}

/**
 * User text → a safe FTS5 MATCH expression (every word quoted, so no operator gets through).
 * `any`: any of the words, stop words dropped when others remain — what a question needs.
 * `all`: every word — what a filter box needs. (No prefix on the last word: a prefix costs
 *   FTS5 a merge of every term it covers, 20–40 ms on a common word at a million rows, and
 *   the stemmer already meets other forms of a whole word.)
 * `phrase`: the words in this order.
 */
export function ftsMatch(text: string, match: TextMatch): string | null {
  const words = queryWords(text);
  if (words.length === 0) return null;
  const quote = (w: string) => `"${w}"`;
  switch (match) {
    case 'all':
      return words.map(quote).join(' ');
    case 'phrase':
      return quote(words.join(' '));
    case 'any': {
      const unique = [...new Set(words.map((w) => w.toLowerCase()))];
      const content = unique.filter((w) => !STOP_WORDS.has(w));
      return (content.length ? content : unique).map(quote).join(' OR ');
    }
  }
}

export { fuseScores, type SearchCandidate } from './fusion.js';
