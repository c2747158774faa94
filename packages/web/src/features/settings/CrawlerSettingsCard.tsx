import { CRAWLER_BOUNDS, DEFAULT_CRAWLER_SETTINGS } from '@adam/contracts';
import { SectionCard } from './SectionCard';

const B = CRAWLER_BOUNDS;
const D = DEFAULT_CRAWLER_SETTINGS;
const ms = (n: number) => `${n.toLocaleString('en')} ms`;

/**
 * The `crawler` settings section: how politely a crawl treats the sites it reads. A crawl keeps
 * the values it started with; a change applies to the crawls and syncs started after it.
 */
export function CrawlerSettingsCard() {
  return (
    <SectionCard
      section="crawler"
      title="Crawler"
      description="Politeness towards the sites a crawl reads. A robots.txt Crawl-delay above Min Delay wins; a 429 or 503 waits for its Retry-After, at most Max Backoff. A crawl keeps the values it started with: a change applies to the next crawl or sync."
      failedText="The crawler settings could not be loaded."
      savedText="Crawler settings saved"
      saveLabel="Save Crawler Settings"
      textFields={[
        {
          field: 'user_agent',
          label: 'User Agent',
          description: 'Sent with every crawl request and matched against the robots.txt groups.',
          maxLength: 300,
        },
      ]}
      numberFields={[
        {
          field: 'per_host_concurrency',
          label: 'Per-Host Concurrency',
          description: `Requests at once to one host, ${B.per_host_concurrency.min} to ${B.per_host_concurrency.max}.`,
          bounds: B.per_host_concurrency,
        },
        {
          field: 'min_delay_ms',
          label: 'Min Delay',
          description: `Between requests to a host, ${B.min_delay_ms.min} to ${ms(B.min_delay_ms.max)}.`,
          bounds: B.min_delay_ms,
          suffix: ' ms',
        },
        {
          field: 'max_backoff_ms',
          label: 'Max Backoff',
          description: `${ms(B.max_backoff_ms.min)} to ${ms(B.max_backoff_ms.max)}.`,
          bounds: B.max_backoff_ms,
          suffix: ' ms',
        },
      ]}
      defaults={
        <>
          Defaults: {D.per_host_concurrency} requests at once, {ms(D.min_delay_ms)} apart, backoff
          up to {ms(D.max_backoff_ms)}.
        </>
      }
    />
  );
}
