/** Business constants of the model screens (spec 001 §9), under the spec's names. */

/** Install time-out: polling an install gives up after 5 minutes. */
export const INSTALL_TIMEOUT_MS = 300_000;

/** Install polling: the model and its progress every second… */
export const INSTALL_POLL_MS = 1000;
/** …and every 5 s inside the language-pack dialog. */
export const DIALOG_INSTALL_POLL_MS = 5000;

/** Fallback refresh after a progress-less install answer. */
export const FALLBACK_REFRESH_MS = 3000;

/**
 * Virtual list: used when the content would exceed the viewport height minus 300 and no card is
 * expanded (an expanded card's height is unknown until drawn); items are at least 220 high, 16 apart.
 */
export const VIRTUAL_LIST = {
  viewportOffset: 300,
  minItemHeight: 220,
  spacing: 16,
} as const;

/** Skeleton cards while the list loads. */
export const LOADING_SKELETONS = 6;

/**
 * The default test sentence (the spec says one exists without giving it): a few words any model
 * type has something to say about — a place name for entities, plain clauses for sentence and
 * embedding models.
 */
export const DEFAULT_TEST_SENTENCE =
  'The quick brown fox jumps over the lazy dog near the river bank in Paris.';
