import {
  Button,
  Center,
  Group,
  Loader,
  NumberInput,
  SimpleGrid,
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
      description="Politeness towards the sites a crawl reads. A crawl keeps the values it started with; a change applies to the next crawl or sync."
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
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md" verticalSpacing="md">
            <TextInput
              label="User Agent"
              description="Sent with every crawl request and matched against the robots.txt groups."
              value={form.user_agent}
              onChange={(e) => set('user_agent', e.currentTarget.value)}
              error={errors.user_agent}
              maxLength={300}
              style={{ gridColumn: '1 / -1' }}
            />
            <NumberInput
              label="Per-Host Concurrency"
              description={`Requests sent to one host at the same time (${B.per_host_concurrency.min} to ${B.per_host_concurrency.max}; default ${D.per_host_concurrency}).`}
              {...wholeNumberProps(B.per_host_concurrency)}
              value={form.per_host_concurrency}
              onChange={(v) => set('per_host_concurrency', v)}
              error={errors.per_host_concurrency}
            />
            <NumberInput
              label="Min Delay"
              description={`Between two requests to one host; a robots.txt Crawl-delay above it wins (up to ${ms(B.min_delay_ms.max)}; default ${ms(D.min_delay_ms)}).`}
              suffix=" ms"
              {...wholeNumberProps(B.min_delay_ms)}
              value={form.min_delay_ms}
              onChange={(v) => set('min_delay_ms', v)}
              error={errors.min_delay_ms}
            />
            <NumberInput
              label="Max Backoff"
              description={`Longest wait after a 429 or 503 (Retry-After included) or for a Crawl-delay (${ms(B.max_backoff_ms.min)} to ${ms(B.max_backoff_ms.max)}; default ${ms(D.max_backoff_ms)}).`}
              suffix=" ms"
              {...wholeNumberProps(B.max_backoff_ms)}
              value={form.max_backoff_ms}
              onChange={(v) => set('max_backoff_ms', v)}
              error={errors.max_backoff_ms}
            />
          </SimpleGrid>
          <Group justify="flex-end" mt="md">
            <Button type="submit" loading={saving} leftSection={<IconDeviceFloppy size={16} />}>
              Save Crawler Settings
            </Button>
          </Group>
        </form>
      )}
    </SettingsCard>
  );
}
