import type { FormEvent } from 'react';
import {
  Alert,
  Button,
  Group,
  NumberInput,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { IconDeviceFloppy } from '@tabler/icons-react';
import {
  BACKUP_RETENTION_COUNT_BOUNDS,
  BACKUP_RETENTION_DAYS_BOUNDS,
  MANUAL_BACKUP_RETENTION,
  SAFETY_BACKUP_RETENTION,
} from '@adam/contracts';
import { LoadingState } from '../../components/QueryState';
import { useSectionForm, wholeNumberProps } from '../settings/useSectionForm';
import { useCan } from '../../session/useCan';

/**
 * How many automatic backups are kept, and for how long (the general settings' retention, also
 * on the General Settings screen). Saved at once; the server deletes what falls outside it.
 */
export function BackupRetentionCard() {
  const canSave = useCan('administrator');
  const { form, errors, set, submit, saving, loading, failed } = useSectionForm(
    'general',
    'Backup retention saved',
  );
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit();
  };

  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Retention">
      <Title order={4}>Retention</Title>
      <Text size="sm" c="dimmed" mb="sm">
        Applies to automatic backups, after each one and at housekeeping. Manual backups keep the
        newest {MANUAL_BACKUP_RETENTION}, safety backups the newest {SAFETY_BACKUP_RETENTION}.
      </Text>
      {failed ? (
        <Alert color="red" variant="light">
          The retention settings could not be loaded.
        </Alert>
      ) : loading || !form ? (
        <LoadingState rows={2} label="Loading retention settings" />
      ) : (
        <form onSubmit={onSubmit} noValidate>
          <Stack gap="sm">
            <SimpleGrid cols={{ base: 1, sm: 2 }} maw={720}>
              <NumberInput
                label="Automatic backups kept"
                description="The newest ones; older automatic backups are deleted."
                {...wholeNumberProps(BACKUP_RETENTION_COUNT_BOUNDS)}
                value={form.backup_retention_count}
                onChange={(v) => set('backup_retention_count', v)}
                error={errors.backup_retention_count}
                disabled={!canSave}
              />
              <NumberInput
                label="Delete automatic backups after (days)"
                description="0 keeps them whatever their age; the newest is always kept."
                {...wholeNumberProps(BACKUP_RETENTION_DAYS_BOUNDS)}
                value={form.backup_retention_days}
                onChange={(v) => set('backup_retention_days', v)}
                error={errors.backup_retention_days}
                disabled={!canSave}
              />
            </SimpleGrid>
            {canSave ? (
              <Group>
                <Button
                  type="submit"
                  variant="light"
                  loading={saving}
                  leftSection={<IconDeviceFloppy size={16} />}
                >
                  Save retention
                </Button>
              </Group>
            ) : null}
          </Stack>
        </form>
      )}
    </Paper>
  );
}
