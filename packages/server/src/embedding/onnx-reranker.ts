/**
 * An ONNX cross-encoder (a model of type `reranker`): it reads a query and a text together and
 * answers one relevance score for the pair, which the rerank stage of hybrid search orders the
 * fused top N by.
 *
 * The pairs are tokenised with the model's own tokenizer files from the hub, as the embedder
 * tokenises, then laid out as BERT's pair template: [CLS] query [SEP] text [SEP], token_type_ids
 * 0 over the query part and 1 over the text part, cut to the model's maximum length. The model
 * runs in the worker threads (onnx-runtime.ts's `rerank` task, under the engine's task budget):
 * this module holds the layout and the reading of the scores, which need no native runtime, and
 * the handle the server keeps.
 */

/** Pairs are cut to at most this many tokens (or the model's own maximum, if smaller). */
export const RERANK_MAX_TOKENS = 512;
/**
 * Characters of a text tokenised at most: past the model's maximum its tokens are cut anyway,
 * and a word-piece token is rarely under 1 character in 12; bounds the work a long snippet costs.
 */
export const RERANK_CHARS_PER_TOKEN = 12;
/** The query keeps at least this share of the budget when the pair is too long. */
const QUERY_SHARE = 0.5;

/** The special tokens of BERT's pair template. */
export interface PairSpecialIds {
  cls: number;
  sep: number;
  pad: number;
}

/** A batch of pairs laid out for the model: [pairs, longest] each, row-major. */
export interface EncodedPairs {
  input_ids: number[][];
  token_type_ids: number[][];
  attention_mask: number[][];
}

/**
 * How many tokens of the query and of the text fit `maxLength` with the three special tokens:
 * all of both when they fit; otherwise the query keeps up to half (more when the text is
 * short) and the text the rest, so that a long query cannot crowd the text out.
 */
export function pairBudget(
  queryTokens: number,
  textTokens: number,
  maxLength: number,
): { query: number; text: number } {
  const budget = Math.max(2, maxLength - 3);
  if (queryTokens + textTokens <= budget) return { query: queryTokens, text: textTokens };
  const query = Math.min(
    queryTokens,
    Math.max(Math.floor(budget * QUERY_SHARE), budget - textTokens),
  );
  return { query, text: Math.min(textTokens, budget - query) };
}

/** One pair: [CLS] q [SEP] t [SEP], segments 0 then 1, cut by pairBudget. */
export function encodePair(
  query: readonly number[],
  text: readonly number[],
  special: PairSpecialIds,
  maxLength: number,
): { input_ids: number[]; token_type_ids: number[] } {
  const keep = pairBudget(query.length, text.length, maxLength);
  const q = query.slice(0, keep.query);
  const t = text.slice(0, keep.text);
  return {
    input_ids: [special.cls, ...q, special.sep, ...t, special.sep],
    token_type_ids: [
      ...new Array<number>(q.length + 2).fill(0),
      ...new Array<number>(t.length + 1).fill(1),
    ],
  };
}

/** Pairs of one query with each text, padded on the right to the longest of the batch. */
export function encodePairs(
  query: readonly number[],
  texts: readonly (readonly number[])[],
  special: PairSpecialIds,
  maxLength: number,
): EncodedPairs {
  const pairs = texts.map((t) => encodePair(query, t, special, maxLength));
  const longest = Math.max(0, ...pairs.map((p) => p.input_ids.length));
  const pad = (row: number[], value: number) => [
    ...row,
    ...new Array<number>(longest - row.length).fill(value),
  ];
  return {
    input_ids: pairs.map((p) => pad(p.input_ids, special.pad)),
    token_type_ids: pairs.map((p) => pad(p.token_type_ids, 0)),
    attention_mask: pairs.map((p) => pad(new Array<number>(p.input_ids.length).fill(1), 0)),
  };
}

/**
 * One score per pair from the model's logits: [pairs] or [pairs, 1] is the score itself; with
 * two labels (not relevant, relevant) the score is their difference, the relevant label's
 * log-odds.
 */
export function pairScores(dims: readonly number[], data: ArrayLike<number>): number[] {
  const pairs = dims[0] ?? 0;
  const labels = dims.length === 1 ? 1 : dims[dims.length - 1]!;
  if (dims.length > 2 || labels < 1 || labels > 2 || data.length !== pairs * labels) {
    throw new Error(
      `a reranker answers logits of [pairs] or [pairs, 1 or 2], this one [${dims.join(', ')}]`,
    );
  }
  return Array.from({ length: pairs }, (_, i) =>
    labels === 1 ? Number(data[i]) : Number(data[i * 2 + 1]) - Number(data[i * 2]),
  );
}

/** What scores pairs off the event loop: the engine (its worker threads, under the task budget). */
export interface PairScorer {
  rerank(
    dir: string,
    query: string,
    texts: string[],
    opts?: { signal?: AbortSignal },
  ): Promise<number[]>;
}

/** An installed reranker model, scored on a PairScorer's threads. */
export class OnnxReranker {
  constructor(
    private readonly scorer: PairScorer,
    /** The registry's name of the model (what a response says reranked). */
    readonly name: string,
    /** The model's absolute directory. */
    readonly dir: string,
  ) {}

  /** One score per text, in the texts' order; higher is more relevant to the query. */
  async score(
    query: string,
    texts: string[],
    opts: { signal?: AbortSignal } = {},
  ): Promise<number[]> {
    if (texts.length === 0) return [];
    const scores = await this.scorer.rerank(this.dir, query, texts, opts);
    if (scores.length !== texts.length) {
      throw new Error(`Reranker ${this.name} scored ${scores.length} of ${texts.length} pairs`);
    }
    return scores;
  }
}
