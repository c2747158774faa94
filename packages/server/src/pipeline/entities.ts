import nlp from 'compromise';
import { splitSentences } from './sentences.js';
import { fold, STOPWORDS } from './text.js';

export type EntityLabel = 'PERSON' | 'ORG' | 'GPE' | 'DATE' | 'MONEY' | 'PERCENT' | 'MISC';

export interface Entity {
  text: string;
  label: EntityLabel;
}

/**
 * Named entities of a document: run once per document, then each segment takes its share with
 * entitiesWithin. English: compromise (people, organisations, places (GPE), money and
 * percentages) and the date patterns below. Other languages: dates by per-language patterns
 * and, conservatively, runs of two or more capitalised words not at a sentence start as MISC.
 * Deduplicated by label and text, in order of first appearance per kind.
 */
export function extractEntities(text: string, language = 'en'): Entity[] {
  const found: Entity[] = language === 'en' ? english(text) : other(text, language);
  return dedupe(found);
}

/** Recognises named entities with a language pack's model; null when no pack serves `language`. */
export type NerFn = (
  text: string,
  language: string,
) => Promise<{ text: string; label: EntityLabel }[] | null>;

/** Labels a pack's NER model gives; the others (dates, money, percentages) stay rule-based. */
const MODEL_LABELS: ReadonlySet<EntityLabel> = new Set(['PERSON', 'ORG', 'GPE', 'MISC']);

/**
 * A document's entities when a language pack is installed for it: people, organisations, places
 * and the rest from the pack's model, dates, money and percentages from the built-in rules.
 */
export async function documentEntities(
  text: string,
  language: string,
  ner?: NerFn,
): Promise<Entity[]> {
  const fromPack = ner ? await ner(text, language) : null;
  if (fromPack === null) return extractEntities(text, language);
  const rules = extractEntities(text, language).filter((e) => !MODEL_LABELS.has(e.label));
  return dedupe([...fromPack.filter((e) => MODEL_LABELS.has(e.label)), ...rules]);
}

/**
 * The entities of a document that a piece of it (a segment) holds: those whose text occurs in
 * the piece as whole words, in the document's order.
 */
export function entitiesWithin(entities: readonly Entity[], piece: string): Entity[] {
  return entities.filter((e) => containsWord(piece, e.text));
}

function containsWord(haystack: string, needle: string): boolean {
  if (!needle) return false;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    const before = haystack[at - 1];
    const after = haystack[at + needle.length];
    if (!isWordChar(before) && !isWordChar(after)) return true;
  }
  return false;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;
const isWordChar = (c: string | undefined): boolean => c !== undefined && WORD_CHAR.test(c);

const HONORIFIC = /^(?:(?:dr|mr|mrs|ms|prof|sir|dame|lord|lady|st)\.?\s+)+/i;

