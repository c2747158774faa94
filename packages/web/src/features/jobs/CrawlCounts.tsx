/** A crawl_site job's live figures (its `stats.crawl`), shown wherever the job appears. */
import { Group, Text } from '@mantine/core';
import { CRAWL_SKIP_REASONS, CrawlProgress, type CrawlSkipReason, type Job } from '@adam/contracts';
import { formatNumber } from '../../lib/format';

export const CRAWL_JOB_TYPE = 'crawl_site';

/** Skip reasons in words, for the counts and the frontier filter. */
export const SKIP_REASON_LABELS: Record<CrawlSkipReason, string> = {
  robots: 'robots.txt',
  scope: 'out of scope',
  pattern: 'URL pattern',
  duplicate: 'duplicate',
  too_large: 'too large',
  noindex: 'noindex',
  error: 'error',
};

/** The crawl figures of a job, or null when it is not a crawl or has not reported yet. */
export function crawlProgressOf(job: Pick<Job, 'type' | 'stats'>): CrawlProgress | null {
  if (job.type !== CRAWL_JOB_TYPE) return null;
  const parsed = CrawlProgress.safeParse((job.stats as { crawl?: unknown }).crawl);
  return parsed.success ? parsed.data : null;
}

const skippedTotal = (crawl: CrawlProgress) =>
  CRAWL_SKIP_REASONS.reduce((sum, r) => sum + crawl.skipped[r], 0);

function Figure({ label, value, testId }: { label: string; value: number; testId: string }) {
  return (
    <Text span size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
      {label}{' '}
      <Text
        span
        size="xs"
        fw={600}
        c="var(--mantine-color-text)"
        className="tabular-nums"
        data-testid={testId}
      >
        {formatNumber(value)}
      </Text>
    </Text>
  );
}

/**
 * Discovered, queued, fetched, stored and skipped, with the skips by reason. The job's cache entry
 * is patched by each job_progress event (the realtime table), so the figures move live.
 */
export function CrawlCounts({ crawl }: { crawl: CrawlProgress }) {
  const skipped = skippedTotal(crawl);
  const reasons = CRAWL_SKIP_REASONS.filter((r) => crawl.skipped[r] > 0);
  return (
    <Group gap={10} wrap="wrap" aria-label="Crawl counts" data-testid="crawl-counts">
      <Figure label="discovered" value={crawl.discovered} testId="crawl-discovered" />
      <Figure label="queued" value={crawl.queued} testId="crawl-queued" />
      <Figure label="fetched" value={crawl.fetched} testId="crawl-fetched" />
      <Figure label="stored" value={crawl.stored} testId="crawl-stored" />
      <Figure label="skipped" value={skipped} testId="crawl-skipped" />
      {reasons.length > 0 ? (
        <Text span size="xs" c="dimmed" data-testid="crawl-skip-reasons">
          (
          {reasons
            .map((r) => `${SKIP_REASON_LABELS[r]} ${formatNumber(crawl.skipped[r])}`)
            .join(', ')}
          )
        </Text>
      ) : null}
    </Group>
  );
}
