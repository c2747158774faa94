/** Small text and vector helpers shared by the pipeline stages. */

export type EmbedFn = (texts: string[]) => Promise<Float32Array[]>;

// Han, Hiragana and Katakana have no spaces between words: each character counts as one word
// and one token, which is close to what sub-word tokenisers do with them.
const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}';
const WORD_RE = new RegExp(
  `[${CJK}]|\\p{N}+(?:[.,]\\p{N}+)*|[\\p{L}\\p{M}\\p{N}]+(?:['’-][\\p{L}\\p{M}\\p{N}]+)*`,
  'gu',
);
const TOKEN_RE = new RegExp(
  `[${CJK}]|\\p{N}+(?:[.,]\\p{N}+)*|[\\p{L}\\p{M}\\p{N}]+|[^\\s\\p{L}\\p{M}\\p{N}]`,
  'gu',
);

/** Words as a reader counts them: "l’espace" and "state-of-the-art" are one word, 3.14 too. */
export function words(text: string): string[] {
  return text.match(WORD_RE) ?? [];
}

export function wordCount(text: string): number {
  return words(text).length;
}

/**
 * Token estimate used for segment_max_tokens: every word piece, number and punctuation mark is
 * one token ("l’espace" is three: l, ’, espace). It needs no tokeniser and never undercounts
 * plain prose against a word-piece model by much, which the 1.3 × words rule does on
 * punctuation-heavy text.
 */
export function countTokens(text: string): number {
  return text.match(TOKEN_RE)?.length ?? 0;
}

/** Lower case, accents removed, ß → ss: lexicon look-ups then work across spellings. */
export function fold(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/ß/g, 'ss');
}

/** Folded word tokens split at apostrophes and hyphens, for lexicon matching. */
export function matchTokens(text: string): string[] {
  return fold(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

export function dot(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let s = 0;
  for (let i = 0; i < n; i++) s += (a[i] ?? 0) * (b[i] ?? 0);
  return s;
}

export function clamp01(x: number): number {
  if (!Number.isFinite(x)) return 0;
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

/** Calls embed with at most batchSize texts at a time and checks that it answered each text. */
export async function embedBatched(
  embed: EmbedFn,
  texts: string[],
  batchSize: number,
): Promise<Float32Array[]> {
  const size = Math.max(1, Math.floor(batchSize));
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += size) {
    const batch = texts.slice(i, i + size);
    const vectors = await embed(batch);
    if (vectors.length !== batch.length) {
      throw new Error(`embed returned ${vectors.length} vectors for ${batch.length} texts`);
    }
    out.push(...vectors);
  }
  return out;
}

/**
 * Cuts text into pieces of at most maxChars characters (and maxTokens tokens) at word
 * boundaries; a single word longer than the limit is cut inside the word.
 */
export function cutAtWordBoundaries(
  text: string,
  maxChars: number,
  maxTokens = Infinity,
): string[] {
  const limit = Math.max(1, Math.floor(maxChars));
  const pieces: string[] = [];
  let current = '';
  const flush = () => {
    if (current) pieces.push(current);
    current = '';
  };
  for (const word of text.split(/\s+/).filter(Boolean)) {
    let w = word;
    while (w.length > limit) {
      flush();
      pieces.push(w.slice(0, limit));
      w = w.slice(limit);
    }
    const candidate = current ? `${current} ${w}` : w;
    if (candidate.length <= limit && countTokens(candidate) <= maxTokens) {
      current = candidate;
    } else {
      flush();
      current = w;
    }
  }
  flush();
  if (maxTokens === Infinity) return pieces;
  // A single word can still hold more tokens than allowed ("a-b-c-d"): cut it by characters.
  return pieces.flatMap((p) => (countTokens(p) <= maxTokens ? [p] : cutByTokens(p, maxTokens)));
}

function cutByTokens(text: string, maxTokens: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const ch of text) {
    if (countTokens(current + ch) > Math.max(1, maxTokens) && current) {
      out.push(current);
      current = '';
    }
    current += ch;
  }
  if (current) out.push(current);
  return out;
}

const STOPWORDS_RAW = `
a an the and or but if of to in on at by for with from as is are was were be been being it its
this that these those he she they we you i his her their our your my me him them us not no so
than then there here which who whom whose what when where why how all any each some such can could
would should may might will shall do does did done has have had having into onto over under about
after before between through during also only very more most other same just both either neither
le la les un une des du de d l et ou mais si en dans sur par pour avec sans sous est sont etait
etaient etre ete a au aux ce cet cette ces il elle ils elles on nous vous je tu son sa ses leur
leurs qui que quoi dont ou ne pas plus comme aussi tres tout tous toute toutes meme y se s qu n
el los las una unos unas y o pero si en con sin por para del al es son era eran ser sido esta
estan este esto estos estas ese esa eso lo le les su sus que quien cual cuando donde como mas
muy tambien ya no ni se
der die das den dem des ein eine einer eines einem einen und oder aber wenn in im an am auf mit
ohne von vom zu zum zur fur ist sind war waren sein gewesen es er sie wir ihr ich du sich nicht
kein keine auch nur sehr wie als dass daß so noch schon dieser diese dieses wird werden wurde
wurden hat haben hatte bei aus nach uber unter durch
`;

/** Function words of en, fr, es, de (folded), left out of overlap and keyword counts. */
export const STOPWORDS: ReadonlySet<string> = new Set(STOPWORDS_RAW.split(/\s+/).filter(Boolean));
