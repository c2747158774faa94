/**
 * The short-query relevance set: what people also type — one word, or a few words with typos —
 * about the ten topics of paraphrase-set.ts, over the same documents (its passages among the
 * README passages). Written by hand before any fusion was measured on it; a query's relevant
 * documents are its topic's three passages. Single words test a keyword side that matches
 * exactly and a vector side with little to go on; typos a keyword side that misses the
 * misspelt words (no keyword evidence for them) and a vector side that must carry the query.
 */
import type { EvalSet } from '../eval/evaluate.js';
import { loadParaphraseSet } from './paraphrase-set.js';

const QUERIES: Record<string, { word: string; typo: string }> = {
  bees: { word: 'hive', typo: 'honney bee colonny' },
  volcano: { word: 'lava', typo: 'volcanoe eruptoin' },
  sleep: { word: 'insomnia', typo: 'how many hours of slep do adults need' },
  bread: { word: 'sourdough', typo: 'why dose bread dough rise' },
  tides: { word: 'tides', typo: 'moon gravty and the ocean' },
  vaccines: { word: 'booster', typo: 'how vacines train the imune system' },
  chess: { word: 'checkmate', typo: 'castling with the rok' },
  photosynthesis: { word: 'chlorophyll', typo: 'how plants make sugr from sunlite' },
  inflation: { word: 'prices', typo: 'intrest rates and inflaton' },
  backups: { word: 'ransomware', typo: 'restoring backup copys' },
};

export function loadShortSet(): EvalSet {
  const { docs } = loadParaphraseSet();
  const queries = Object.entries(QUERIES).flatMap(([topic, q]) => {
    const relevant = [1, 2, 3].map((j) => `${topic}-${j}`);
    return [
      { id: `${topic}-word`, text: q.word, relevant, kind: 'one word' },
      { id: `${topic}-typo`, text: q.typo, relevant, kind: 'typos' },
    ];
  });
  return { docs, queries };
}
