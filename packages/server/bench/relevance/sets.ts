/** Every relevance set the benches measure, by name. */
import { EVAL_SET, type EvalSet } from '../eval/evaluate.js';
import { loadParaphraseSet } from './paraphrase-set.js';
import { loadReadmeSet } from './readme-set.js';
import { loadShortSet } from './short-set.js';

export const RELEVANCE_SETS: [string, () => EvalSet][] = [
  ['readme', loadReadmeSet],
  ['eval', () => EVAL_SET],
  ['paraphrase', loadParaphraseSet],
  ['short', loadShortSet],
];
