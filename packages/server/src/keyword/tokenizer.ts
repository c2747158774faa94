/**
 * The tokenizer of the snippets' FTS5 table, `porter unicode61 remove_diacritics 2`, ported from
 * SQLite's C (fts5_tokenize.c) so the keyword engine indexes exactly the terms FTS5 does:
 * - unicode61: a token is a run of letters, digits and private-use characters (Unicode
 *   categories L*, N*, Co; combining diacritics continue a token), folded to lower case with the
 *   diacritics removed (FTS5's own tables, fts5-tables.ts);
 * - porter: FTS5's Porter stemmer, which works on the token's UTF-8 bytes and leaves tokens under
 *   3 or over 64 bytes as they are.
 * A term is returned as a "byte string": one char per UTF-8 byte (latin1), which keeps the
 * stemmer's byte arithmetic exact for non-ASCII tokens and makes a cheap Map key.
 *
 * One forward scan, no regular expression over the text (hostile input: linear time).
 * Known difference: the categories come from the JavaScript engine's Unicode tables, SQLite's
 * are older, so a letter added to Unicode since SQLite's tables were generated may be a token
 * character here and a separator there.
 */
import { DIACRITIC_CHARS, DIACRITIC_KEYS, FOLD_ENTRIES, FOLD_OFFSETS } from './fts5-tables.js';

/** FTS5 truncates longer tokens (FTS5_MAX_TOKEN_SIZE), when indexing and when querying. */
const MAX_TOKEN_BYTES = 32_768;
const PORTER_MAX = 64;

// --- unicode61 -------------------------------------------------------------------------------

/** 0 unknown, 1 token character, 2 separator; filled lazily for non-ASCII codepoints. */
const category = new Uint8Array(0x110000);
for (let c = 0; c < 128; c++) {
  const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  category[c] = alnum ? 1 : 2;
}
// Applied to one character at a time: no backtracking is possible.
const TOKEN_CHAR = /^[\p{L}\p{N}\p{Co}]$/u;

function isTokenChar(c: number): boolean {
  let v = category[c]!;
  if (v === 0) {
    v = TOKEN_CHAR.test(String.fromCodePoint(c)) ? 1 : 2;
    category[c] = v;
  }
  return v === 1;
}

/** sqlite3Fts5UnicodeIsdiacritic. */
function isDiacritic(c: number): boolean {
  if (c < 768 || c > 817) return false;
  return c < 800 ? (0x08029fdf & (1 << (c - 768))) !== 0 : (0x000361f8 & (1 << (c - 800))) !== 0;
}