const LEADING_JUNK = /[\s"'“‘«(]/u;
const TRAILING_JUNK = /[\s"'”’»),.;:!?]/u;

/**
 * An entity's text without the possessive and the quotes and punctuation around it. The ends
 * are trimmed by a scan: /^[…]+|[…]+$/g retried the trailing class from every position of a
 * long punctuation run, quadratic time (issue 23).
 */
export function cleanEntityText(s: string): string {
  const t = s.replace(/\s+/gu, ' ').replace(/[’']s$/u, '');
  let start = 0;
  while (start < t.length && LEADING_JUNK.test(t[start] ?? '')) start++;
  let end = t.length;
  while (end > start && TRAILING_JUNK.test(t[end - 1] ?? '')) end--;
  return t.slice(start, end).trim();
}

// compromise's last step, the noun-phrase chunker, is not needed for people, places,
// organisations or numbers; tagging is the whole cost, so it is left out. nlp.tokenize has run
// the first steps already.
const TOKENIZED = new Set(['alias', 'machine', 'contractions']);
const TAGGING = nlp
  .hooks()
  .filter((h) => !TOKENIZED.has(h) && h !== 'chunks' && h !== 'postTagger');

interface MatchRule {
  match: string;
  tag?: unknown;
}
interface TaggerView {
  docs: unknown[];
  update(ptrs: number[][]): { sweep(net: unknown): void };
  uncache(): void;
  unfreeze(): void;
}
const WORLD = nlp.world() as unknown as {
  model: { two: { matches: MatchRule[] } };
  methods: {
    one: { buildNet(rules: MatchRule[], world: unknown): unknown };
    two: { quickSplit(docs: unknown[]): { index: number[] }[][] };
  };
};
// compromise's post-tagger sweeps 570 match rules over the text; only those that tag names,
// places, organisations or amounts matter here: its own code, with the list cut to 107 rules
// (entities in 4.8 ms a fixture page instead of 8.5, the same entities on the entity tests).
// Copied at load: compromise's net builder parses the rules in place, and its own tagger, if
// anything in this thread ever runs it, builds its net from the originals.
const ENTITY_RULE =
  /Person|Name|Honorific|Organization|Place|Country|Region|City|SportsTeam|ProperNoun|Money|Currency|Percent|Value|Unit|Fraction/;
const ENTITY_NET = WORLD.methods.one.buildNet(
  WORLD.model.two.matches.filter((m) => ENTITY_RULE.test(String(m.tag))).map((m) => ({ ...m })),
  WORLD,
);
function entityPostTagger(view: TaggerView): void {
  const ptrs = WORLD.methods.two.quickSplit(view.docs).map((terms) => {
    const t = terms[0]!;
    return [t.index[0]!, t.index[1]!, t.index[1]! + terms.length];
  });
  view.update(ptrs).sweep(ENTITY_NET);
  view.uncache();
  view.unfreeze();
}

function english(text: string): Entity[] {
  const out: Entity[] = [];
  const sample = entityBearing(text);
  if (sample) {
    const doc = nlp.tokenize(sample);
    doc.compute(TAGGING);
    entityPostTagger(doc as unknown as TaggerView);
    const add = (values: unknown, label: EntityLabel, strip = false) => {
      if (!Array.isArray(values)) return;
      for (const v of values) {
        if (typeof v !== 'string') continue;
        const t = cleanEntityText(strip ? v.replace(HONORIFIC, '') : v);
        if (t && (label === 'MONEY' || label === 'PERCENT' || /\p{Lu}/u.test(t))) {
          out.push({ text: t, label });
        }
      }
    };
    add(doc.people().out('array'), 'PERSON', true);
    add(doc.organizations().out('array'), 'ORG');
    add(doc.places().out('array'), 'GPE');
    add(doc.money().out('array'), 'MONEY');
    add(doc.percentages().out('array'), 'PERCENT');
  }
  for (const d of datePatterns(text, 'en')) out.push({ text: d, label: 'DATE' });
  return dropContained(out, 'PERSON');
}

/**
 * The sentences that may hold a name or an amount, one a line (compromise reads a line as a
 * sentence): tagging is compromise's whole cost and most prose sentences hold neither. A name
 * needs a capital after the first word, or a first word that compromise's lexicon knows as a
 * name ("Warsaw is ...", not "Beekeepers in ..."); an amount needs a currency or a percentage.
 */
function entityBearing(text: string): string {
  const kept: string[] = [];
  for (const sentence of splitSentences(text, 'en')) {
    if (INNER_CAPITAL.test(sentence) || AMOUNT.test(sentence)) {
      kept.push(sentence);
      continue;
    }
    const words = sentence.match(/\p{L}[\p{L}'’-]*/gu) ?? [];
    const first = words[0];
    if (first && /^\p{Lu}/u.test(first) && lexiconHas(first, NAME_TAGS)) kept.push(sentence);
    else if (/\d/.test(sentence) && words.some((w) => lexiconHas(w, CURRENCY_TAGS))) {
      kept.push(sentence);
    }
  }
  return kept.join('\n');
}

const INNER_CAPITAL = /\s["'“‘«(]?\p{Lu}/u;
const AMOUNT = /[$€£¥%]|\d\s*(?:per ?cent|percent)\b/iu;
const NAME_TAGS = new Set([
  'Person',
  'FirstName',
  'MaleName',
  'FemaleName',
  'LastName',
  'Honorific',
  'ProperNoun',
  'Place',
  'City',
  'Country',
  'Region',
  'Organization',
  'SportsTeam',
]);
const CURRENCY_TAGS = new Set(['Currency']);
const LEXICON = (nlp.world() as { model: { one: { lexicon: Record<string, string | string[]> } } })
  .model.one.lexicon;

function lexiconHas(word: string, tags: ReadonlySet<string>): boolean {
  const entry = LEXICON[word.toLowerCase()];
  if (entry === undefined) return false;
  return typeof entry === 'string' ? tags.has(entry) : entry.some((t) => tags.has(t));
}

/** "Curie" alone adds nothing when "Marie Curie" is there. */
function dropContained(entities: Entity[], label: EntityLabel): Entity[] {
  const names = entities.filter((e) => e.label === label).map((e) => e.text);
  return entities.filter(
    (e) =>
      e.label !== label ||
      /\s/.test(e.text) ||
      !names.some((n) => n !== e.text && n.split(/\s+/).includes(e.text)),
  );
}

const MONTHS: Record<string, string> = {
  en: 'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec',
  fr: 'janvier|février|fevrier|mars|avril|mai|juin|juillet|août|aout|septembre|octobre|novembre|décembre|decembre',
  es: 'enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre',
  de: 'januar|jänner|februar|märz|april|mai|juni|juli|august|september|oktober|november|dezember',
};
const WEEKDAYS: Record<string, string> = {
  en: 'monday|tuesday|wednesday|thursday|friday|saturday|sunday',
  fr: 'lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche',
  es: 'lunes|martes|miércoles|miercoles|jueves|viernes|sábado|sabado|domingo',
  de: 'montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag',
};
// Prepositions that make a bare four-digit number a year: "en 1789", "im Jahr 1961".
const YEAR_CUES: Record<string, string> = {
  en: 'in|since|by|until|from|during|of|around|circa|after|before|between',
  fr: 'en|depuis|vers|dès|des|jusqu’en|de|à',
  es: 'en|desde|hacia|hasta|de|del año|el año',
  de: 'im jahr|im jahre|in|seit|bis|ab|um|von',
};

const YEAR = '(?:1[0-9]{3}|20[0-9]{2})';
const DECADE = /\b(?:(?:early|mid|late)[\s-]+)?(?:1[0-9]|20)[0-9]0s\b/giu;
const NUMERIC_DATE = new RegExp(
  `\\b(?:\\d{1,2}[./-]\\d{1,2}[./-](?:\\d{4}|\\d{2})|\\d{4}-\\d{2}-\\d{2})\\b`,
  'gu',
);

/** Dates written out in the language: "12 mars 2024", "3 de mayo de 2021", "13. August 1961". */
export function datePatterns(text: string, language: string): string[] {
  const out: string[] = [...(text.match(NUMERIC_DATE) ?? [])];
  const months = MONTHS[language];
  if (months) {
    const m = `(?:${months})`;
    const patterns: Record<string, string> = {
      en: `(?:\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${m}\\.?(?:,?\\s+${YEAR})?|${m}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?(?:,?\\s+${YEAR})?|${m}\\s+${YEAR})`,
      fr: `(?:\\d{1,2}(?:er)?\\s+${m}(?:\\s+${YEAR})?|${m}\\s+${YEAR})`,
      es: `(?:\\d{1,2}\\s+de\\s+${m}(?:\\s+de(?:l)?\\s+${YEAR})?|${m}\\s+de(?:l)?\\s+${YEAR})`,
      de: `(?:\\d{1,2}\\.\\s*${m}(?:\\s+${YEAR})?|${m}\\s+${YEAR})`,
    };
    const re = new RegExp(
      `(?<![\\p{L}\\p{N}])${patterns[language] ?? ''}(?![\\p{L}\\p{N}])`,
      'giu',
    );
    out.push(...(text.match(re) ?? []));
  }
  // Decades: "the 1950s", "the late 1930s".
  if (language === 'en') out.push(...(text.match(DECADE) ?? []));
  const cues = YEAR_CUES[language];
  if (cues) {
    const re = new RegExp(`(?<![\\p{L}])(?:${cues})\\s+(${YEAR})(?![\\p{N}])`, 'giu');
    for (const match of text.matchAll(re)) if (match[1]) out.push(match[1]);
  }
  return out.map((d) => d.trim());
}

const CONNECTORS = new Set(['de', 'du', 'des', 'la', 'del', 'van', 'von', 'di', 'da', 'y', 'of']);
const ROMAN = /^[IVXLCDM]+$/;
// Titles that announce a person's name ("M. Dupont", "la Sra. López", "Herr Müller").
const TITLES: Record<string, Set<string>> = {
  fr: new Set(['M', 'Mme', 'Mlle', 'Mgr', 'Me', 'Dr', 'Pr', 'Maître', 'Monsieur', 'Madame']),
  es: new Set(['Sr', 'Sra', 'Srta', 'Don', 'Doña', 'Dr', 'Dra', 'Señor', 'Señora']),
  de: new Set(['Herr', 'Frau', 'Dr', 'Prof']),
};
const DEFAULT_TITLES = new Set(['Dr', 'Prof']);
// A name run containing one of these words is an organisation.
const ORG_WORD =
  /^(?:universi|institut|museum|musee|museo|akademie|academie|academia|societe|sociedad|gesellschaft|compagnie|compania|bank|banque|banco|minist|parti$|partido|partei|gmbh$|ag$|sa$|verein|fundacion|fondation|stiftung|orchest|orquesta|regierung|gouvernement|gobierno|conseil|consejo|assemblee|asamblea|bundestag|senat|comite|comision|kommission)/;

interface Run {
  words: string[];
  person: boolean;
}

function other(text: string, language: string): Entity[] {
  const out: Entity[] = datePatterns(text, language).map((t) => ({ text: t, label: 'DATE' }));
  const calendar = new RegExp(
    `^(?:${[MONTHS[language], WEEKDAYS[language]].filter(Boolean).join('|') || 'x^'})$`,
    'iu',
  );
  const titles = TITLES[language] ?? DEFAULT_TITLES;
  // German capitalises every noun ("Arbeiten von Max Planck"): no connectors there, and no run
  // may start a sentence.
  const german = language === 'de';
  const connectors = german ? new Set<string>() : CONNECTORS;

  for (const sentence of splitSentences(text, language)) {
    const tokens = [...sentence.matchAll(/\p{L}[\p{L}\p{M}'’-]*|\p{N}+/gu)];
    let run: Run = { words: [], person: false };
    let afterTitle = false;
    let prevEnd = 0;
    const flush = () => {
      const words = [...run.words];
      while (words.length && connectors.has(words.at(-1) ?? '')) words.pop();
      const entity = nameEntity(words, run.person);
      if (entity) out.push(entity);
      run = { words: [], person: false };
    };
    tokens.forEach((m, k) => {
      const tok = m[0];
      const gap = sentence.slice(prevEnd, m.index);
      prevEnd = m.index + tok.length;
      // Punctuation ends a name, except the period of a title ("M. Dupont").
      if (/[^\s.]/u.test(gap) || (gap.includes('.') && !afterTitle)) flush();
      if (titles.has(tok)) {
        flush();
        afterTitle = true;
        return;
      }
      // The particle of a titled name: "Mme de Maintenon".
      if (afterTitle && connectors.has(tok)) {
        run.words.push(tok);
        return;
      }
      const capital = /^\p{Lu}/u.test(tok) && !calendar.test(tok);
      const numeral = ROMAN.test(tok);
      if (capital && (!numeral || run.words.length > 0)) {
        const next = tokens[k + 1]?.[0] ?? '';
        const startOk =
          k > 0 || afterTitle || (!german && !STOPWORDS.has(fold(tok)) && /^\p{Lu}/u.test(next));
        if (startOk) {
          run.words.push(tok);
          if (afterTitle) run.person = true;
        } else {
          flush();
        }
      } else if (run.words.length && connectors.has(tok)) {
        run.words.push(tok);
      } else {
        flush();
      }
      afterTitle = false;
    });
    flush();
  }
  return out;
}

/** Label of a run of capitalised words, or null when it is too weak a signal. */
function nameEntity(words: string[], person: boolean): Entity | null {
  if (words.length === 0) return null;
  const text = words.join(' ');
  if (person) return { text, label: 'PERSON' };
  // "Saint-Louis", "West-Berlin": capitalised parts of a hyphenated word count one by one.
  const parts = words.flatMap((w) => w.split('-')).filter((w) => /^\p{Lu}/u.test(w));
  const isOrg = words.some((w) => ORG_WORD.test(fold(w)));
  if (parts.length >= 2) return { text, label: isOrg ? 'ORG' : 'MISC' };
  if (words.length === 1 && isAcronym(text)) return { text, label: 'MISC' };
  return null;
}

function isAcronym(w: string): boolean {
  return /^\p{Lu}{2,6}$/u.test(w) && !ROMAN.test(w);
}

function dedupe(entities: Entity[]): Entity[] {
  const seen = new Set<string>();
  const out: Entity[] = [];
  for (const e of entities) {
    const key = `${e.label}\u0000${e.text.toLowerCase()}`;
    if (!e.text || seen.has(key)) continue;
    seen.add(key);
    out.push(e);
  }
  return out;
}
