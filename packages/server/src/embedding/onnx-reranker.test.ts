import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyCrossEncoder } from '../../test/fixtures/tiny-models.js';
import { OnnxRunner } from './onnx-embedder.js';
import { encodePair, encodePairs, pairBudget, pairScores } from './onnx-reranker.js';

const RERANKER = 'adam-test/tiny-reranker';
const SPECIAL = { cls: 2, sep: 3, pad: 0 };

describe('pair layout', () => {
  it('lays a pair out as [CLS] query [SEP] text [SEP] with segments 0 then 1', () => {
    expect(encodePair([10, 11], [20, 21, 22], SPECIAL, 512)).toEqual({
      input_ids: [2, 10, 11, 3, 20, 21, 22, 3],
      token_type_ids: [0, 0, 0, 0, 1, 1, 1, 1],
    });
  });

  it('cuts a long text to the maximum length, keeping the query whole', () => {
    const text = Array.from({ length: 100 }, (_, i) => 100 + i);
    const pair = encodePair([10, 11], text, SPECIAL, 16);
    expect(pair.input_ids).toHaveLength(16);
    expect(pair.input_ids).toEqual([2, 10, 11, 3, ...text.slice(0, 11), 3]);
    expect(pair.token_type_ids.filter((t) => t === 1)).toHaveLength(12);
  });

  it('gives a long query half the budget at most when the text needs the rest', () => {
    expect(pairBudget(100, 100, 23)).toEqual({ query: 10, text: 10 });
    // A short text leaves the query more than half.
    expect(pairBudget(100, 4, 23)).toEqual({ query: 16, text: 4 });
    expect(pairBudget(3, 4, 23)).toEqual({ query: 3, text: 4 });
  });

  it('pads every pair of a batch to the longest, masked out, segment 0', () => {
    const b = encodePairs([10], [[20], [20, 21, 22]], SPECIAL, 512);
    expect(b.input_ids).toEqual([
      [2, 10, 3, 20, 3, 0, 0],
      [2, 10, 3, 20, 21, 22, 3],
    ]);
    expect(b.attention_mask).toEqual([
      [1, 1, 1, 1, 1, 0, 0],
      [1, 1, 1, 1, 1, 1, 1],
    ]);
    expect(b.token_type_ids[0]).toEqual([0, 0, 0, 1, 1, 0, 0]);
  });

  it('reads [pairs], [pairs, 1] and two-label logits, and refuses other shapes', () => {
    expect(pairScores([2], Float32Array.of(1.5, -2))).toEqual([1.5, -2]);
    expect(pairScores([2, 1], Float32Array.of(1.5, -2))).toEqual([1.5, -2]);
    expect(pairScores([2, 2], Float32Array.of(0, 3, 1, -1))).toEqual([3, -2]);
    expect(() => pairScores([2, 3], new Float32Array(6))).toThrow(/\[pairs, 1 or 2\]/);
    expect(() => pairScores([2, 5, 1], new Float32Array(10))).toThrow(/logits/);
  });
});

describe('the tiny cross-encoder on the ONNX runner', () => {
  let modelsRoot: string;
  let runner: OnnxRunner;

  beforeAll(async () => {
    modelsRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-reranker-'));
    await writeTinyCrossEncoder(path.join(modelsRoot, RERANKER));
    runner = new OnnxRunner({ modelsRoot, threads: 1 });
  });
  afterAll(async () => {
    await runner?.close();
    fs.rmSync(modelsRoot, { recursive: true, force: true });
  });

  it("tokenises pairs as the model's own tokenizer does for a text pair", async () => {
    env.allowRemoteModels = false;
    env.localModelPath = modelsRoot;
    const tokenizer = await AutoTokenizer.from_pretrained(RERANKER, { local_files_only: true });
    const query = 'Where did Marie Curie work?';
    const text = 'Marie Curie worked in Paris, at the Radium Institute.';
    const own = tokenizer(query, { text_pair: text, return_token_type_ids: true });
    const ids = (t: string) => tokenizer.encode(t, { add_special_tokens: false });
    const mine = encodePair(
      ids(query),
      ids(text),
      { cls: tokenizer.convert_tokens_to_ids('[CLS]'), sep: tokenizer.sep_token_id!, pad: 0 },
      512,
    );
    const list = (t: { tolist(): unknown[] }) => (t.tolist()[0] as bigint[]).map(Number);
    expect(mine.input_ids).toEqual(list(own.input_ids));
    expect(mine.token_type_ids).toEqual(list(own.token_type_ids!));
  });

  it('scores a text sharing the query words above texts sharing none', async () => {
    const scores = await runner.rerank({
      dir: RERANKER,
      query: 'music festival in paris',
      texts: [
        'The stock market fell on Tuesday.',
        'A music festival opened in Paris.',
        'Paris is a large city.',
      ],
    });
    expect(scores).toHaveLength(3);
    expect(scores[1]).toBeGreaterThan(scores[2]!);
    expect(scores[2]).toBeGreaterThan(scores[0]!);
  });

  it('scores a pair the same alone or padded in a batch', async () => {
    const query = 'river flood';
    const texts = ['The river flooded the town.', 'Short.', 'Prices rose sharply at the end.'];
    const together = await runner.rerank({ dir: RERANKER, query, texts });
    for (const [i, t] of texts.entries()) {
      const [alone] = await runner.rerank({ dir: RERANKER, query, texts: [t] });
      expect(alone).toBeCloseTo(together[i]!, 5);
    }
  });

  it('cuts a text past the maximum length: only its first tokens count', async () => {
    // One token a word: 512 − 3 special − 1 query token leaves 508 for the text.
    const kept = 'paris berlin '.repeat(254).trim();
    const long = `${kept} ${'tokyo '.repeat(3000)}`.trim();
    const [a, b] = await runner.rerank({ dir: RERANKER, query: 'paris', texts: [kept, long] });
    expect(b).toBeCloseTo(a!, 5);
    const [c] = await runner.rerank({
      dir: RERANKER,
      query: 'paris',
      texts: [`${kept.slice(0, -7)} tokyo`],
    });
    expect(c).not.toBeCloseTo(a!, 5);
  });
});
