/**
 * Tokens and hashed character n-grams, shared by the built-in embedder and by the conversion
 * that derives its fixed n-gram idf table: both must cut and hash text the same way.
 */

/** Character n-gram lengths: 3 to 5, as measured best on eval/ (3–4 and 4–6 scored lower). */
export const MIN_N = 3;
export const MAX_N = 5;

const TOKEN = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}+/gu;

/**
 * Lowercase, accent-free tokens: runs of letters and digits. Accents are stripped (NFKD, marks
 * removed; ß→ss, æ→ae, œ→oe) so "électricité" meets "electricite", which is also the form the
 * word-vector vocabulary uses (it is ASCII only).
 */
export function tokenize(text: string): string[] {
  const folded = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(MARKS, '')
    .replace(/ß/g, 'ss')
    .replace(/æ/g, 'ae')
    .replace(/œ/g, 'oe');
  return folded.match(TOKEN) ?? [];
}

/** murmur3's finaliser: spreads FNV-1a's bits so bucket and sign look independent. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Calls `fn` with the 32-bit hash of every MIN_N..MAX_N-gram of "<token>" (the padding marks
 * prefixes and suffixes, as in fastText); a padded token shorter than MIN_N is one gram.
 */
export function forEachGram(token: string, fn: (hash: number) => void): void {
  const len = token.length + 2;
  const code = (i: number): number =>
    i === 0 ? 0x3c : i === len - 1 ? 0x3e : token.charCodeAt(i - 1);
  if (len < MIN_N) {
    let h = 0x811c9dc5;
    for (let i = 0; i < len; i++) h = Math.imul(h ^ code(i), 0x01000193);
    fn(fmix32(h));
    return;
  }
  for (let start = 0; start + MIN_N <= len; start++) {
    let h = 0x811c9dc5;
    for (let i = start; i < start + MIN_N - 1; i++) h = Math.imul(h ^ code(i), 0x01000193);
    for (let n = MIN_N; n <= MAX_N && start + n <= len; n++) {
      h = Math.imul(h ^ code(start + n - 1), 0x01000193);
      // The length is mixed in so that a 3-gram and the 4-gram it starts never coincide.
      fn(fmix32(h ^ Math.imul(n, 0x27d4eb2d)));
    }
  }
}

/**
 * The n-gram idf table has 2^16 slots, indexed by a gram hash's top bits. Collisions barely
 * matter: 2^16 to 2^22 slots scored the same on eval/.
 */
export const GRAM_TABLE_BITS = 16;
export const gramSlot = (hash: number): number => hash >>> (32 - GRAM_TABLE_BITS);

/** Zipf's estimate of a word's probability from its frequency rank among `vocabSize` words. */
export function zipfProbability(rank: number, vocabSize: number): number {
  return 1 / ((rank + 1) * (Math.log(vocabSize) + 0.5772156649));
}
