import {
  Button,
  Center,
  Loader,
  NumberInput,
  SimpleGrid,
  Stack,
  Switch,
  Text,
} from '@mantine/core';
import { IconDeviceFloppy } from '@tabler/icons-react';
import { DEFAULT_QUALITY_SETTINGS as D, QUALITY_BOUNDS as B } from '@adam/contracts';
import { PageHeader } from '../../components/PageHeader';
import { SettingsCard } from '../../components/SettingsCard';
import { useSectionForm, wholeNumberProps } from './useSectionForm';

/**
 * Settings → Quality: the section `quality` as one form with one save: what the search history
 * keeps, and how watched evaluation sets are run and when a fall of nDCG@10 raises an alert.
 */
export function QualitySettingsScreen() {
  const { form, errors, set, submit, saving, loading, failed } = useSectionForm(
    'quality',
    'Quality settings saved',
  );

  const header = (
    <PageHeader
      title="Quality Settings"
      description="Search history, and the continuous evaluation of watched sets."
    />
  );
  if (loading) {
    return (
      <Stack gap="lg" maw={880}>
        {header}
        <Center mih="30vh">
          <Loader />
        </Center>
      </Stack>
    );
  }
  if (failed || !form) {
    return (
      <Stack gap="lg" maw={880}>
        {header}
        <Text c="dimmed" size="sm">
          The quality settings could not be loaded.
        </Text>
      </Stack>
    );
  }

  return (
    <Stack gap="lg" maw={880}>
      {header}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
        noValidate
      >
        <Stack gap="lg">
          <SettingsCard
            title="Search History"
            description="Searches are recorded with their mode, filters, latency and results, for Snippets → Search history."
          >
            <Switch
              label="Record searches"
              description="Off: nothing is recorded from now on (what was recorded stays until it expires)."
              checked={form.search_history_enabled}
              onChange={(e) => set('search_history_enabled', e.currentTarget.checked)}
              error={errors.search_history_enabled}
            />
            <NumberInput
              label="Keep recorded searches for"
              description={`${B.search_history_retention_days.min}–${B.search_history_retention_days.max} days; older ones are deleted.`}
              suffix=" days"
              maw={280}
              {...wholeNumberProps(B.search_history_retention_days)}
              value={form.search_history_retention_days}
              onChange={(v) => set('search_history_retention_days', v)}
              error={errors.search_history_retention_days}
            />
          </SettingsCard>

          <SettingsCard
            title="Continuous Evaluation"
            description="Watched evaluation sets (Index → Quality) are run on their own; a drop raises an alert on the overview, in the logs and in the activity feed."
          >
            <Switch
              label="Run watched sets after a change"
              description="After a rebuild of the index, a switch of the embedding model, or a change of the search or reranking settings."
              checked={form.evaluation_on_change}
              onChange={(e) => set('evaluation_on_change', e.currentTarget.checked)}
              error={errors.evaluation_on_change}
            />
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
              <NumberInput
                label="Run watched sets every"
                description="Hours after a set's last run; 0: no schedule."
                suffix=" h"
                {...wholeNumberProps(B.evaluation_schedule_hours)}
                value={form.evaluation_schedule_hours}
                onChange={(v) => set('evaluation_schedule_hours', v)}
                error={errors.evaluation_schedule_hours}
              />
              <NumberInput
                label="Drop threshold (nDCG@10)"
                description={`A mode falling more than this from the set's previous run (${B.evaluation_drop_threshold.min}–${B.evaluation_drop_threshold.max}).`}
                min={B.evaluation_drop_threshold.min}
                max={B.evaluation_drop_threshold.max}
                step={B.evaluation_drop_threshold.step}
                decimalScale={3}
                allowNegative={false}
                clampBehavior="blur"
                value={form.evaluation_drop_threshold}
                onChange={(v) => set('evaluation_drop_threshold', v)}
                error={errors.evaluation_drop_threshold}
              />
            </SimpleGrid>
          </SettingsCard>

          <Text size="xs" c="dimmed">
            Defaults: searches recorded and kept {D.search_history_retention_days} days; watched
            sets run after a change and every {D.evaluation_schedule_hours} h; alert beyond a fall
            of {D.evaluation_drop_threshold}.
          </Text>
          <div>
            <Button type="submit" loading={saving} leftSection={<IconDeviceFloppy size={16} />}>
              Save Quality Settings
            </Button>
          </div>
        </Stack>
      </form>
    </Stack>
  );
}
