/** Spec 002 §8 (Index): the texts the index screens show, exactly as written in the spec. */
export const INDEX_MESSAGES = {
  statsFailed: 'Failed to fetch index statistics',
  infoFailed: 'Failed to fetch index info',
  searchFailed: 'Search failed',
  optimizeFailed: 'Failed to optimize index',
} as const;
