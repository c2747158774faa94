/**
 * ADAM's text pipeline: language, sentences, segmentation, quality, themes, emotions, entities.
 * Pure functions; the embedder is injected so the same code runs in the server and in workers.
 */
export {
  analyzeText,
  rankSentences,
  RANK_COSINE_WEIGHT,
  type AnalyzeOptions,
  type AnalyzeResult,
  type AnalyzedSegment,
  type RankOptions,
  type RankedSentence,
} from './analyze.js';
export {
  dominantEmotion,
  EMOTIONS,
  scoreEmotions,
  type Emotion,
  type EmotionScores,
} from './emotions.js';
export { datePatterns, extractEntities, type Entity, type EntityLabel } from './entities.js';
export {
  detectLanguage,
  ISO3_TO_ISO1,
  resolveLanguage,
  type DetectedLanguage,
} from './language.js';
export {
  checkDocument,
  checkSegment,
  checkSnippet,
  noiseLevel,
  QUALITY_WEIGHTS,
  scoreQuality,
  type Acceptance,
  type DocumentCheck,
  type QualityDetail,
  type QualityResult,
} from './quality.js';
export {
  fallbackCandidates,
  regexCandidates,
  segmentText,
  semanticCandidates,
  type AssessedCandidate,
  type Candidate,
  type Diagnostic,
  type SegmentationMethod,
  type SegmentationResult,
  type SegmentationStats,
  type SegmentOptions,
} from './segmenter.js';
export { splitParagraphs, splitSentences } from './sentences.js';
export { countTokens, embedBatched, wordCount, type EmbedFn } from './text.js';
export {
  classifyTheme,
  keywordHits,
  THEME_MARGIN,
  themePrototypes,
  THEMES,
  type Theme,
  type ThemePrototypes,
  type ThemeResult,
  type ThemeScores,
} from './themes.js';
