/**
 * Texts of the emotion analytics. Spec 002 §7 lists the calls and §9 the 24 h timeline default,
 * with no wording for the screen, so these are ours.
 */
export const EMOTION_MESSAGES = {
  title: 'Emotion Analytics',
  description:
    'Emotion scores the pipeline stores for every snippet (eight emotions, 0–1 each), aggregated by period.',
  distributionTitle: 'Dominant emotions',
  figuresTitle: 'Per-emotion figures',
  timelineTitle: 'Emotion timeline',
  emptyTitle: 'No emotions in this period',
  emptyDescription:
    'No snippet of this period carries an emotion score. Pick a longer period, or add sources: every new snippet is scored.',
  emptyAddSources: 'Add sources',
  timelineEmpty: 'No snippet was stored in these hours.',
  loadFailed: 'Failed to load emotion analytics',
} as const;
