/**
 * Texts of the overview. The spec names the figures (spec 000 §3, §9; spec 002 §9) but gives no
 * wording for this screen, so these are ours.
 */
export const OVERVIEW_MESSAGES = {
  title: 'System Overview',
  description:
    'Agent 1 · Memory Collection System: real figures from the server, live over the realtime channel.',
  emptyTitle: 'No snippets yet',
  emptyDescription:
    'This install has not collected anything. Add a few source URLs, or fetch an encyclopedia article and save it as segments: jobs, snippets and charts will appear here as they run.',
  emptyAddSources: 'Add sources',
  emptyPlayground: 'Open the encyclopedia playground',
  timelineTitle: 'Activity timeline',
  timelineEmpty: 'No activity in this period.',
  themesTitle: 'Themes',
  themesEmpty: 'No snippets to group by theme yet.',
  activityTitle: 'Recent activity',
  activityEmpty:
    'Nothing has happened yet: jobs, deletions, maintenance, backups and logins show here.',
  liveTitle: 'Live counts',
  liveWaiting:
    'Waiting for the realtime channel; the figures above come from the last overview call.',
  simulatedTitle: 'Simulated dashboard metrics',
  simulatedBadge: 'Simulated',
  simulatedExplanation:
    'Display-only demo values generated in this browser every 5 s; they are not measured and do not come from the server.',
  loadFailed: 'Failed to load the overview',
} as const;
