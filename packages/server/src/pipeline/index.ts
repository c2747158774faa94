/**
 * ADAM's text pipeline: language, sentences, segmentation, quality, themes, emotions, entities.
 * Pure functions; the embedder is injected so the same code runs in the server and in workers.
 */
export { analyzeText, rankSentences, type AnalyzeResult } from './analyze.js';
export { documentEntities, extractEntities, type NerFn } from './entities.js';
export { resolveLanguage } from './language.js';
export { type Diagnostic } from './segmenter.js';
export { type EmbedFn } from './text.js';
