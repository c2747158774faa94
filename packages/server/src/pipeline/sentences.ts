/**
 * Rule-based sentence splitter with abbreviations for en, fr, es, de, it, pt, nl and ru (and a
 * reasonable default for the others; CJK terminators need no space after them).
 * A boundary is a run of terminators (. ! ? … and the CJK ones), optionally followed by closing
 * quotes, brackets and citation marks, then whitespace and a sentence start (capital letter,
 * digit or opening quote). Periods are then vetted: abbreviations, initials and German
 * ordinals ("am 3. Oktober") do not end a sentence.
 */

function list(words: string): string[] {
  return words.split(/\s+/).filter(Boolean);
}

// Abbreviations that are never sentence-final in practice (lower case, no final dot).
const COMMON = list('dr prof sr st vs ca cf approx');
const ABBREVIATIONS: Record<string, string[]> = {
  en: list(`
mr mrs ms messrs mt ft al fig figs vol vols ed eds gen gov sen rep rev capt col lt sgt
cmdr adm maj hon est dept univ assn bros jan feb mar apr jun jul aug sep sept oct nov dec
ave co blvd rd esp incl dia viz c
`),
  fr: list(`
m mm mme mmes mlle mlles me pr ste sts env av apr janv févr fevr avr juil sept oct nov déc
dec ex chap éd ed éds coll cie resp hab boul bd mgr vol fig sq suiv
`),
  es: list(`
sr sra sras sres srta srtas dra dras dña dn ud uds vd vds lic ing arq pág págs pag ej vol
núm art cap fig aprox av avda cía ene feb abr a d s ss may jun jul ago sept oct nov dic
izq dcha admón ee uu gral excmo ilmo mons
`),
  de: list(`
hr hrn fr frl str vgl ggf evtl inkl exkl bzgl bzw sog geb gest jh jhd jhdt jan feb apr aug
sept okt nov dez mio mrd abs bd bspw v n u a d z s o allg ehem einschl engl franz lat
griech urspr zzgl mind tel ev kath hl gegr dt insb lt verh zit ff ca
`),
  it: list(`
sig sigg sigra dott ing avv arch geom rag on sen gen col cap ten magg
gen mons sac ecc pag pagg cap art fig vol ed nr tel cfr es ca gen genn febbr mar apr magg giu
lug ag sett ott nov dic
`),
  pt: list(`
sr sra srs sras srta dr dra drs dras prof profa eng arq adv exmo exma ilmo ilma pág págs
pag cap art fig vol ed núm tel cf ex ca jan fev mar abr mai jun jul ago set out nov dez av r
`),
  nl: list(`
dhr mevr mw mr ir ing drs prof dr st blz nr bijv bv vgl ca resp enz jl jhr mej afd tel zgn
jan feb mrt apr jun jul aug sep sept okt nov dec
`),
  ru: list(`
г гг ул д кв стр рис см т тт им акад проф доц им руб коп тыс млн млрд янв февр апр авг сент
окт нояб дек др пр напр
`),
};

// Abbreviations that are abbreviations only before a number: "No. 5", "p. 23", "Nr. 7".
const BEFORE_NUMBER = new Set(
  list(`
no nos nr n p pp s ss ch sec eq art op vol fig núm num tab bd abb kap
`),
);

// These end sentences as often as not ("… and so on, etc. The next"): a capital letter after
// them starts a new sentence.
const MAY_END_SENTENCE = new Set(['etc', 'usw', 'inc', 'ltd', 'corp', 'jr', 'j.-c', 'chr']);

// German writes ordinals with a period ("im 19. Jahrhundert", "am 3. Oktober"); these words and
// the prepositions before such numbers tell an ordinal from a sentence ending in a number.
const DE_ORDINAL_NEXT = new Set(
  list(`
januar jänner februar märz april mai juni juli august september oktober november dezember
jahrhundert jahrhunderts jahrtausend jahrestag lebensjahr platz mal auflage kapitel stock
klasse geburtstag symphonie sinfonie dynastie armee division liga runde etappe
`),
);
const DE_ORDINAL_PREV = new Set(
  list(`
am im vom zum beim den dem der des die das seit ab bis
`),
);

const TERMINATORS = '.!?…。！？';
const CJK_TERMINATORS = '。！？';
// Closing marks that may follow a terminator: quotes (French, German, English), brackets.
const CLOSERS = '"”’\'»«›‹)]}」』）“‘';
// Opening marks a new sentence may start with.
const OPENERS = '"“‘\'«»‹›„‚([¿¡—–-';

const abbreviationSets = new Map<string, Set<string>>();
function abbreviationsFor(language: string): Set<string> {
  let set = abbreviationSets.get(language);
  if (!set) {
    const own = ABBREVIATIONS[language] ?? ABBREVIATIONS.en ?? [];
    set = new Set([...COMMON, ...own]);
    abbreviationSets.set(language, set);
  }
  return set;
}

/** Splits text into sentences; blank lines always separate paragraphs. */
export function splitSentences(text: string, language = 'en'): string[] {
  return splitParagraphs(text).flatMap((p) => splitParagraph(p, language));
}

export function splitParagraphs(text: string): string[] {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t\u00a0]*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
}

const BULLET_RE = /^(?:[-*•·▪◦‣]\s+|\d{1,3}[.)]\s+(?=\p{L}))/u;

