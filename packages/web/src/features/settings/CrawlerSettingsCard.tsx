import {
  Button,
  Center,
  Loader,
  NumberInput,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { IconDeviceFloppy } from '@tabler/icons-react';
import { CRAWLER_BOUNDS, DEFAULT_CRAWLER_SETTINGS } from '@adam/contracts';
import { SettingsCard } from '../../components/SettingsCard';
import { useSectionForm, wholeNumberProps } from './useSectionForm';

const D = DEFAULT_CRAWLER_SETTINGS;
const ms = (n: number) => `${n.toLocaleString('en')} ms`;

/**
 * The `crawler` settings section: how politely a crawl treats the sites it reads. A crawl keeps
 * the values it started with; a change applies to the crawls and syncs started after it.
 */
export function CrawlerSettingsCard() {
  const { form, errors, set, submit, saving, loading } = useSectionForm(
    'crawler',
    'Crawler settings saved',
  );
  const B = CRAWLER_BOUNDS;

  return (
    <SettingsCard
      title="Crawler"
      description="Politeness towards the sites a crawl reads. A robots.txt Crawl-delay above Min Delay wins; a 429 or 503 waits for its Retry-After, at most Max Backoff. A crawl keeps the values it started with: a change applies to the next crawl or sync."
    >
      {loading ? (
        <Center py="md">
          <Loader size="sm" />
        </Center>
      ) : !form ? (
        <Text c="dimmed" size="sm">
          The crawler settings could not be loaded.
        </Text>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
          noValidate
        >
          <Stack gap="md">
            <TextInput
              label="User Agent"
              description="Sent with every crawl request and matched against the robots.txt groups."
              value={form.user_agent}
              onChange={(e) => set('user_agent', e.currentTarget.value)}
              error={errors.user_agent}
              maxLength={300}
            />
            {/* One-line descriptions keep the three inputs on one baseline. */}
            <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md" verticalSpacing="md">
              <NumberInput
                label="Per-Host Concurrency"
                description={`Requests at once to one host, ${B.per_host_concurrency.min} to ${B.per_host_concurrency.max}.`}
                {...wholeNumberProps(B.per_host_concurrency)}
                value={form.per_host_concurrency}
                onChange={(v) => set('per_host_concurrency', v)}
                error={errors.per_host_concurrency}
              />
              <NumberInput
                label="Min Delay"
                description={`Between requests to a host, ${B.min_delay_ms.min} to ${ms(B.min_delay_ms.max)}.`}
                suffix=" ms"
                {...wholeNumberProps(B.min_delay_ms)}
                value={form.min_delay_ms}
                onChange={(v) => set('min_delay_ms', v)}
                error={errors.min_delay_ms}
              />
              <NumberInput
                label="Max Backoff"
                description={`${ms(B.max_backoff_ms.min)} to ${ms(B.max_backoff_ms.max)}.`}
                suffix=" ms"
                {...wholeNumberProps(B.max_backoff_ms)}
                value={form.max_backoff_ms}
                onChange={(v) => set('max_backoff_ms', v)}
                error={errors.max_backoff_ms}
              />
            </SimpleGrid>
            <Text size="xs" c="dimmed">
              Defaults: {D.per_host_concurrency} requests at once, {ms(D.min_delay_ms)} apart,
              backoff up to {ms(D.max_backoff_ms)}.
            </Text>
            <div>
              <Button type="submit" loading={saving} leftSection={<IconDeviceFloppy size={16} />}>
                Save Crawler Settings
              </Button>
            </div>
          </Stack>
        </form>
      )}
    </SettingsCard>
  );
}
