/**
 * Texts of the encyclopedia playground, exactly as spec 001 §5, §8 and spec 002 §5, §8 write
 * them (French and English as the spec has them).
 */
export const WIKI_MESSAGES = {
  titleEmpty: 'Le titre est vide',
  titleRequired: 'Le titre est requis',
  contextEmpty: 'Le contexte est vide',
  contextRequired: 'Le contexte est requis',
  questionEmpty: 'La question est vide',
  questionRequired: 'La question est requise',
  fetchFailed: 'Failed to fetch article',
  analysisFailed: 'Analysis failed',
  /**
   * Spec 002 §8: "The step shows the French failure text" without giving it; worded like the
   * spec's other French failure text ('Le traitement des segments a échoué').
   */
  analysisFailedStep: "L'analyse a échoué",
  textEmpty: 'Article text is empty',
  textTooBig: 'Article text exceeds 100 kB',
  saveFailed: 'Erreur pendant la sauvegarde des segments.',
  noWorkerAvailable: 'No worker available – segments were not saved.',
  noWorkerRunning: 'No worker running – job will not be processed.',
  jobFailed: 'Le traitement des segments a échoué',
  jobRetryFailed: 'Job retry failed',
} as const;

/** A spec failure text with the server's detail after it. */
export const withDetail = (message: string, detail?: string | null) =>
  detail ? `${message}: ${detail}` : message;

/** Texts of the Playground and Playground URL screens, exactly as spec 001 §2.8, §2.9, §8 write them. */
export const PLAYGROUND_MESSAGES = {
  analysisFailed: 'Analysis failed',
  /** Followed by ': {detail}', the JSON error body's detail unwrapped. */
  fetchUrlFailed: 'Failed to fetch URL',
  autoRule: 'Auto rule',
  /** The server found no rule for the page's domain: default extraction. */
  noSpecificRule: 'No specific rule found – using default',
  /** A rule matched but does not change extraction (an allow rule without target). */
  noRuleApplied: 'No rule applied',
  editRules: (domain: string) => `Edit rules for ${domain}`,
} as const;
