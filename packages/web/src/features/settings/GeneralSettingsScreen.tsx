import type { FormEvent } from 'react';
import {
  Button,
  Group,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import { IconDeviceFloppy } from '@tabler/icons-react';
import {
  BACKUP_FREQUENCIES,
  BACKUP_RETENTION_COUNT_BOUNDS,
  BACKUP_RETENTION_DAYS_BOUNDS,
  GeneralSettings,
  LANGUAGES,
  MANUAL_BACKUP_RETENTION,
  SAFETY_BACKUP_RETENTION,
} from '@adam/contracts';
import { PageHeader } from '../../components/PageHeader';
import { ErrorState, LoadingPanel } from '../../components/QueryState';
import { SettingsCard } from '../../components/SettingsCard';
import { choiceOf, useSectionForm, wholeNumberProps } from './useSectionForm';

const ENVIRONMENTS = GeneralSettings.shape.environment.options;

export const BACKUP_FREQUENCY_LABELS: Record<(typeof BACKUP_FREQUENCIES)[number], string> = {
  60: 'Every hour',
  360: 'Every 6 hours',
  720: 'Every 12 hours',
  1440: 'Daily',
};

/**
 * General Settings (spec 000 §2): saved with PUT /admin/settings/general. The server checks the
 * values (its refusal is shown at the fields and as a toast) and the auto-backup timer follows a
 * saved frequency or switch at once; the retention applies to automatic backups only.
 */
export function GeneralSettingsScreen() {
  const { form, errors, set, submit, saving, loading, failed } = useSectionForm(
    'general',
    'General settings saved',
  );

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit();
  };

  return (
    <Stack gap="lg" maw={880}>
      <PageHeader title="General Settings" description="API identity, environment and backups." />
      {failed ? (
        <ErrorState
          title="Failed to load settings"
          message="The general settings could not be loaded."
        />
      ) : loading || !form ? (
        <LoadingPanel label="Loading settings" />
      ) : (
        <form onSubmit={onSubmit} noValidate>
          <Stack gap="lg">
            <SettingsCard title="Application">
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <TextInput
                  label="API Title"
                  value={form.api_title}
                  onChange={(e) => set('api_title', e.currentTarget.value)}
                  error={errors.api_title}
                  maxLength={200}
                />
                <Select
                  label="Default Language"
                  data={[...LANGUAGES]}
                  value={form.default_language}
                  onChange={(v) => {
                    const language = choiceOf(LANGUAGES, v);
                    if (language) set('default_language', language);
                  }}
                  error={errors.default_language}
                  allowDeselect={false}
                />
                <Select
                  label="Environment"
                  data={[...ENVIRONMENTS]}
                  value={form.environment}
                  onChange={(v) => {
                    const environment = choiceOf(ENVIRONMENTS, v);
                    if (environment) set('environment', environment);
                  }}
                  error={errors.environment}
                  allowDeselect={false}
                />
                <Switch
                  label="Debug Mode"
                  checked={form.debug_mode}
                  onChange={(e) => set('debug_mode', e.currentTarget.checked)}
                  error={errors.debug_mode}
                  mt={{ sm: 30 }}
                />
              </SimpleGrid>
            </SettingsCard>
            <SettingsCard
              title="Backups"
              description="Automatic backups of the store and the index; a saved change applies at once."
            >
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <Select
                  label="Backup Frequency"
                  data={BACKUP_FREQUENCIES.map((minutes) => ({
                    value: String(minutes),
                    label: BACKUP_FREQUENCY_LABELS[minutes],
                  }))}
                  value={String(form.backup_frequency)}
                  onChange={(v) => v && set('backup_frequency', Number(v))}
                  error={errors.backup_frequency}
                  allowDeselect={false}
                />
                <Switch
                  label="Auto Backup"
                  checked={form.auto_backup}
                  onChange={(e) => set('auto_backup', e.currentTarget.checked)}
                  error={errors.auto_backup}
                  mt={{ sm: 30 }}
                />
                <NumberInput
                  label="Automatic backups kept"
                  description="The newest ones; older automatic backups are deleted."
                  {...wholeNumberProps(BACKUP_RETENTION_COUNT_BOUNDS)}
                  value={form.backup_retention_count}
                  onChange={(v) => set('backup_retention_count', v)}
                  error={errors.backup_retention_count}
                />
                <NumberInput
                  label="Delete automatic backups after (days)"
                  description="0 keeps them whatever their age; the newest is always kept."
                  {...wholeNumberProps(BACKUP_RETENTION_DAYS_BOUNDS)}
                  value={form.backup_retention_days}
                  onChange={(v) => set('backup_retention_days', v)}
                  error={errors.backup_retention_days}
                />
              </SimpleGrid>
              <Text size="xs" c="dimmed" mt="sm">
                Manual backups ({MANUAL_BACKUP_RETENTION} kept) and the safety backups a restore
                takes ({SAFETY_BACKUP_RETENTION} kept) are not affected.
              </Text>
            </SettingsCard>
            <Group>
              <Button type="submit" loading={saving} leftSection={<IconDeviceFloppy size={16} />}>
                Save Settings
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Stack>
  );
}
