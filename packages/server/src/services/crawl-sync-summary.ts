import type { CrawlSync } from '@adam/contracts';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The activity feed's words for a crawl's sync. */
export function crawlSyncSummary(s: CrawlSync | undefined): string {
  if (!s) return 'no record';
  const pages = [
    `${s.pages_added} added`,
    `${s.pages_changed} changed`,
    `${s.pages_unchanged} unchanged`,
    `${s.pages_removed} removed`,
    `${s.pages_failed} failed`,
  ].join(', ');
  // Pages re-cut by a newer segmentation (counted among the others when their content changed).
  const recut = s.pages_resegmented ? `, ${s.pages_resegmented} re-segmented` : '';
  return `pages ${pages}${recut}; ${plural(s.reembedded, 'segment')} embedded`;
}
