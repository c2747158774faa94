import { Badge, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { CRAWL_SKIP_REASONS, type CrawlProgress as CrawlFigures } from '@adam/contracts';
import { formatNumber } from '../../lib/format';
// The job screens' reading of `stats.crawl` and their words for the skip reasons: one of each.
import { SKIP_REASON_LABELS } from '../jobs/CrawlCounts';

function Figure({ label, value }: { label: string; value: number }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={600} className="tabular-nums" data-testid={`crawl-progress-${label.toLowerCase()}`}>
        {formatNumber(value)}
      </Text>
    </Stack>
  );
}

/**
 * A crawl's frontier counts and skip reasons as the job reports them live, laid out for a card
 * (the job table's row shows the same figures inline: jobs/CrawlCounts).
 */
export function CrawlProgress({ progress }: { progress: CrawlFigures }) {
  const skipped = CRAWL_SKIP_REASONS.filter((r) => progress.skipped[r] > 0);
  return (
    <Stack gap="xs" aria-label="Crawl progress">
      <SimpleGrid cols={5} spacing="xs">
        <Figure label="Discovered" value={progress.discovered} />
        <Figure label="Queued" value={progress.queued} />
        <Figure label="Fetched" value={progress.fetched} />
        <Figure label="Stored" value={progress.stored} />
        <Figure label="Depth" value={progress.depth} />
      </SimpleGrid>
      <Group gap={6} aria-label="Skipped by reason">
        <Text size="xs" c="dimmed">
          Skipped:
        </Text>
        {skipped.length === 0 ? (
          <Text size="xs" c="dimmed">
            none
          </Text>
        ) : (
          skipped.map((r) => (
            <Badge key={r} size="sm" variant="light" color={r === 'error' ? 'red' : 'gray'}>
              {SKIP_REASON_LABELS[r]} {formatNumber(progress.skipped[r])}
            </Badge>
          ))
        )}
      </Group>
    </Stack>
  );
}