/**
 * Single line breaks inside a paragraph are soft wraps unless the line looks like a heading,
 * menu entry or list item (no end punctuation and the next line starts anew).
 */
function splitLines(paragraph: string): string[] {
  const lines = paragraph
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  const chunks: string[] = [];
  let current = '';
  for (const raw of lines) {
    const bullet = BULLET_RE.test(raw);
    const line = raw.replace(BULLET_RE, '');
    if (!current) {
      current = line;
      continue;
    }
    const prevOpen = /[,;:(\-–—]$/u.test(current) || /[.!?…]["”’»)\]]?$/u.test(current);
    const startsAnew = /^[\p{Lu}\p{N}"“«„¿¡]/u.test(line);
    if (bullet || (!prevOpen && startsAnew)) {
      chunks.push(current);
      current = line;
    } else {
      current = `${current} ${line}`;
    }
  }
  if (current) chunks.push(current);
  return chunks;
}

function splitParagraph(paragraph: string, language: string): string[] {
  return splitLines(paragraph).flatMap((chunk) => splitChunk(chunk, language));
}

function isUpper(ch: string): boolean {
  return /\p{Lu}/u.test(ch);
}

function splitChunk(text: string, language: string): string[] {
  const out: string[] = [];
  const n = text.length;
  let start = 0;
  let i = 0;
  while (i < n) {
    const ch = text[i] ?? '';
    if (!TERMINATORS.includes(ch)) {
      i++;
      continue;
    }
    let j = i;
    while (j < n && TERMINATORS.includes(text[j] ?? '')) j++;
    const term = text.slice(i, j);
    const k = skipClosers(text, j);
    if ([...term].some((c) => CJK_TERMINATORS.includes(c))) {
      pushSentence(out, text.slice(start, k));
      start = k;
      i = k;
      continue;
    }
    if (k < n && !/\s/.test(text[k] ?? '')) {
      i = j;
      continue;
    }
    let m = k;
    while (m < n && /\s/.test(text[m] ?? '')) m++;
    if (m >= n) break;
    if (isBoundary(text, i, term, m, language)) {
      pushSentence(out, text.slice(start, k));
      start = m;
    }
    i = Math.max(j, k);
  }
  pushSentence(out, text.slice(start));
  return out;
}

function pushSentence(out: string[], s: string): void {
  const t = s.trim();
  if (t) out.push(t);
}

function skipClosers(text: string, from: number): number {
  let k = from;
  for (;;) {
    const c = text[k] ?? '';
    if (c && CLOSERS.includes(c)) {
      k++;
      continue;
    }
    // French puts a (narrow) space before the closing guillemet: "fini. »"
    const spaced = /^[ \u00a0\u202f]+»/.exec(text.slice(k, k + 4));
    if (spaced) {
      k += spaced[0].length;
      continue;
    }
    // Citation marks glued to the period: "spacetime.[1][2] The"
    const cite = /^\[(?:\d{1,3}|[a-z]|citation needed)\]/i.exec(text.slice(k, k + 20));
    if (cite) {
      k += cite[0].length;
      continue;
    }
    return k;
  }
}

/** Looks at the text after the whitespace following a terminator and the word before it. */
function isBoundary(
  text: string,
  termAt: number,
  term: string,
  nextAt: number,
  language: string,
): boolean {
  let p = nextAt;
  while (p < text.length && OPENERS.includes(text[p] ?? '')) p++;
  const next = text[p] ?? '';
  if (!(isUpper(next) || /\p{N}/u.test(next) || /\p{Lo}/u.test(next))) return false;
  if (term !== '.') return true; // ! ? … and "..." end a sentence before a capital.

  const before = wordBefore(text, termAt);
  const lower = before.toLowerCase();
  if (!lower) return true;
  const nextWord = (/^[\p{L}\p{N}]+/u.exec(text.slice(p))?.[0] ?? '').toLowerCase();
  const nextIsNumber = /^\p{N}/u.test(next);

  if (MAY_END_SENTENCE.has(lower)) return true;
  // Initials: "J. R. R. Tolkien", "M. Dupont", "John F. Kennedy".
  if (/^\p{Lu}$/u.test(before)) return false;
  // Dotted abbreviations: e.g., i.e., z.B., d.h., U.S., Ph.D., a.m.
  if (/^(?:\p{L}{1,3}\.-?)+\p{L}{1,3}$/u.test(before)) return false;
  if (abbreviationsFor(language).has(lower)) return false;
  if (nextIsNumber && BEFORE_NUMBER.has(lower)) return false;
  if (language === 'de' && /^\p{N}{1,4}$/u.test(before)) {
    if (DE_ORDINAL_NEXT.has(nextWord)) return false;
    const prev = wordBefore(text, termAt - before.length).toLowerCase();
    if (DE_ORDINAL_PREV.has(prev)) return false;
  }
  return true;
}

/** The token right before position `at` (no surrounding brackets or quotes). */
function wordBefore(text: string, at: number): string {
  let s = at;
  while (s > 0 && /\s/.test(text[s - 1] ?? '')) s--;
  const end = s;
  while (s > 0 && !/\s/.test(text[s - 1] ?? '')) s--;
  return text.slice(s, end).replace(/^[("'“‘«„¿¡[]+/u, '');
}
