/**
 * Texts of the 'Logs Système' screen. The spec's own (§2.7 title, empty and loading texts, §8
 * inline errors) are copied exactly; the spec gives no wording for the live-update note, so
 * those lines are ours.
 */
export const LOG_MESSAGES = {
  title: 'Logs Système',
  description: 'Every line the server logged, newest first.',
  empty: 'Aucun log pour la période sélectionnée',
  emptyHint: 'Pick a longer range or another level, or change the search.',
  loading: 'Chargement...',
  fetchFailed: 'Failed to fetch logs',
  error: (message: string) => `Erreur: ${message}`,
  page: (page: number) => `Page ${page}`,
  liveOn:
    'Live: new lines appear at the top of page 1 as the server logs them, when they match the filters.',
  liveOtherPage: 'Live updates show on page 1 only.',
  liveOff: 'Live updates paused: the realtime channel is not connected. Use Refresh to reload.',
} as const;
