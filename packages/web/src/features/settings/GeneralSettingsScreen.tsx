import { useState } from 'react';
import { Button, Select, SimpleGrid, Stack, Switch, Text, TextInput } from '@mantine/core';
import { IconDeviceFloppy } from '@tabler/icons-react';
import { BACKUP_FREQUENCIES, DEFAULT_GENERAL_SETTINGS, LANGUAGES } from '@adam/contracts';
import { PageHeader } from '../../components/PageHeader';
import { SettingsCard } from '../../components/SettingsCard';

const BACKUP_FREQUENCY_LABELS: Record<(typeof BACKUP_FREQUENCIES)[number], string> = {
  60: 'Every hour',
  360: 'Every 6 hours',
  720: 'Every 12 hours',
  1440: 'Daily',
};

/**
 * General Settings (spec 000 §2): a static form. Nothing is saved and no call is made; the
 * Save Settings button has no behaviour in this version.
 */
export function GeneralSettingsScreen() {
  const [values, setValues] = useState(DEFAULT_GENERAL_SETTINGS);
  const set = <K extends keyof typeof values>(key: K, value: (typeof values)[K]) =>
    setValues((current) => ({ ...current, [key]: value }));

  return (
    <Stack gap="lg" maw={880}>
      <PageHeader title="General Settings" description="API identity, environment and backups." />
      <SettingsCard title="Application">
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            label="API Title"
            value={values.api_title}
            onChange={(e) => set('api_title', e.currentTarget.value)}
          />
          <Select
            label="Default Language"
            data={[...LANGUAGES]}
            value={values.default_language}
            onChange={(v) => v && set('default_language', v as (typeof LANGUAGES)[number])}
            allowDeselect={false}
          />
          <Select
            label="Environment"
            data={['development', 'production']}
            value={values.environment}
            onChange={(v) => v && set('environment', v as 'development' | 'production')}
            allowDeselect={false}
          />
          <Switch
            label="Debug Mode"
            checked={values.debug_mode}
            onChange={(e) => set('debug_mode', e.currentTarget.checked)}
            mt={{ sm: 30 }}
          />
        </SimpleGrid>
      </SettingsCard>
      <SettingsCard title="Backups">
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Select
            label="Backup Frequency"
            data={BACKUP_FREQUENCIES.map((minutes) => ({
              value: String(minutes),
              label: BACKUP_FREQUENCY_LABELS[minutes],
            }))}
            value={String(values.backup_frequency)}
            onChange={(v) => v && set('backup_frequency', Number(v))}
            allowDeselect={false}
          />
          <Switch
            label="Auto Backup"
            checked={values.auto_backup}
            onChange={(e) => set('auto_backup', e.currentTarget.checked)}
            mt={{ sm: 30 }}
          />
        </SimpleGrid>
      </SettingsCard>
      <div>
        <Button leftSection={<IconDeviceFloppy size={16} />}>Save Settings</Button>
        <Text size="xs" c="dimmed" mt="xs">
          These values are display-only in this version: nothing is saved.
        </Text>
      </div>
    </Stack>
  );
}