/** fts5_remove_diacritic with bComplex = 1 (remove_diacritics 2). */
function removeDiacritic(c: number): number {
  const key = (c << 3) | 7;
  let lo = 0;
  let hi = DIACRITIC_KEYS.length - 1;
  let res = 0;
  while (hi >= lo) {
    const mid = (lo + hi) >> 1;
    if (key >= DIACRITIC_KEYS[mid]!) {
      res = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  const k = DIACRITIC_KEYS[res]!;
  return c > (k >> 3) + (k & 7) ? c : DIACRITIC_CHARS[res]! & 0x7f;
}

/** sqlite3Fts5UnicodeFold(c, 2) for non-ASCII c; 0 means "drop the character". */
function fold(c: number): number {
  if (c >= 65536) return c >= 66560 && c < 66600 ? c + 40 : c;
  let lo = 0;
  let hi = FOLD_ENTRIES.length / 3 - 1;
  let res = -1;
  while (hi >= lo) {
    const mid = (lo + hi) >> 1;
    if (c - FOLD_ENTRIES[mid * 3]! >= 0) {
      res = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  let ret = c;
  if (res >= 0) {
    const code = FOLD_ENTRIES[res * 3]!;
    const flags = FOLD_ENTRIES[res * 3 + 1]!;
    const range = FOLD_ENTRIES[res * 3 + 2]!;
    if (c < code + range && (0x01 & flags & (code ^ c)) === 0) {
      ret = (c + FOLD_OFFSETS[flags >> 1]!) & 0xffff;
    }
  }
  return removeDiacritic(ret);
}

// --- porter (on bytes) -----------------------------------------------------------------------

const isVowel = (c: number, yIsVowel: boolean): boolean =>
  c === 97 || c === 101 || c === 105 || c === 111 || c === 117 || (yIsVowel && c === 121);

function gobbleVC(b: Uint8Array, from: number, n: number, prevCons: boolean): number {
  let cons = prevCons;
  let i = 0;
  for (; i < n; i++) if (!(cons = !isVowel(b[from + i]!, cons))) break;
  for (i++; i < n; i++) if ((cons = !isVowel(b[from + i]!, cons))) return i + 1;
  return 0;
}
const mGt0 = (b: Uint8Array, n: number) => gobbleVC(b, 0, n, false) !== 0;
function mGt1(b: Uint8Array, n: number): boolean {
  const m = gobbleVC(b, 0, n, false);
  return m !== 0 && gobbleVC(b, m, n - m, true) !== 0;
}
function mEq1(b: Uint8Array, n: number): boolean {
  const m = gobbleVC(b, 0, n, false);
  return m !== 0 && gobbleVC(b, m, n - m, true) === 0;
}
function oStar(b: Uint8Array, n: number): boolean {
  const last = b[n - 1];
  if (last === 119 || last === 120 || last === 121) return false;
  let mask = 0;
  let cons = false;
  for (let i = 0; i < n; i++) {
    cons = !isVowel(b[i]!, cons);
    mask = ((mask << 1) + (cons ? 1 : 0)) | 0;
  }
  return (mask & 7) === 5;
}
function hasVowel(b: Uint8Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (isVowel(b[i]!, i > 0)) return true;
  return false;
}

function endsWith(b: Uint8Array, n: number, s: string): boolean {
  if (n <= s.length) return false; // FTS5's generated steps require nBuf > suffix length
  for (let i = 0; i < s.length; i++) if (b[n - s.length + i] !== s.charCodeAt(i)) return false;
  return true;
}
function put(b: Uint8Array, at: number, s: string): number {
  for (let i = 0; i < s.length; i++) b[at + i] = s.charCodeAt(i);
  return at + s.length;
}

type Cond = (b: Uint8Array, n: number) => boolean;
/** One generated step of fts5_tokenize.c: rules tried in order, the first suffix found decides. */
type Rule = [suffix: string, cond: Cond, output: string];
function step(rules: Record<string, Rule[]>, b: Uint8Array, n: number): number {
  const list = rules[String.fromCharCode(b[n - 2]!)];
  if (!list) return n;
  for (const [suffix, cond, output] of list) {
    if (endsWith(b, n, suffix)) {
      const stem = n - suffix.length;
      return cond(b, stem) ? put(b, stem, output) : n;
    }
  }
  return n;
}
const sOrT: Cond = (b, n) => (b[n - 1] === 115 || b[n - 1] === 116) && mGt1(b, n);
const STEP2: Record<string, Rule[]> = {
  a: [
    ['ational', mGt0, 'ate'],
    ['tional', mGt0, 'tion'],
  ],
  c: [
    ['enci', mGt0, 'ence'],
    ['anci', mGt0, 'ance'],
  ],
  e: [['izer', mGt0, 'ize']],
  g: [['logi', mGt0, 'log']],
  l: [
    ['bli', mGt0, 'ble'],
    ['alli', mGt0, 'al'],
    ['entli', mGt0, 'ent'],
    ['eli', mGt0, 'e'],
    ['ousli', mGt0, 'ous'],
  ],
  o: [
    ['ization', mGt0, 'ize'],
    ['ation', mGt0, 'ate'],
    ['ator', mGt0, 'ate'],
  ],
  s: [
    ['alism', mGt0, 'al'],
    ['iveness', mGt0, 'ive'],
    ['fulness', mGt0, 'ful'],
    ['ousness', mGt0, 'ous'],
  ],
  t: [
    ['aliti', mGt0, 'al'],
    ['iviti', mGt0, 'ive'],
    ['biliti', mGt0, 'ble'],
  ],
};
const STEP3: Record<string, Rule[]> = {
  a: [['ical', mGt0, 'ic']],
  s: [['ness', mGt0, '']],
  t: [
    ['icate', mGt0, 'ic'],
    ['iciti', mGt0, 'ic'],
  ],
  u: [['ful', mGt0, '']],
  v: [['ative', mGt0, '']],
  z: [['alize', mGt0, 'al']],
};
const STEP4: Record<string, Rule[]> = {
  a: [['al', mGt1, '']],
  c: [
    ['ance', mGt1, ''],
    ['ence', mGt1, ''],
  ],
  e: [['er', mGt1, '']],
  i: [['ic', mGt1, '']],
  l: [
    ['able', mGt1, ''],
    ['ible', mGt1, ''],
  ],
  n: [
    ['ant', mGt1, ''],
    ['ement', mGt1, ''],
    ['ment', mGt1, ''],
    ['ent', mGt1, ''],
  ],
  o: [
    ['ion', sOrT, ''],
    ['ou', mGt1, ''],
  ],
  s: [['ism', mGt1, '']],
  t: [
    ['ate', mGt1, ''],
    ['iti', mGt1, ''],
  ],
  u: [['ous', mGt1, '']],
  v: [['ive', mGt1, '']],
  z: [['ize', mGt1, '']],
};

/** fts5PorterStep1B: answers the new length, and whether a rule that sets ret=1 fired. */
function step1B(b: Uint8Array, n: number): [number, boolean] {
  const c = b[n - 2];
  if (c === 101) {
    if (endsWith(b, n, 'eed')) return [mGt0(b, n - 3) ? put(b, n - 3, 'ee') : n, false];
    if (endsWith(b, n, 'ed')) return hasVowel(b, n - 2) ? [n - 2, true] : [n, false];
  } else if (c === 110 && endsWith(b, n, 'ing')) {
    return hasVowel(b, n - 3) ? [n - 3, true] : [n, false];
  }
  return [n, false];
}
function step1B2(b: Uint8Array, n: number): number {
  const c = b[n - 2];
  if (c === 97 && endsWith(b, n, 'at')) return put(b, n - 2, 'ate');
  if (c === 98 && endsWith(b, n, 'bl')) return put(b, n - 2, 'ble');
  if (c === 105 && endsWith(b, n, 'iz')) return put(b, n - 2, 'ize');
  return -1;
}

/** fts5PorterCb on b[0..n) (n in 3..64; b has room for n + 64); answers the stem's length. */
function porter(b: Uint8Array, n: number): number {
  // Step 1A
  if (b[n - 1] === 115) {
    if (b[n - 2] === 101) {
      if ((n > 4 && b[n - 4] === 115 && b[n - 3] === 115) || (n > 3 && b[n - 3] === 105)) n -= 2;
      else n -= 1;
    } else if (b[n - 2] !== 115) n -= 1;
  }
  const [n1b, fired] = step1B(b, n);
  n = n1b;
  if (fired) {
    const n2 = step1B2(b, n);
    if (n2 >= 0) n = n2;
    else {
      const c = b[n - 1]!;
      if (!isVowel(c, false) && c !== 108 && c !== 115 && c !== 122 && c === b[n - 2]) n--;
      else if (mEq1(b, n) && oStar(b, n)) b[n++] = 101;
    }
  }
  // Step 1C
  if (b[n - 1] === 121 && hasVowel(b, n - 1)) b[n - 1] = 105;
  n = step(STEP2, b, n);
  n = step(STEP3, b, n);
  n = step(STEP4, b, n);
  // Step 5a
  if (b[n - 1] === 101 && (mGt1(b, n - 1) || (mEq1(b, n - 1) && !oStar(b, n - 1)))) n--;
  // Step 5b
  if (n > 1 && b[n - 1] === 108 && b[n - 2] === 108 && mGt1(b, n - 1)) n--;
  return n;
}

// --- the tokenizer ---------------------------------------------------------------------------

let buf: Uint8Array = new Uint8Array(256);

function byteString(b: Uint8Array, n: number): string {
  // Short terms (nearly all) without an intermediate array.
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(b[i]!);
  return s;
}

/**
 * ASCII tokens as written (case kept) → their term. Stemming is a pure function of the token, and
 * a snippet store has a few tens of thousands of distinct spellings, so nearly every token is a
 * hit: one hash lookup instead of folding, Porter and building the byte string. Bounded (cleared
 * when full) so hostile text cannot grow it.
 */
const asciiTerms = new Map<string, string>();
const ASCII_CACHE_MAX = 200_000;

function asciiTerm(token: string): string {
  const n = token.length;
  if (n + 4 > buf.length) buf = grow(buf);
  for (let k = 0; k < n; k++) {
    const c = token.charCodeAt(k);
    buf[k] = c >= 65 && c <= 90 ? c + 32 : c;
  }
  const stemmed = n >= 3 ? porter(buf, n) : n;
  const term = byteString(buf, stemmed);
  if (asciiTerms.size >= ASCII_CACHE_MAX) asciiTerms.clear();
  asciiTerms.set(token, term);
  return term;
}

/**
 * Calls `emit` with each term of `text`, in order, as FTS5's tokenizer would produce it.
 */
export function forEachTerm(text: string, emit: (term: string) => void): void {
  const len = text.length;
  let i = 0;
  while (i < len) {
    // Skip separators.
    let c = text.codePointAt(i)!;
    if (!isTokenChar(c)) {
      i += c > 0xffff ? 2 : 1;
      continue;
    }
    // Fast path: a token of ASCII letters and digits ended by an ASCII character or the end (a
    // non-ASCII one may be a letter or a diacritic continuing it: the full path below decides).
    if (c < 128) {
      let j = i + 1;
      let d = 0;
      while (j < len && (d = text.charCodeAt(j)) < 128 && category[d] === 1) j++;
      if ((j === len || d < 128) && j - i <= PORTER_MAX) {
        const token = text.slice(i, j);
        emit(asciiTerms.get(token) ?? asciiTerm(token));
        i = j;
        continue;
      }
    }
    // A token: fold each character into UTF-8 bytes.
    let n = 0;
    while (i < len) {
      c = text.codePointAt(i)!;
      if (c < 128) {
        if (category[c] !== 1) break;
        if (n + 4 > buf.length) buf = grow(buf);
        buf[n++] = c >= 65 && c <= 90 ? c + 32 : c;
        i++;
        continue;
      }
      if (!isTokenChar(c) && !isDiacritic(c)) break;
      i += c > 0xffff ? 2 : 1;
      const f = fold(c);
      if (f === 0) continue;
      if (n + 4 > buf.length) buf = grow(buf);
      n = utf8(buf, n, f);
    }
    if (n > MAX_TOKEN_BYTES) n = MAX_TOKEN_BYTES;
    if (n >= 3 && n <= PORTER_MAX) n = porter(buf, n);
    emit(byteString(buf, n));
  }
}

/** The terms of `text`, in order (repeats kept). */
export function terms(text: string): string[] {
  const out: string[] = [];
  forEachTerm(text, (t) => out.push(t));
  return out;
}

function grow(b: Uint8Array): Uint8Array {
  const next = new Uint8Array(b.length * 2);
  next.set(b);
  return next;
}

function utf8(b: Uint8Array, n: number, c: number): number {
  if (c < 0x80) b[n++] = c;
  else if (c < 0x800) {
    b[n++] = 0xc0 | (c >> 6);
    b[n++] = 0x80 | (c & 0x3f);
  } else if (c < 0x10000) {
    b[n++] = 0xe0 | (c >> 12);
    b[n++] = 0x80 | ((c >> 6) & 0x3f);
    b[n++] = 0x80 | (c & 0x3f);
  } else {
    b[n++] = 0xf0 | (c >> 18);
    b[n++] = 0x80 | ((c >> 12) & 0x3f);
    b[n++] = 0x80 | ((c >> 6) & 0x3f);
    b[n++] = 0x80 | (c & 0x3f);
  }
  return n;
}

/** A term (byte string) as readable text, for messages and tests. */
export const termText = (term: string): string => Buffer.from(term, 'latin1').toString('utf8');
