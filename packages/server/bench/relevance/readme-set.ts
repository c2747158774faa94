/**
 * The README relevance set: prose passages from npm package READMEs (readme-docs.json, built by
 * build-corpus.ts and committed so it does not move with node_modules) and the hand-written
 * questions of readme-queries.ts. Same shape as EVAL_SET, so scoreRankings and evaluateMrr
 * take it as is; queries keep their `kind` and `grades` for NDCG and per-kind figures.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { EvalDoc, EvalSet } from '../eval/evaluate.js';
import { README_QUERIES, type ReadmeQuery } from './readme-queries.js';

export type { ReadmeQuery, ReadmeQueryKind } from './readme-queries.js';

/** One passage as stored in readme-docs.json. */
export interface ReadmeDoc {
  id: string;
  package: string;
  section: string;
  text: string;
}

/** readme-docs.json: where the passages came from (package → version) and the passages. */
export interface ReadmeCorpus {
  description: string;
  source: Record<string, string>;
  docs: ReadmeDoc[];
}

export interface ReadmeSet extends EvalSet {
  docs: readonly EvalDoc[];
  queries: readonly ReadmeQuery[];
}

export const README_DOCS_PATH = fileURLToPath(new URL('./readme-docs.json', import.meta.url));

export function loadReadmeCorpus(): ReadmeCorpus {
  return JSON.parse(readFileSync(README_DOCS_PATH, 'utf8')) as ReadmeCorpus;
}

/** The set as scoreRankings wants it: documents as {id, text}, queries with their labels. */
export function loadReadmeSet(): ReadmeSet {
  const corpus = loadReadmeCorpus();
  return {
    docs: corpus.docs.map((d) => ({ id: d.id, text: d.text })),
    queries: README_QUERIES,
  };
}
